/**
 * Transfer and Add Lead through the started product, heard end to end. Two agents in Chromium,
 * each with its own fake microphone (agent1 1000 Hz, agent2 700 Hz); the sandbox's test leads
 * play 440 Hz. Transfer to a user and to a team: the agent who has the lead opens Transfer and
 * picks the other agent (or the other agent's team); that console rings 'Incoming Transfer!',
 * accepts and hears the lead; the first agent's console goes to the Call Result view; the lead
 * hears the new agent and no longer the first. Add Lead: an inbound call has no lead; the agent
 * adds one, whose phone answers; the lead card fills in and the agent hears it. Screenshots of
 * both transfer lists at 360 and 1280 px; no serious or critical axe-core violations on them.
 */
import { join } from 'node:path';
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  toneWav,
} from './support/browser';
import {
  answerButton,
  doneAndReady,
  logInToConsole,
  overflowingElements,
  recordResultAndFinish,
  screenshotsAtBothWidths,
} from './support/console';
import {
  partyRecording,
  sandboxCallOf,
  seriousViolations,
  type SandboxCall,
} from './support/page-checks';
import { startProduct, type Product } from './support/product';
import { heardTones, remoteToneLevels, toneLevels } from './support/remote-tones';

const LEAD_HZ = 440;
const AGENTS = [
  { email: 'agent1@example.com', name: 'Alex Rivera', team: 'Sales', hz: 1000 },
  { email: 'agent2@example.com', name: 'Blake Chen', team: 'Support', hz: 700 },
] as const;
const PROBES = [LEAD_HZ, ...AGENTS.map((a) => a.hz)];

let product: Product;
let browsers: Browser[] = [];
let http: APIRequestContext;
const pages: Page[] = [];

beforeAll(async () => {
  product = await startProduct();
  browsers = await Promise.all(AGENTS.map(async (a) => launchChromium(await toneWav(a.hz))));
  http = await request.newContext();
});

/** Both agents' consoles, logged in at the first test that needs them. */
async function consoles(): Promise<Page[]> {
  if (pages.length === AGENTS.length) return pages;
  for (const [i, a] of AGENTS.entries()) {
    const { context } = await loopbackOnlyContext(browsers[i]!);
    const page = await context.newPage();
    await captureRemoteAudio(page);
    await logInToConsole(page, product.url, a.email);
    pages.push(page);
  }
  return pages;
}

afterAll(async () => {
  await http?.dispose();
  await Promise.all(browsers.map((b) => b.close()));
  await product?.stop();
});

const hears = async (page: Page) => heardTones(await remoteToneLevels(page, PROBES));

async function untilHears(page: Page, expected: number[], timeout = 20_000): Promise<void> {
  await expect.poll(() => hears(page), { timeout, interval: 100 }).toEqual(expected);
}

/** Waits until `text` shows in `page`. */
async function shows(page: Page, text: string | RegExp, timeout = 15_000): Promise<void> {
  await expect.poll(() => page.getByText(text).first().isVisible(), { timeout }).toBe(true);
}

