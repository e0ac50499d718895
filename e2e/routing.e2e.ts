/**
 * Routing through the started product, as two agents see it: both logged in to the console in
 * Chromium (each with its own fake microphone tone); a lead is posted; it rings the longest idle
 * agent first; they click Ignore; the second agent's console rings 'Incoming Lead!', they accept
 * and hear the lead (the sandbox's 440 Hz).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  remoteDominantFrequency,
  toneWav,
} from './support/browser';
import { answerButton, logInToConsole } from './support/console';
import { startProduct, type Product } from './support/product';

const LEAD_HZ = 440;

let product: Product;
let browsers: Browser[] = [];
let http: APIRequestContext;

beforeAll(async () => {
  product = await startProduct();
  // One browser per agent: a fake microphone is per browser.
  browsers = await Promise.all([
    launchChromium(await toneWav(1000)),
    launchChromium(await toneWav(700)),
  ]);
  http = await request.newContext();
});

afterAll(async () => {
  await http?.dispose();
  await Promise.all(browsers.map((b) => b.close()));
  await product?.stop();
});

/** Opens the console in `browser`, logs `email` in and waits until its phone is registered. */
async function agentConsole(browser: Browser, email: string): Promise<Page> {
  const { context } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, product.url, email);
  return page;
}

const ringing = (page: Page) => page.getByText('Incoming Lead!');

it('agent1 ignores the lead: it rings agent2, who accepts and hears the lead', async () => {
  // Agent1 comes online first: the longest idle, rung first.
  const first = await agentConsole(browsers[0]!, 'agent1@example.com');
  const second = await agentConsole(browsers[1]!, 'agent2@example.com');

  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname: 'Jordan', lname: 'Miles', phone_number: '+15550100042' },
  });
  expect(posted.status()).toBe(201);
  const { call } = (await posted.json()) as { call: { id: number; status: string } };
  expect(call.status).toBe('ringing');

  await expect.poll(() => ringing(first).isVisible(), { timeout: 15_000 }).toBe(true);
  expect(await ringing(second).isVisible()).toBe(false);
  await first.getByRole('button', { name: /^Ignore/ }).click();
  await expect
    .poll(() => first.getByText('Waiting for lead...').isVisible(), { timeout: 10_000 })
    .toBe(true);

  // The next agent rings, takes it, and hears the lead.
  await expect.poll(() => ringing(second).isVisible(), { timeout: 15_000 }).toBe(true);
  await answerButton(second, 'Call').click();
  await expect
    .poll(
      async () => {
        const heard = await remoteDominantFrequency(second);
        return heard !== null && Math.abs(heard - LEAD_HZ) <= 20;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  // Agent1 was never connected: their console still waits, and hears nothing.
  expect(await first.getByText('Waiting for lead...').isVisible()).toBe(true);

  await second.getByRole('button', { name: /^Hang Up/ }).click();
  await expect
    .poll(() => second.getByText('Call Ended').isVisible(), { timeout: 10_000 })
    .toBe(true);
  // The server agrees: the call is in agent2's history, completed.
  await expect
    .poll(
      async () => {
        const again = await second.context().request.get(`${product.url}/api/v1/mycalls?limit=5`);
        return ((await again.json()) as { data: Array<{ id: number; status: string }> }).data.find(
          (r) => r.id === call.id,
        )?.status;
      },
      { timeout: 10_000 },
    )
    .toBe('completed');
});
