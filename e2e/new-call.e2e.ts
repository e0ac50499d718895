/**
 * New Call end to end: the phone input in the real console against the started product. The
 * panel takes `(415) 555-0132` with the US selected and `+44 20 7946 0958`, shows them
 * formatted and posts E.164; the softphone then connects with the answer's `call_user_id` and
 * `To`. A call to a sandbox lead goes Dialing... → on the call → Call Result. The login page
 * does not load the phone input's country data; the New Call panel does. The toll-fraud guard
 * (issue 36): New Call to a premium-rate number or to a country the account does not call shows
 * the server's sentence in the panel and places nothing.
 */
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import { logInToConsole, recordResultAndFinish, screenshotsAtBothWidths } from './support/console';
import { sandboxCallOf } from './support/page-checks';
import { startProduct, type Product } from './support/product';

let product: Product;
let browser: Browser;
/** Every context a spec opened, closed at the end even when the spec failed. */
const contexts: BrowserContext[] = [];

/** A loopback-only page (and what it tried to reach elsewhere). */
async function newPage(): Promise<{ page: Page; foreignRequests: string[] }> {
  const { context, foreignRequests } = await loopbackOnlyContext(browser);
  contexts.push(context);
  return { page: await context.newPage(), foreignRequests };
}

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(1000));
});

afterAll(async () => {
  await Promise.allSettled(contexts.map((context) => context.close()));
  await browser?.close();
  await product?.stop();
});

const OUTBOUND_PATH = '/api/v1/calls/twilio/outbound';

interface OutboundAnswer {
  success: boolean;
  call_user_id: number;
  call: { id: number; phone_number: string; lead: { fname: string; lname: string } };
}

/** What the page sent and received while placing calls. */
interface Recorder {
  /** Bodies of `POST /api/v1/calls/twilio/outbound`, in order. */
  bodies: Record<string, unknown>[];
  /** Connect params of the softphone's `invite` frames, in order. */
  invites: URLSearchParams[];
  /** `window.alert` messages. */
  alerts: string[];
}

function record(page: Page): Recorder {
  const recorder: Recorder = { bodies: [], invites: [], alerts: [] };
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === OUTBOUND_PATH) {
      recorder.bodies.push(request.postDataJSON() as Record<string, unknown>);
    }
  });
  page.on('websocket', (ws) =>
    ws.on('framesent', (frame) => {
      if (typeof frame.payload !== 'string' || !frame.payload.startsWith('{')) return;
      const message = JSON.parse(frame.payload) as {
        type: string;
        payload: { twilio?: { params?: string } };
      };
      if (message.type === 'invite') {
        recorder.invites.push(new URLSearchParams(message.payload.twilio?.params ?? ''));
      }
    }),
  );
  page.on('dialog', (dialog) => {
    recorder.alerts.push(dialog.message());
    void dialog.dismiss();
  });
  return recorder;
}

/** Logs agent1 in and waits until the softphone is registered. */
const logIn = (page: Page) => logInToConsole(page, product.url, 'agent1@example.com');

/** Opens the New Call panel from the bottom navigation. */
async function openNewCall(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Call' })
    .click();
  await page.getByRole('heading', { name: 'New Call' }).waitFor({ timeout: 10_000 });
}

/** Clicks Call Now and returns the server's answer. */
async function callNow(page: Page): Promise<{ status: number; answer: OutboundAnswer }> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === OUTBOUND_PATH, { timeout: 10_000 }),
    page.getByRole('button', { name: 'Call Now' }).click(),
  ]);
  return { status: response.status(), answer: (await response.json()) as OutboundAnswer };
}

/**
 * Ends a dial to a number the sandbox cannot reach: the network's hangup ends it (Call Result,
 * or back to waiting after the connection-error alert); if the console is still dialing after a
 * few seconds the agent hangs up. A Call Result is then recorded as Missed.
 */
async function endTheDial(page: Page): Promise<void> {
  const callResult = page.getByRole('heading', { name: 'Call Result' });
  const waiting = page.getByText('Waiting for lead...');
  const settled = async () => (await callResult.isVisible()) || (await waiting.isVisible());
  const deadline = Date.now() + 5_000;
  while (!(await settled()) && Date.now() < deadline) await page.waitForTimeout(250);
  if (!(await settled())) {
    await page
      .getByRole('region', { name: 'Dialing' })
      .getByRole('button', { name: /^Hang Up/ })
      .click();
    await callResult.waitFor({ timeout: 10_000 });
  }
  if (await callResult.isVisible()) await recordResultAndFinish(page, 'Missed', 'Send SMS');
  await waiting.waitFor({ timeout: 10_000 });
}

