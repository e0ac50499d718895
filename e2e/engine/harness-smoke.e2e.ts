import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  captureRemoteAudio,
  launchChromium,
  remoteDominantFrequency,
  toneWav,
} from '../support/browser';
import { openSoftphone, startEngineHarness, type EngineHarness } from '../support/engine-harness';

let harness: EngineHarness;
let browser: Browser;
beforeAll(async () => {
  harness = await startEngineHarness();
  browser = await launchChromium(await toneWav(1000));
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

it('an SDK device in Chromium registers, is rung, accepts and hears the lead', async () => {
  const page = await browser.newPage();
  await captureRemoteAudio(page);
  await openSoftphone(page, harness, 'agent-1');
  await harness.waitFor('device.online', (e) => e.identity === 'agent-1');
  expect(await harness.engine.ringAgent('CAsmoke1', 'agent-1', { From: 'client:7' })).toBe(1);
  await page.waitForFunction(() => (window as unknown as { calls: unknown[] }).calls.length === 1);
  await page.evaluate(() =>
    (window as unknown as { calls: Array<{ accept(): void }> }).calls[0]!.accept(),
  );
  await harness.waitFor('agent.answered');
  harness.engine.dial('CAsmoke1', '+15550100042');
  await harness.waitFor('phone.answered');
  const hz = await remoteDominantFrequency(page, 1500);
  expect(hz).toBeGreaterThan(420);
  expect(hz).toBeLessThan(460);
});