/** Posts a lead; resolves with the index of the agent whose console rings. */
async function postLead(phone: string): Promise<number> {
  await consoles();
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname: 'Jordan', lname: 'Miles', phone_number: phone },
  });
  expect(posted.status()).toBe(201);
  let rung = -1;
  await expect
    .poll(
      async () => {
        for (const [i, page] of pages.entries()) {
          if (await page.getByText('Incoming Lead!').isVisible()) rung = i;
        }
        return rung;
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(0);
  return rung;
}

/** From the Call Result view (or Thank you) back to waiting: the agent is routable again. */
async function finish(page: Page): Promise<void> {
  if (await page.getByRole('button', { name: /^Contacted/ }).isVisible()) {
    await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');
    return;
  }
  await doneAndReady(page);
}

/** What the lead heard in the last `ms` before its call ended, tone by tone. */
async function leadHeardAtTheEnd(call: SandboxCall, ms: number): Promise<number[]> {
  const wav = await partyRecording(product.dataDir, call);
  // The last 300 ms may hold the hang-up itself.
  const end = wav.samples.length - Math.round(0.3 * wav.sampleRateHz);
  const samples = wav.samples.subarray(end - Math.round((ms / 1000) * wav.sampleRateHz), end);
  return heardTones(toneLevels({ samples, sampleRateHz: wav.sampleRateHz }, PROBES));
}

async function transferCase(phone: string, to: 'user' | 'team'): Promise<void> {
  const a = await postLead(phone);
  const b = 1 - a;
  const [first, second] = [pages[a]!, pages[b]!];
  await answerButton(first, 'Call').click();
  await untilHears(first, [LEAD_HZ]);

  const onCall = first.getByRole('region', { name: 'On call' });
  await onCall.getByRole('button', { name: /^Transfer/ }).click();
  const panel = first.getByRole('region', { name: 'Transfer' });
  const target =
    to === 'user'
      ? panel.getByRole('button', { name: `Transfer to ${AGENTS[b]!.name}` })
      : panel.getByRole('button', { name: `Transfer to team ${AGENTS[b]!.team}` });
  if (to === 'team') await panel.getByRole('button', { name: 'Team', exact: true }).click();
  await expect.poll(() => target.isEnabled(), { timeout: 15_000 }).toBe(true);
  if (to === 'user') {
    // The agent transferring cannot pick themself (listed disabled, or not listed).
    const self = panel.getByRole('button', { name: `Transfer to ${AGENTS[a]!.name}` });
    expect((await self.count()) === 0 || (await self.isDisabled())).toBe(true);
  }
  for (const width of [360, 1280]) {
    await first.setViewportSize({ width, height: 900 });
    await first.screenshot({
      path: join(product.dataDir, `transfer-${to}-${width}.png`),
      fullPage: true,
    });
    expect(await overflowingElements(first)).toEqual([]);
  }
  expect(await seriousViolations(first)).toEqual([]);
  await target.click();
  await expect.poll(() => panel.count()).toBe(0);

  // The other agent rings 'Incoming Transfer!', accepts, and hears the lead.
  await shows(second, 'Incoming Transfer!');
  if (to === 'user') await screenshotsAtBothWidths(second, product.dataDir, 'ringing-transfer');
  await answerButton(second, 'Accept').click();
  await untilHears(second, [LEAD_HZ]);
  // The first agent's call ended for them: the Call Result view.
  await shows(first, 'Call Ended');
  expect(await first.getByRole('button', { name: /^Contacted/ }).isVisible()).toBe(true);

  // The lead hears the new agent and not the first one.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await second.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(second, 'Call Ended');
  const call = await sandboxCallOf(second, product.url, phone);
  expect(call).toBeDefined();
  expect(await leadHeardAtTheEnd(call!, 1_200)).toEqual([AGENTS[b]!.hz]);
  await finish(first);
  await finish(second);
}

it('transfer to a user: the other agent rings Incoming Transfer!, takes the lead; the first goes to Call Result', async () => {
  await transferCase('+15550100061', 'user');
}, 120_000);

it('transfer to a team: an agent of that team rings, takes the lead; the first goes to Call Result', async () => {
  await transferCase('+15550100062', 'team');
}, 120_000);

/** Turns the agent's Auto Accept switch (Settings) to `on`. */
async function setAutoAccept(page: Page, on: boolean): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Settings' })
    .click();
  const settings = page.getByRole('region', { name: 'Settings' });
  const toggle = settings.getByRole('switch', { name: 'Auto Accept' });
  if ((await toggle.getAttribute('aria-checked')) !== String(on)) await toggle.click();
  await expect.poll(() => toggle.getAttribute('aria-checked')).toBe(String(on));
  await settings.getByRole('button', { name: 'Close' }).click();
}

/** Clicks the agent's status button, which reads `from`, and waits until it reads `to`. */
async function setStatus(page: Page, from: string, to: string): Promise<void> {
  await page.getByRole('button', { name: `Status: ${from}` }).click();
  await expect
    .poll(() => page.getByRole('button', { name: `Status: ${to}` }).isVisible(), {
      timeout: 10_000,
    })
    .toBe(true);
}