it('accepts (415) 555-0132 with US selected and +44 20 7946 0958, shows them formatted, and sends E.164', async () => {
  const { page, foreignRequests } = await newPage();
  const recorder = record(page);
  await logIn(page);

  // (415) 555-0132 with the US selected (agent1's country_code).
  await openNewCall(page);
  const country = page.getByRole('combobox', { name: 'Country' });
  expect(await country.textContent()).toContain('United States +1');
  await page.getByRole('textbox', { name: 'First Name' }).fill('Jordan');
  await page.getByRole('textbox', { name: 'Last Name' }).fill('Miles');
  const phone = page.getByRole('textbox', { name: 'Phone Number' });
  await phone.pressSequentially('(415) 555-0132');
  expect(await phone.inputValue()).toBe('(415) 555-0132');
  // Typed as bare digits it is shown formatted the same way.
  await phone.fill('');
  await phone.pressSequentially('4155550132');
  expect(await phone.inputValue()).toBe('(415) 555-0132');

  const first = await callNow(page);
  expect(first.status).toBe(200);
  const { agent_id: agentId, ...body } = recorder.bodies[0] ?? {};
  expect(body).toEqual({
    fname: 'Jordan',
    lname: 'Miles',
    phone_number: '+14155550132',
  });
  expect(Number.isInteger(agentId)).toBe(true);
  expect(first.answer).toMatchObject({
    success: true,
    call: { phone_number: '+14155550132', lead: { fname: 'Jordan', lname: 'Miles' } },
  });
  // The softphone connects with the answer's call_user_id and To.
  await expect.poll(() => recorder.invites.length, { timeout: 10_000 }).toBe(1);
  expect(recorder.invites[0]?.get('call_user_id')).toBe(String(first.answer.call_user_id));
  expect(recorder.invites[0]?.get('To')).toBe('+14155550132');
  await endTheDial(page);

  // +44 20 7946 0958: the country follows the number.
  await openNewCall(page);
  await phone.pressSequentially('+44 20 7946 0958');
  expect(await phone.inputValue()).toBe('+44 20 7946 0958');
  expect(await country.textContent()).toContain('United Kingdom +44');
  const second = await callNow(page);
  expect(second.status).toBe(200);
  // A plain browser, not the desktop wrapper: no `interface` (e2e/desktop-and-background).
  expect(recorder.bodies[1]).toMatchObject({ phone_number: '+442079460958' });
  expect(recorder.bodies[1]).not.toHaveProperty('interface');
  expect(second.answer.call.phone_number).toBe('+442079460958');
  await expect.poll(() => recorder.invites.length, { timeout: 10_000 }).toBe(2);
  expect(recorder.invites[1]?.get('To')).toBe('+442079460958');
  await endTheDial(page);

  expect(foreignRequests).toEqual([]);
  await page.context().close();
});

it('the login page does not load the country data; the New Call panel does', async () => {
  const { page } = await newPage();
  /** Each script with the step of the test it was requested in, and its text once read. */
  const scripts: Array<{ path: string; step: 'login' | 'waiting' | 'panel'; source?: string }> = [];
  let step: 'login' | 'waiting' | 'panel' = 'login';
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (!path.endsWith('.js')) return;
    const script: (typeof scripts)[number] = { path, step };
    scripts.push(script);
    void response.text().then((source) => (script.source = source));
  });
  const read = (which: (typeof scripts)[number]['step']) => scripts.filter((s) => s.step === which);
  const hasCountryData = (source = '') =>
    // libphonenumber-js's metadata and the country names' lookup.
    source.includes('country_calling_codes') || source.includes('Search countries');

  await page.goto(product.url);
  await page.getByRole('heading', { name: 'Log in' }).waitFor({ timeout: 10_000 });
  await page.waitForLoadState('networkidle');
  await expect.poll(() => read('login').every((s) => s.source !== undefined)).toBe(true);
  expect(read('login').length).toBeGreaterThan(0);
  expect(read('login').some((s) => s.path.includes('new-call-panel'))).toBe(false);
  expect(read('login').filter((s) => hasCountryData(s.source))).toEqual([]);

  step = 'waiting';
  await page.getByLabel('Email').fill('agent1@example.com');
  await page.getByLabel('Password').fill('leadline-demo');
  await page.getByRole('button', { name: 'Login' }).click();
  await page.getByText('Waiting for lead...').waitFor({ timeout: 20_000 });
  await page.waitForLoadState('networkidle');
  step = 'panel';
  await openNewCall(page);
  // The panel's chunk, or the phone input's chunk it shares with Add Lead, requested only when
  // the panel opened, brings the country data; nothing before it did.
  expect(read('panel').some((s) => s.path.includes('new-call-panel'))).toBe(true);
  await expect
    .poll(() => read('panel').some((s) => hasCountryData(s.source)), { timeout: 10_000 })
    .toBe(true);
  await expect.poll(() => read('waiting').every((s) => s.source !== undefined)).toBe(true);
  expect(read('waiting').filter((s) => hasCountryData(s.source))).toEqual([]);
  await page.context().close();
});

