/**
 * The History panel through the started product: a new agent has no calls; after a call, the
 * agent's history lists it with its status and plays its recording in the page (the audio element
 * reports a duration), and the recording holds both parties' tones (the lead's 440 Hz and the
 * agent's 1000 Hz). Times are the agent's own: browsers set to UTC−11 (Pago Pago) and UTC+14
 * (Kiritimati) show the call's time in their zone, worked out here from the server's ISO time.
 * Retry on a row calls its lead again: it rings the agent, who answers and hears the lead.
 * Screenshots at 360 and 1280 px.
 */
import {
  request,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { decodeWav, toneShare } from '@leadline/voice/dsp';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  toneWav,
} from './support/browser';
import {
  answerButton,
  logInToConsole,
  recordResultAndFinish,
  screenshotsAtBothWidths,
} from './support/console';
import { startProduct, type Product } from './support/product';
import { heardTones, remoteToneLevels } from './support/remote-tones';

let product: Product;
let browser: Browser;
let http: APIRequestContext;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(1000));
  http = await request.newContext();
});

/** The consoles a test opened: closed after it, also when it failed half-way. */
const opened = new Set<BrowserContext>();

afterEach(async () => {
  for (const context of opened) await context.close();
  opened.clear();
});

afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
});

/** The browser's zone and language (an agent far from UTC), the machine's when left out. */
type Zone = { readonly timezoneId?: string; readonly locale?: string };

async function consoleOf(email: string, zone: Zone = {}): Promise<Page> {
  const { context } = await loopbackOnlyContext(browser, zone);
  opened.add(context);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, product.url, email);
  return page;
}

async function openHistory(page: Page) {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'History' })
    .click();
  return page.getByRole('region', { name: 'Call History' });
}

/** The user's history rows as the server answers them (the page's session). */
async function historyRows(
  page: Page,
): Promise<{ id: number; created_at: string; lead: { label: string } | null }[]> {
  const answer = await page.context().request.get(`${product.url}/api/v1/mycalls?limit=5&page=1`);
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { data: [] }).data;
}

/**
 * What a row's time reads for an agent in `timeZone` (en-US) at `nowMs`, worked out from the
 * call's ISO time with the test process's own Intl: a call of today (in that zone) as its time,
 * an older one with the date.
 */
function timeShownIn(timeZone: string, iso: string, nowMs: number): string {
  const atMs = Date.parse(iso);
  const day = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(ms);
  const style: Intl.DateTimeFormatOptions =
    day(atMs) === day(nowMs) ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' };
  return plain(new Intl.DateTimeFormat('en-US', { ...style, timeZone }).format(atMs));
}

/** Text with every kind of space as a plain one (ICU versions differ before AM/PM). */
const plain = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Checks that `item`, the row of the call `label`, shows the call's time in the browser's zone
 * `timeZone` (and that this is not what UTC would show, so the check means something).
 */
async function expectTimeInZone(page: Page, item: Locator, label: string, timeZone: string) {
  expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(
    timeZone,
  );
  const row = (await historyRows(page)).find((r) => r.lead?.label === label);
  expect(row, `${label} in the history`).toBeDefined();
  const expected = timeShownIn(timeZone, row!.created_at, Date.now());
  expect(expected).not.toBe(timeShownIn('UTC', row!.created_at, Date.now()));
  expect(plain((await item.locator('time').textContent()) ?? '')).toBe(expected);
  expect(await item.locator('time').getAttribute('datetime')).toBe(row!.created_at);
}

/** Posts a web lead (the public API), which rings an available agent. */
async function postLead(fname: string, lname: string, phoneNumber: string): Promise<void> {
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname, lname, phone_number: phoneNumber },
  });
  expect(posted.status()).toBe(201);
}

/** Answers the lead ringing the agent and waits until the agent hears it (its 440 Hz). */
async function answerLead(page: Page): Promise<void> {
  await expect
    .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(page, 'Call').click();
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [440, 1000])), { timeout: 20_000 })
    .toEqual([440]);
}

it('a new agent\'s history says "You don\'t have any calls!"', async () => {
  const page = await consoleOf('agent2@example.com');
  const panel = await openHistory(page);
  await expect
    .poll(() => panel.getByText("You don't have any calls!").isVisible(), { timeout: 10_000 })
    .toBe(true);
  await screenshotsAtBothWidths(page, product.dataDir, 'history-empty');
  await page.context().close();
});

