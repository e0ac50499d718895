/**
 * The History panel through the started product: a new agent has no calls; after a call, the
 * agent's history lists it with its status and plays its recording in the page (the audio element
 * reports a duration), and the recording holds both parties' tones (the lead's 440 Hz and the
 * agent's 1000 Hz). Screenshots at 360 and 1280 px.
 */
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
});

async function consoleOf(email: string): Promise<Page> {
  const { context } = await loopbackOnlyContext(browser);
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

it('a new agent\'s history says "You don\'t have any calls!"', async () => {
  const page = await consoleOf('agent2@example.com');
  const panel = await openHistory(page);
  await expect
    .poll(() => panel.getByText("You don't have any calls!").isVisible(), { timeout: 10_000 })
    .toBe(true);
  await screenshotsAtBothWidths(page, product.dataDir, 'history-empty');
  await page.context().close();
});

it('after a call, the history lists it with its status and plays its recording, which holds both parties', async () => {
  const page = await consoleOf('agent1@example.com');
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname: 'Jordan', lname: 'Miles', phone_number: '+15550100081' },
  });
  expect(posted.status()).toBe(201);
  await expect
    .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(page, 'Call').click();
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [440, 1000])), { timeout: 20_000 })
    .toEqual([440]);
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
