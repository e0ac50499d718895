/**
 * After the call, through the started product (agent1 of the demo account, whose profile is
 * `is_deal_whispertext` and who has app-sms and app-retry): Voicemail → the Send SMS view holds
 * 'Sorry we couldn't reach you!' → Send → the sandbox outbox holds it; Contacted → Tags & Stages
 * → a tag → stored on the call (the history row shows it); Retry → the lead is called again and
 * rings the agent, who hears it; Check for lead → 'No leads waiting.'. Screenshots of each view
 * at 360 and 1280 px, with no serious or critical axe-core violation.
 */
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  toneWav,
} from './support/browser';
import { logInToConsole, screenshotsAtBothWidths } from './support/console';
import { seriousViolations } from './support/page-checks';
import { startProduct, type Product } from './support/product';
import { heardTones, remoteToneLevels } from './support/remote-tones';

const LEAD_HZ = 440;
const AGENT_HZ = 1000;
const SMS_TEXT = "Sorry we couldn't reach you!";

let product: Product;
let browser: Browser;
let http: APIRequestContext;
let page: Page;
let opened = false;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(AGENT_HZ));
  http = await request.newContext();
});

/** agent1's console, logged in by the first test that needs it (expect.poll needs a test). */
async function agentConsole(): Promise<void> {
  if (opened) return;
  opened = true;
  const { context } = await loopbackOnlyContext(browser);
  page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, product.url, 'agent1@example.com');
}

afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
});

const button = (name: string) => page.getByRole('button', { name: new RegExp(`^${name}`) });

async function untilVisible(text: string, timeout = 15_000): Promise<void> {
  await expect.poll(() => page.getByText(text).first().isVisible(), { timeout }).toBe(true);
}

/** Waits until the agent hears the lead's tone (and not silence). */
async function untilAgentHearsLead(): Promise<void> {
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [LEAD_HZ, AGENT_HZ])), {
      timeout: 20_000,
    })
    .toEqual([LEAD_HZ]);
}

/** Posts a lead, accepts it when it rings, waits until its tone is heard, and hangs up. */
async function callAndHangUp(phone: string, fname: string): Promise<void> {
  await agentConsole();
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname, lname: 'Lead', phone_number: phone },
  });
  expect(posted.status()).toBe(201);
  await untilVisible('Incoming Lead!');
  await button('Accept').click();
  await untilAgentHearsLead();
  await button('Hang Up').click();
  await untilVisible('Call Result');
}

async function lookedAt(name: string): Promise<void> {
  await screenshotsAtBothWidths(page, product.dataDir, name);
  expect(await seriousViolations(page)).toEqual([]);
}

interface HistoryRowSeen {
  id: number;
  disposition: string | null;
  stage: { key: string } | null;
  notes: { content: string }[];
  lead: { phone_number: string } | null;
}

async function historyRowsOf(phone: string): Promise<HistoryRowSeen[]> {
  const answer = await page.context().request.get(`${product.url}/api/v1/mycalls?limit=50&page=1`);
  const { data } = (await answer.json()) as { data: HistoryRowSeen[] };
  return data.filter((row) => row.lead?.phone_number === phone);
}

it('Voicemail → Send SMS with the default text → the sandbox outbox holds it', async () => {
  const phone = '+15550100061';
  await callAndHangUp(phone, 'Sasha');
  // Retry and SMS are there for this agent (app-retry, app-sms).
  expect(await button('Retry').isVisible()).toBe(true);
  expect(await button('SMS').isVisible()).toBe(true);
  await lookedAt('after-call-result');
  await button('Voicemail').click();
  const text = page.getByLabel('Message to the lead');
  await expect.poll(() => text.isVisible()).toBe(true);
  expect(await text.inputValue()).toBe(SMS_TEXT);
  await lookedAt('after-call-sms');
  await button('Send').click();
  await untilVisible('Thank you!');
  const outbox = await page.context().request.get(`${product.url}/api/v1/sandbox/sms`);
  const { data } = (await outbox.json()) as {
    data: { to: string; body: string; status: string }[];
  };
  expect(data.filter((m) => m.to === phone)).toEqual([
    expect.objectContaining({ to: phone, body: SMS_TEXT, status: 'sent' }),
  ]);
  await lookedAt('after-call-thankyou');
  await button('Add Note').click();
  await page.getByLabel('Note', { exact: true }).fill('Left a voicemail, texted.');
  await lookedAt('after-call-note');
  await button('Save').click();
  await untilVisible('Waiting for lead...');
  await expect
    .poll(async () => (await historyRowsOf(phone)).map((r) => [r.disposition, r.notes.length]))
    .toEqual([['voicemail', 1]]);
});

it('Contacted on a whispertext profile → Tags & Stages → a tag → stored on the call', async () => {
  const phone = '+15550100062';
  await callAndHangUp(phone, 'Tomas');
  await button('Contacted').click();
  await untilVisible('Tags & Stages');
  // One coloured button per tag of the profile, and Skip.
  for (const name of ['Hot lead', 'Quote sent', 'Follow up', 'Not interested']) {
    expect(await button(name).isVisible(), name).toBe(true);
  }
  expect(await button('Skip').isVisible()).toBe(true);
  const colours = await button('Quote sent').evaluate((el) => {
    const style = getComputedStyle(el);
    return [style.backgroundColor, style.color];
  });
  expect(colours).toEqual(['rgb(242, 153, 0)', 'rgb(17, 20, 24)']);
  await lookedAt('after-call-tags');
  await button('Quote sent').click();
  await untilVisible('Thank you!');
  await button('Done').click();
  await untilVisible('Waiting for lead...');
  await expect
    .poll(async () => (await historyRowsOf(phone)).map((r) => [r.disposition, r.stage?.key]))
    .toEqual([['contacted', 'quote-sent']]);
});

it('Retry calls the same lead again: it rings the agent, who hears the lead', async () => {
  const phone = '+15550100063';
  await callAndHangUp(phone, 'Rita');
  await button('Retry').click();
  await untilVisible('Incoming Lead!');
  await button('Accept').click();
  await untilAgentHearsLead();
  // Two calls to the lead: the first and the retry.
  expect(await historyRowsOf(phone)).toHaveLength(2);
  await button('Hang Up').click();
  await button('Missed').click();
  // Missed with app-sms goes to the SMS step; Cancel goes on without sending.
  await untilVisible('Send SMS');
  await button('Cancel').click();
  await button('Done').click();
  await untilVisible('Waiting for lead...');
});

it("Check for lead says 'No leads waiting.' when none waits", async () => {
  await agentConsole();
  await button('Check for lead').click();
  await untilVisible('No leads waiting.');
  await lookedAt('after-call-check-for-lead');
});