it('New Call to a premium-rate number or a country the account does not call: the panel says why and nothing is placed', async () => {
  const { page, foreignRequests } = await newPage();
  const recorder = record(page);
  await logIn(page);
  await openNewCall(page);
  const panel = page.getByRole('region', { name: 'New Call' });
  const phone = panel.getByRole('textbox', { name: 'Phone Number' });
  await panel.getByRole('textbox', { name: 'First Name' }).fill('Tolly');
  // The demo account calls the US, Canada and the UK (its policy); a premium-rate number is
  // refused whatever the country.
  const refusals = [
    ['+44 909 879 0000', '+449098790000', 'Calls to premium-rate numbers are not allowed.'],
    ['+1 900 555 0123', '+19005550123', 'Calls to premium-rate numbers are not allowed.'],
    ['+7 495 123 4567', '+74951234567', 'Calls to Russia are not allowed for this account.'],
  ] as const;
  for (const [typed, e164, sentence] of refusals) {
    await phone.fill('');
    await phone.pressSequentially(typed);
    const { status, answer } = await callNow(page);
    expect(recorder.bodies.at(-1)).toMatchObject({ phone_number: e164 });
    expect({ status, answer }).toEqual({
      status: 403,
      answer: { success: false, error: sentence },
    });
    // Shown where the agent dialled: the New Call panel stays open with the sentence.
    await expect.poll(() => panel.getByRole('alert').textContent()).toBe(sentence);
    expect(await panel.getByRole('button', { name: 'Call Now' }).isEnabled()).toBe(true);
    // Nothing was placed: the softphone never connected, the phone network got no call.
    expect(recorder.invites).toEqual([]);
    expect(await sandboxCallOf(page, product.url, e164)).toBeUndefined();
  }
  expect(await panel.getByRole('heading', { name: 'New Call' }).isVisible()).toBe(true);
  await screenshotsAtBothWidths(page, product.dataDir, 'new-call-refused');
  expect(recorder.alerts).toEqual([]);
  expect(foreignRequests).toEqual([]);
  await page.context().close();
});

it("calls a sandbox lead: 'Dialing...', then on the call with the timer, then Call Result", async () => {
  const { page } = await newPage();
  const recorder = record(page);
  await logIn(page);
  await openNewCall(page);
  await page.getByRole('textbox', { name: 'First Name' }).fill('Casey');
  await page.getByRole('textbox', { name: 'Phone Number' }).pressSequentially('+1 555 010 0142');
  const caller = page.getByRole('combobox', { name: 'Caller ID' });
  await caller.waitFor();
  expect(await caller.locator('option').allTextContents()).toEqual([
    'Default',
    'Acme Solar main line: +1 555 014 2000',
    'Acme Solar spring campaign: +1 555 014 2010',
  ]);
  await caller.selectOption({ label: 'Acme Solar main line: +1 555 014 2000' });

  const { answer } = await callNow(page);
  await expect
    .poll(() => page.getByRole('status', { name: 'Call status' }).textContent(), {
      timeout: 5_000,
    })
    .toBe('Dialing...');
  expect(recorder.bodies[0]).toMatchObject({ phone_number: '+15550100142' });
  expect(Number.isInteger(recorder.bodies[0]?.caller_id)).toBe(true);
  await expect.poll(() => recorder.invites.length, { timeout: 10_000 }).toBe(1);
  expect(recorder.invites[0]?.get('callerId')).toBe('+15550142000');

  // The sandbox lead answers after about a second: on the call, the timer runs.
  await page.getByRole('timer').waitFor({ timeout: 20_000 });
  await expect
    .poll(() => page.getByRole('timer').textContent(), { timeout: 5_000 })
    .not.toBe('00:00');
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await page.getByRole('heading', { name: 'Call Result' }).waitFor({ timeout: 10_000 });
  expect(await page.getByText('Call Ended').isVisible()).toBe(true);
  await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');
  expect(recorder.alerts).toEqual([]);
  await page.context().close();

  // The call row (the product stops first: its database is a single-process PGlite).
  await product.stop();
  const db = await PGlite.create(join(product.dataDir, 'pglite'));
  try {
    const { rows } = await db.query<{
      direction: string;
      disposition: string;
      phone_number: string;
    }>('select direction, disposition, phone_number from calls where id = $1', [answer.call.id]);
    expect(rows).toEqual([
      { direction: 'outbound', disposition: 'contacted', phone_number: '+15550100142' },
    ]);
  } finally {
    await db.close();
  }
});
