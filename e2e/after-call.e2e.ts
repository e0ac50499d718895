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
import {
  answerButton,
  doneAndReady,
  logInToConsole,
  screenshotsAtBothWidths,
} from './support/console';
import { seriousViolations } from './support/page-checks';
import { startProduct, type Product } from './support/product';
import { letAudioFlow } from './support/softphone-page';
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
  // The softphone is registered (after an outage it registers again first).
  await untilVisible('Phone ready', 30_000);
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname, lname: 'Lead', phone_number: phone },
  });
  expect(posted.status()).toBe(201);
  await untilVisible('Incoming Lead!');
  await answerButton(page, 'Call').click();
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
  await doneAndReady(page);
  await expect
    .poll(async () => (await historyRowsOf(phone)).map((r) => [r.disposition, r.stage?.key]))
    .toEqual([['contacted', 'quote-sent']]);
});

it('Retry calls the same lead again: it rings the agent, who hears the lead', async () => {
  const phone = '+15550100063';
  await callAndHangUp(phone, 'Rita');
  await button('Retry').click();
  await untilVisible('Incoming Lead!');
  await answerButton(page, 'Call').click();
  await untilAgentHearsLead();
  // Two calls to the lead: the first and the retry.
  expect(await historyRowsOf(phone)).toHaveLength(2);
  await button('Hang Up').click();
  await button('Missed').click();
  // Missed with app-sms goes to the SMS step; Cancel goes on without sending.
  await untilVisible('Send SMS');
  await button('Cancel').click();
  await doneAndReady(page);
});

it("Check for lead says 'No leads waiting.' when none waits", async () => {
  await agentConsole();
  await button('Check for lead').click();
  await untilVisible('No leads waiting.');
  await lookedAt('after-call-check-for-lead');
});

it("the lead card links the lead's record in the agent's CRMs, each in a new tab", async () => {
  await agentConsole();
  await untilVisible('Phone ready', 30_000);
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: {
      fname: 'Ines',
      lname: 'Lead',
      phone_number: '+15550100066',
      company: 'Sunrise Roofing',
      category: 'Solar quote',
      source_id: '90210',
    },
  });
  expect(posted.status()).toBe(201);
  await untilVisible('Incoming Lead!');
  const card = page.getByRole('article', { name: 'Lead: Ines Lead' });
  const links = await card
    .getByRole('link')
    .evaluateAll((anchors) =>
      anchors.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target')]),
    );
  // agent1's HubSpot portal and Salesforce domain (seeded); no ActiveCampaign domain, no button.
  expect(links).toEqual([
    ['HubSpot', 'https://app.hubspot.com/contacts/2468013/contact/90210', '_blank'],
    ['Salesforce', 'https://acme-solar.my.salesforce.com/90210', '_blank'],
  ]);
  await lookedAt('lead-card-crm');
  await answerButton(page, 'Call').click();
  await untilAgentHearsLead();
  await button('Hang Up').click();
  await button('Remove').click();
  await doneAndReady(page);
});

/** The writes the page's outbox holds (IndexedDB), by label. */
async function outboxLabels(): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('leadline-outbox');
        open.onerror = () => reject(open.error ?? new Error('cannot open the outbox'));
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('entries').objectStore('entries').getAll();
          all.onsuccess = () => {
            resolve((all.result as { label: string }[]).map((entry) => entry.label));
            db.close();
          };
          all.onerror = () => reject(all.error ?? new Error('cannot read the outbox'));
        };
      }),
  );
}

/**
 * The scenario's outage (the acceptance: the network comes back after 10 s). Only time
 * passes: nothing is awaited but the clock, and every check after it waits for its condition.
 */
const OUTAGE_MS = 10_000;
const outage = () => letAudioFlow(OUTAGE_MS);

/** What the outbox keeps: the result, the note, and that the agent is ready for the next lead. */
const KEPT = ['Call Result', 'Note', 'Ready for the next lead'];

/** Offline right after Hang Up: Remove, then a note, both kept in the outbox. */
async function resultAndNoteWhileOffline(note: string): Promise<void> {
  await page.context().setOffline(true);
  await button('Remove').click();
  await untilVisible('Thank you!');
  await button('Add Note').click();
  await page.getByLabel('Note', { exact: true }).fill(note);
  await button('Save').click();
  // The agent is free for the next lead; the writes wait on this device.
  await untilVisible('Waiting for lead...');
  expect(await page.getByText(/^Saving/).isVisible()).toBe(true);
  expect(await outboxLabels()).toEqual(KEPT);
}

/** Exactly one result and one note reached the server for the call to `phone`. */
async function untilSavedOnce(phone: string, note: string): Promise<void> {
  await expect
    .poll(async () => (await historyRowsOf(phone)).map((r) => [r.disposition, r.notes]), {
      timeout: 30_000,
    })
    .toEqual([['removed', [expect.objectContaining({ content: note })]]]);
  await expect.poll(() => outboxLabels(), { timeout: 10_000 }).toEqual([]);
}

it('offline between Hang Up and Save: the result and the note are kept and saved once when the network is back', async () => {
  const phone = '+15550100064';
  await callAndHangUp(phone, 'Omar');
  await resultAndNoteWhileOffline('Wi-Fi blinked; call back tomorrow.');
  await outage();
  // Still kept, nothing sent.
  expect(await outboxLabels()).toEqual(KEPT);
  await page.context().setOffline(false);
  await untilSavedOnce(phone, 'Wi-Fi blinked; call back tomorrow.');
  await untilVisible('Saved');
});

it('the same with a reload while offline: the console opens from its shell and sends what was kept', async () => {
  // The shell's service worker is in control (it is what opens the console offline).
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), {
      timeout: 15_000,
    })
    .toBe(true);
  const phone = '+15550100065';
  await callAndHangUp(phone, 'Nia');
  await resultAndNoteWhileOffline('Reloaded during the outage.');
  await page.reload();
  await untilVisible('Cannot reach the server');
  expect(await outboxLabels()).toEqual(KEPT);
  await lookedAt('after-call-offline-reload');
  await outage();
  await page.context().setOffline(false);
  await untilVisible('Waiting for lead...', 30_000);
  await untilSavedOnce(phone, 'Reloaded during the outage.');
});
