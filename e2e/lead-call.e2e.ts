/**
 * The walking skeleton, end to end with real audio, on each softphone SDK the console can load:
 * agent1 logs in, a lead is posted, the agent accepts and hears the lead (440 Hz), the lead hears
 * the agent (1000 Hz, the fake microphone), the agent hangs up and records the outcome; the call
 * row holds it all, and its recording both parties. With `VOICE_SDK=twilio` the console runs the
 * official `@twilio/voice-sdk`, which speaks only `wss://`, so the product serves HTTPS with a
 * self-signed certificate. No request may leave 127.0.0.1 in either run.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { request, type APIRequestContext, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav, dominantFrequency, readWavFile, toneShare } from '@leadline/voice/dsp';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  remoteDominantFrequency,
  toneWav,
} from './support/browser';
import { answerButton, logInToConsole, recordResultAndFinish } from './support/console';
import { startProduct, type Product } from './support/product';

/** Polls `read` until `accept` holds or the time is up; returns the last value. */
async function poll<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = await read();
  }
  return value;
}

describe.each<{ sdk: string; env: Record<string, string> }>([
  { sdk: 'leadline', env: {} },
  { sdk: 'twilio', env: { VOICE_SDK: 'twilio', TLS: 'self-signed' } },
])('the console on the $sdk SDK', ({ sdk, env }) => {
  let product: Product;
  let browser: Browser;
  /** The test's own HTTP client (trusts the product's self-signed certificate). */
  let http: APIRequestContext;

  beforeAll(async () => {
    product = await startProduct(env);
    browser = await launchChromium(await toneWav(1000), { acceptSelfSigned: true });
    http = await request.newContext({ ignoreHTTPSErrors: true });
  });

  afterAll(async () => {
    await http?.dispose();
    await browser?.close();
    await product?.stop();
  });

  const postLead = (phone: string) =>
    http.post(`${product.url}/api/v1/leads`, {
      headers: { authorization: 'Bearer demo-api-key' },
      data: { fname: 'Jordan', lname: 'Miles', phone_number: phone, company: 'Miles Roofing' },
    });

  it('rings a lead to agent1, with audio both ways, and records the outcome', async () => {
    const { context, foreignRequests } = await loopbackOnlyContext(browser);
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await captureRemoteAudio(page);
    await logInToConsole(page, product.url, 'agent1@example.com');

    const lead = await postLead('+15550100042');
    expect(lead.status()).toBe(201);
    const { call } = (await lead.json()) as { call: { id: number; agent_id: number | null } };
    expect(call.agent_id).not.toBeNull();

    await expect
      .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
      .toBe(true);
    await answerButton(page, 'Call').click();

    // The agent hears the lead's 440 Hz.
    const heard = await poll(
      () => remoteDominantFrequency(page),
      (f) => f !== null && Math.abs(f - 440) <= 20,
      20_000,
    );
    expect(heard).not.toBeNull();
    expect(Math.abs(heard! - 440)).toBeLessThanOrEqual(20);
    // The agent's own status, as the server's realtime event tells it (wss under TLS).
    await expect
      .poll(() => page.getByRole('button', { name: 'Status: On call' }).isVisible(), {
        timeout: 10_000,
      })
      .toBe(true);
    await page.waitForTimeout(1500);

    await page.getByRole('button', { name: /^Hang Up/ }).click();
    await expect
      .poll(() => page.getByText('Call Ended').isVisible(), { timeout: 10_000 })
      .toBe(true);
    await recordResultAndFinish(page, 'Contacted', 'Tags & Stages');
    await expect
      .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 10_000 })
      .toBe(true);
    await page.screenshot({ path: join(product.dataDir, 'after-call.png') });

    // The call's recording, from the history's link: both parties (the lead's 440 Hz and the
    // agent's 1000 Hz), served to the agent's account only.
    type History = { data: Array<{ id: number; recording_url: string | null }> };
    const recordingUrl = await poll(
      async () => {
        const history = await context.request.get(`${product.url}/api/v1/mycalls?limit=5&page=1`);
        return ((await history.json()) as History).data.find((r) => r.id === call.id)
          ?.recording_url;
      },
      (url) => typeof url === 'string',
      15_000,
    );
    expect(recordingUrl).toBe(`/api/v1/calls/${call.id}/recording`);
    const recording = await context.request.get(`${product.url}${recordingUrl}`);
    expect(recording.status()).toBe(200);
    const mixed = decodeWav(await recording.body());
    expect(mixed.samples.length / mixed.sampleRateHz).toBeGreaterThan(1);
    // Both tones stand far above a frequency nobody played (700 Hz): at least 30 dB.
    const share = (hz: number) => toneShare(mixed.samples, hz, mixed.sampleRateHz);
    expect(share(440)).toBeGreaterThan(share(700) * 1000);
    expect(share(1000)).toBeGreaterThan(share(700) * 1000);
    const outsider = await http.post(`${product.url}/api/v1/user/login`, {
      data: { email: 'agent@a6671.example.com', password: 'leadline-demo' },
    });
    expect(outsider.ok()).toBe(true);
    // The request context keeps the outsider's session cookie.
    const refused = await http.get(`${product.url}${recordingUrl}`);
    expect(refused.status()).toBe(404);

    expect(foreignRequests).toEqual([]);
    // The console loaded this SDK's chunk and not the other's.
    const other = sdk === 'twilio' ? 'leadline' : 'twilio';
    expect(scripts.some((path) => path.includes(`/${sdk}-adapter-`))).toBe(true);
    expect(scripts.some((path) => path.includes(`/${other}-adapter-`))).toBe(false);
    await context.close();
    await product.stop();

    // The virtual lead heard the agent's 1000 Hz.
    const sandbox = join(product.dataDir, 'sandbox');
    const recordings = readdirSync(sandbox).filter(
      (f) => f.includes('phone') && f.endsWith('.wav'),
    );
    expect(recordings).toHaveLength(1);
    const wav = await readWavFile(join(sandbox, recordings[0]!));
    const leadHeard = dominantFrequency(wav.samples, wav.sampleRateHz);
    expect(leadHeard).toBeDefined();
    expect(Math.abs(leadHeard! - 1000)).toBeLessThanOrEqual(20);

    // The call row: disposition, a duration, the agent.
    const db = await PGlite.create(join(product.dataDir, 'pglite'));
    try {
      const { rows } = await db.query<{
        disposition: string;
        seconds: number;
        email: string;
        status: string;
      }>(
        'select c.disposition, c.seconds, c.status, u.email from calls c join users u on u.id = c.user_id where c.id = $1',
        [call.id],
      );
      expect(rows).toEqual([
        expect.objectContaining({
          disposition: 'contacted',
          status: 'completed',
          email: 'agent1@example.com',
        }),
      ]);
      expect(rows[0]!.seconds).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