it('with Auto Accept on, a transfer is answered without a click', async () => {
  const [withAutoAccept, asking] = await consoles();
  // Agent1 (app-autoaccept) turns Auto Accept on and steps away, so the lead rings agent2.
  await setAutoAccept(withAutoAccept!, true);
  await setStatus(withAutoAccept!, 'Available', 'Away');
  expect(await postLead('+15550100064')).toBe(1);
  await setStatus(withAutoAccept!, 'Away', 'Available');
  await answerButton(asking!, 'Call').click();
  await untilHears(asking!, [LEAD_HZ]);

  await asking!.getByRole('button', { name: /^Transfer/ }).click();
  const target = asking!
    .getByRole('region', { name: 'Transfer' })
    .getByRole('button', { name: `Transfer to ${AGENTS[0].name}` });
  await expect.poll(() => target.isEnabled(), { timeout: 15_000 }).toBe(true);
  await target.click();

  // On the call without a click, hearing the lead; the Accept button never waited.
  const onCall = withAutoAccept!.getByRole('region', { name: 'On call' });
  await expect.poll(() => onCall.isVisible(), { timeout: 15_000 }).toBe(true);
  await untilHears(withAutoAccept!, [LEAD_HZ]);
  await shows(asking!, 'Call Ended');
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(withAutoAccept!, 'Call Ended');
  await finish(asking!);
  await finish(withAutoAccept!);
  await setAutoAccept(withAutoAccept!, false);
}, 120_000);

it('Add Lead on an inbound call that has none: the lead answers, the card fills in, the agent hears it', async () => {
  await consoles();
  const inbound = await http.post(`${product.url}/api/v1/sandbox/inbound`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { from: '+15550107001', to: '+15550142000' },
  });
  expect(inbound.ok()).toBe(true);
  let rung = -1;
  await expect
    .poll(
      async () => {
        for (const [i, page] of pages.entries()) {
          if (await answerButton(page, 'Accept').isVisible()) rung = i;
        }
        return rung;
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(0);
  const page = pages[rung]!;
  await answerButton(page, 'Accept').click();
  const onCall = page.getByRole('region', { name: 'On call' });
  await expect.poll(() => onCall.getByRole('button', { name: /^Add Lead/ }).isVisible()).toBe(true);
  // No lead yet: no Hold, no Transfer.
  expect(await onCall.getByRole('button', { name: /^Hold/ }).count()).toBe(0);
  expect(await onCall.getByRole('button', { name: /^Transfer/ }).count()).toBe(0);

  await onCall.getByRole('button', { name: /^Add Lead/ }).click();
  const form = page.getByRole('region', { name: 'Add Lead' });
  await form.getByLabel('First Name').fill('Ana');
  await form.getByLabel('Last Name').fill('Ruiz');
  await form.getByRole('textbox', { name: 'Phone Number' }).fill('555 010 0063');
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(product.dataDir, `add-lead-${width}.png`), fullPage: true });
    expect(await overflowingElements(page)).toEqual([]);
  }
  expect(await seriousViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Call', exact: true }).click();

  await expect
    .poll(() => page.getByRole('article', { name: 'Lead: Ana Ruiz' }).isVisible(), {
      timeout: 20_000,
    })
    .toBe(true);
  expect(await form.count()).toBe(0);
  expect(await onCall.getByRole('button', { name: /^Hold/ }).isVisible()).toBe(true);
  // The added lead's 440 Hz is heard (with the caller's voice, which is not a probed tone).
  await expect
    .poll(async () => (await hears(page)).includes(LEAD_HZ), { timeout: 20_000, interval: 100 })
    .toBe(true);
  const added = await sandboxCallOf(page, product.url, '+15550100063');
  expect(added?.answeredAt).not.toBeNull();
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(page, 'Call Ended');
}, 120_000);