it("after a call, the history lists it with its status and its time in the agent's zone (UTC−11), and plays its recording, which holds both parties", async () => {
  const zone = 'Pacific/Pago_Pago';
  const page = await consoleOf('agent1@example.com', { timezoneId: zone, locale: 'en-US' });
  await postLead('Jordan', 'Miles', '+15550100081');
  await answerLead(page);
  // Let both parties be recorded a while.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');

  const panel = await openHistory(page);
  const item = panel.getByRole('listitem').filter({ hasText: 'Jordan Miles' });
  await expect.poll(() => item.isVisible(), { timeout: 10_000 }).toBe(true);
  expect(await item.textContent()).toMatch(/Outbound call to Jordan Miles.*\+1 555 010 0081/);
  // The status is the call's duration (mm:ss), and the agent's name.
  expect(await item.textContent()).toMatch(/\d\d:\d\d.*Alex Rivera/);
  await expectTimeInZone(page, item, 'Jordan Miles', zone);
  // The recording link appears once the recording is linked to the call.
  const play = item.getByRole('button', {
    name: 'Play recording of the call with Jordan Miles',
  });
  await expect
    .poll(
      async () => {
        if (await play.isVisible()) return true;
        await page.getByRole('button', { name: 'Close' }).click();
        await openHistory(page);
        return play.isVisible();
      },
      { timeout: 20_000, interval: 500 },
    )
    .toBe(true);
  await play.click();
  const audio = item.locator('audio');
  await expect
    .poll(
      () => audio.evaluate((a: HTMLAudioElement) => (Number.isFinite(a.duration) ? a.duration : 0)),
      {
        timeout: 15_000,
      },
    )
    .toBeGreaterThan(1);
  await screenshotsAtBothWidths(page, product.dataDir, 'history-call');

  const href = await item
    .getByRole('link', { name: 'Download the recording of the call with Jordan Miles' })
    .getAttribute('href');
  const wav = decodeWav(await (await page.context().request.get(`${product.url}${href}`)).body());
  const share = (hz: number) => toneShare(wav.samples, hz, wav.sampleRateHz);
  // Both tones stand far above a frequency nobody played.
  expect(share(440)).toBeGreaterThan(share(700) * 1000);
  expect(share(1000)).toBeGreaterThan(share(700) * 1000);
  await page.context().close();
}, 120_000);

it("Retry on a row calls its lead again: it rings the agent, who answers and hears the lead (times in the agent's zone, UTC+14)", async () => {
  const zone = 'Pacific/Kiritimati';
  const page = await consoleOf('agent2@example.com', { timezoneId: zone, locale: 'en-US' });
  await postLead('Riley', 'Chen', '+15550100082');
  await answerLead(page);
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');

  let panel = await openHistory(page);
  const rileyRows = () => panel.getByRole('listitem').filter({ hasText: 'Riley Chen' });
  await expect.poll(() => rileyRows().count(), { timeout: 10_000 }).toBe(1);
  const item = rileyRows().first();
  await expectTimeInZone(page, item, 'Riley Chen', zone);
  const retry = item.getByRole('button', { name: 'Retry Riley Chen' });
  expect(await retry.isEnabled()).toBe(true);
  await screenshotsAtBothWidths(page, product.dataDir, 'history-retry');

  const retried = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' &&
      new URL(response.url()).pathname === '/api/v1/calls/twilio',
  );
  await retry.click();
  const answer = (await (await retried).json()) as { success: boolean; error?: string };
  expect(answer).toMatchObject({ success: true });
  expect(answer.error).toBeUndefined();
  // The lead rings this agent (the ringing view takes the panel's place); answered, they hear it.
  await answerLead(page);
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');

  // Two calls to the lead now: the first and the retry.
  panel = await openHistory(page);
  await expect.poll(() => rileyRows().count(), { timeout: 10_000 }).toBe(2);

  // Away, with nobody else online, nobody can take the lead: the server's refusal shows under
  // the row.
  await page.getByRole('button', { name: 'Status: Available' }).click();
  await expect
    .poll(() => page.getByRole('button', { name: 'Status: Away' }).isVisible(), { timeout: 10_000 })
    .toBe(true);
  const refused = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' &&
      new URL(response.url()).pathname === '/api/v1/calls/twilio',
  );
  const latest = rileyRows().first();
  await latest.getByRole('button', { name: 'Retry Riley Chen' }).click();
  const refusal = (await (await refused).json()) as { success: boolean; error?: string };
  expect(refusal.success).toBe(false);
  expect(refusal.error).toMatch(/\w/);
  const alert = latest.getByRole('alert');
  await expect.poll(() => alert.textContent(), { timeout: 10_000 }).toBe(refusal.error);
  expect(await panel.getByRole('alert').count()).toBe(1);
  await screenshotsAtBothWidths(page, product.dataDir, 'history-retry-refused');
  await page.context().close();
}, 120_000);
