/**
 * The pre-call network test in Settings (issue 17) through the started product: agent1's
 * console runs the 10 s test call against the embedded engine's echo number. While it runs the
 * page hears its own microphone tone come back (the echo, checked by listening); then Settings
 * shows a grade from the five with the jitter, packet loss and round-trip time the SDK's quality
 * monitor measured, and the agent's History has no row for it. Screenshots of the result at 360
 * and 1280 px. On both SDKs: ours, and the official `@twilio/voice-sdk` (`VOICE_SDK=twilio`,
 * which speaks only `wss://`, so that product serves HTTPS with a self-signed certificate), each
 * with its own quality monitor's samples.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  toneWav,
} from './support/browser';
import { logInToConsole, screenshotsAtBothWidths } from './support/console';
import { startProduct, type Product } from './support/product';
import { heardTones, remoteToneLevels } from './support/remote-tones';

/** The fake microphone's tone: what the echo must play back. */
const AGENT_HZ = 1000;
/** The sandbox test leads' tone: must not be what comes back. */
const LEAD_HZ = 440;
const GRADES = ['Excellent', 'Great', 'Good', 'Fair', 'Degraded'];

describe.each<{ sdk: string; env: Record<string, string> }>([
  { sdk: 'leadline', env: {} },
  { sdk: 'twilio', env: { VOICE_SDK: 'twilio', TLS: 'self-signed' } },
])('the network test on the $sdk SDK', ({ sdk, env }) => {
  let product: Product;
  let browser: Browser;

  beforeAll(async () => {
    product = await startProduct(env);
    browser = await launchChromium(await toneWav(AGENT_HZ), { acceptSelfSigned: true });
  });

  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  async function openSettings(page: Page) {
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('button', { name: 'Settings' })
      .click();
    return page.getByRole('region', { name: 'Settings' });
  }

  /** The History total of the page's agent, as the server counts it. */
  async function historyTotal(page: Page): Promise<number> {
    const answer = await page.context().request.get(`${product.url}/api/v1/mycalls?page=1`);
    expect(answer.status()).toBe(200);
    return ((await answer.json()) as { meta: { total: number } }).meta.total;
  }

  it('reports a grade, jitter, packet loss and round-trip time from a test call the echo number played back', async () => {
    const { context } = await loopbackOnlyContext(browser);
    const page = await context.newPage();
    await captureRemoteAudio(page);
    await logInToConsole(page, product.url, 'agent1@example.com');
    const historyBefore = await historyTotal(page);

    const settings = await openSettings(page);
    const network = settings.getByRole('group', { name: 'Network' });
    await network.getByRole('button', { name: 'Test network' }).click();
    const status = network.getByRole('status');
    // The status, or the error the test failed with (so a failure says why).
    const progress = async () =>
      (await status.textContent()) || (await network.getByRole('alert').allTextContents()).join();
    await expect.poll(progress, { timeout: 20_000 }).toMatch(/^Testing… \d+ s$/);
    // The echo: the page hears its own microphone's tone returned, and no lead.
    await expect
      .poll(async () => heardTones(await remoteToneLevels(page, [LEAD_HZ, AGENT_HZ])), {
        timeout: 8_000,
      })
      .toEqual([AGENT_HZ]);

    const result = network.getByLabel('Network test result');
    await expect.poll(() => result.isVisible(), { timeout: 30_000 }).toBe(true);
    const terms = await result.locator('dt').allTextContents();
    const values = await result.locator('dd').allTextContents();
    const figures = Object.fromEntries(terms.map((term, i) => [term, values[i]]));
    expect(Object.keys(figures)).toEqual(['Quality', 'Jitter', 'Packet loss', 'Round-trip time']);
    const [grade, mos] = /^(\w+) \(MOS (\d\.\d\d)\)$/.exec(figures.Quality ?? '')?.slice(1) ?? [];
    expect(GRADES).toContain(grade);
    expect(Number(mos)).toBeGreaterThanOrEqual(1);
    expect(figures.Jitter).toMatch(/^\d+\.\d ms$/);
    expect(figures['Packet loss']).toMatch(/^\d+\.\d %$/);
    expect(figures['Round-trip time']).toMatch(/^\d+ ms$/);
    expect(await network.getByRole('alert').count()).toBe(0);
    await screenshotsAtBothWidths(page, product.dataDir, `settings-network-test-${sdk}`);

    // The test call left no row: the agent's History is as it was (empty, for a fresh product).
    expect(await historyTotal(page)).toBe(historyBefore);
    await settings.getByRole('button', { name: 'Close' }).click();
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('button', { name: 'History' })
      .click();
    const history = page.getByRole('region', { name: 'Call History' });
    await expect
      .poll(() => history.getByText("You don't have any calls!").isVisible(), { timeout: 10_000 })
      .toBe(true);
    await context.close();
  });
});
