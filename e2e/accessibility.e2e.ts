/**
 * Every view of the console (spec sections 2–4), held still and looked at: one agent (the demo
 * supervisor, who has every permission: app-sms, app-retry, app-autoaccept, listen, whisper,
 * barge) goes through loading, login (and its error), the phone starting and offline, waiting
 * (and Check for lead's answer), the profile menu, the New Call (with the country list open),
 * History, Settings and Conference panels, a ringing lead, the call with each of its panels
 * (Keypad, Transfer to a user and to a team, Conference, Audio), Call Result, Send SMS, Thank you,
 * Add Note, Tags & Stages, an inbound caller with Add Lead, dialing, and History with calls. Each
 * view: screenshots at 360 and 1280 px with nothing past the screen's edge, no serious or
 * critical axe-core violation at either width, and the view audit (support/view-audit.ts) has
 * checked it too.
 */
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import {
  answerButton,
  DEMO_PASSWORD,
  doneAndReady,
  logInToConsole,
  recordResultAndFinish,
} from './support/console';
import { startProduct, type Product } from './support/product';
import { checkViewAtBothWidths } from './support/view-audit';

const AGENT = 'supervisor@example.com';

let product: Product;
let browser: Browser;
let http: APIRequestContext;
let page: Page;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(1000));
  http = await request.newContext();
});

afterAll(async () => {
  await page?.context().close();
  await http?.dispose();
  await browser?.close();
  await product?.stop();
});

const looksRight = (name: string) => checkViewAtBothWidths(page, product.dataDir, name);

async function shows(text: string | RegExp, timeout = 15_000): Promise<void> {
  await expect.poll(() => page.getByText(text).first().isVisible(), { timeout }).toBe(true);
}

const button = (name: string) => page.getByRole('button', { name: new RegExp(`^${name}`) });
const navButton = (name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('button', { name, exact: true });
const region = (name: string) => page.getByRole('region', { name, exact: true });

async function untilVisible(locator: ReturnType<Page['locator']>, timeout = 15_000) {
  await expect.poll(() => locator.isVisible(), { timeout }).toBe(true);
}

async function postLead(phone: string, fname: string): Promise<void> {
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname, lname: 'Lead', phone_number: phone, company: 'Example Co' },
  });
  expect(posted.status()).toBe(201);
}

/**
 * Holds the page's requests to `path` (any query) until the returned function is called, so a
 * passing view (loading, the phone starting) stays to be looked at.
 */
async function hold(on: Page, path: string): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const matches = (url: URL) => url.pathname === path;
  await on.route(matches, async (route) => {
    await released;
    await route.fallback();
  });
  // Left in place once released (it then lets requests through): unrouting a handler that is
  // under way would hand its request on twice.
  return release;
}

/** Opens an on-call panel with its toggle, looks at it when `ready`, and closes it again. */
async function onCallPanel(toggle: string, name: string, ready: () => Promise<void>) {
  const onCall = region('On call').getByRole('button', { name: toggle, exact: true });
  await onCall.click();
  await ready();
  await looksRight(name);
  await onCall.click();
}

it('loading, login and its error, the phone starting and offline', async () => {
  const { context } = await loopbackOnlyContext(browser);
  page = await context.newPage();
  const releaseUser = await hold(page, '/api/v1/user');
  await page.goto(product.url);
  await shows('Loading…');
  await looksRight('loading');
  releaseUser();
  await untilVisible(page.getByRole('heading', { name: 'Log in' }));
  await looksRight('login');
  await page.getByLabel('Email').fill(AGENT);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Login' }).click();
  await shows('Your login credentials are invalid.');
  await looksRight('login-error');

  const releaseToken = await hold(page, '/api/v1/twilio/token2');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await shows('Waiting for lead...', 20_000);
  await shows(/^(Phone is starting…|Connecting phone…)$/);
  await looksRight('phone-starting');
  releaseToken();
  await shows('Phone ready', 20_000);
  await context.setOffline(true);
  await shows('Phone offline: reconnecting…');
  await looksRight('phone-offline');
  await context.setOffline(false);
  await shows('Phone ready', 30_000);
  await context.close();
});

it('waiting, Check for lead, the profile menu, and the New Call, History, Settings and Conference panels', async () => {
  const { context } = await loopbackOnlyContext(browser);
  page = await context.newPage();
  await logInToConsole(page, product.url, AGENT);
  await shows('Phone ready');
  // The agent's own status follows the phone's registration, whenever the realtime channel
  // joins (before or after it): never left at the 'Offline' of the first user fetch.
  await untilVisible(page.getByRole('button', { name: 'Status: Available' }));
  await looksRight('waiting');

  await button('Check for lead').click();
  await shows('No leads waiting.');
  await looksRight('waiting-checked');

  await page.getByRole('banner').getByRole('button', { expanded: false }).click();
  await untilVisible(page.getByRole('button', { name: 'Log out', exact: true }));
  await looksRight('profile-menu');
  await page.keyboard.press('Escape');

  await navButton('Call').click();
  await untilVisible(page.getByRole('heading', { name: 'New Call' }));
  await untilVisible(page.getByRole('combobox', { name: 'Caller ID' }));
  await looksRight('new-call');
  await page.getByRole('combobox', { name: 'Country' }).click();
  await untilVisible(page.getByRole('listbox'));
  await looksRight('new-call-countries');
  await page.keyboard.press('Escape');
  await region('New Call').getByRole('button', { name: 'Close' }).click();

  await navButton('History').click();
  await shows("You don't have any calls!");
  await looksRight('history-empty');
  await region('Call History').getByRole('button', { name: 'Close' }).click();

  await navButton('Settings').click();
  const microphone = region('Settings').getByRole('combobox', { name: 'Microphone' });
  await expect
    .poll(() => microphone.locator('option').allTextContents(), { timeout: 15_000 })
    .toEqual(expect.arrayContaining(['Fake Audio Input 1']));
  await looksRight('settings');
  await region('Settings').getByRole('button', { name: 'Close' }).click();

  await navButton('Conference').click();
  await untilVisible(region('Conference').getByRole('list', { name: 'Agents' }));
  await looksRight('conference');
  await navButton('Conference').click();
  await untilVisible(page.getByText('Waiting for lead...'));
});

it('a lead: ringing, on the call with each panel, Call Result, Send SMS, Thank you, Add Note', async () => {
  await postLead('+15550100051', 'Robin');
  await shows('Incoming Lead!');
  await looksRight('ringing');
  await answerButton(page, 'Call').click();
  await untilVisible(page.getByRole('timer'));
  await looksRight('on-call');

  await onCallPanel('Keypad', 'on-call-keypad', () => untilVisible(region('Keypad')));
  await onCallPanel('Transfer', 'on-call-transfer', async () => {
    await untilVisible(region('Transfer').getByRole('list', { name: 'Agents' }));
    await looksRight('on-call-transfer-users');
    await region('Transfer').getByRole('button', { name: 'Team', exact: true }).click();
    await untilVisible(region('Transfer').getByRole('list', { name: 'Teams' }));
  });
  await onCallPanel('Conference', 'on-call-conference', () =>
    untilVisible(region('Conference').getByRole('list', { name: 'Agents' })),
  );
  await onCallPanel('Audio', 'on-call-audio', () => untilVisible(region('Audio devices')));

  await button('Hang Up').click();
  await untilVisible(page.getByRole('heading', { name: 'Call Result' }));
  await looksRight('call-result');
  await button('Voicemail').click();
  await untilVisible(page.getByLabel('Message to the lead'));
  await looksRight('sms');
  await button('Cancel').click();
  await untilVisible(page.getByRole('heading', { name: 'Thank you!' }));
  await looksRight('thank-you');
  await button('Add Note').click();
  await untilVisible(page.getByLabel('Note', { exact: true }));
  await looksRight('note');
  await page.getByLabel('Note', { exact: true }).fill('Left a voicemail.');
  await button('Save').click();
  await shows('Waiting for lead...');
});

it('Contacted on a profile with tags: Tags & Stages', async () => {
  await postLead('+15550100052', 'Kim');
  await shows('Incoming Lead!');
  await answerButton(page, 'Call').click();
  await untilVisible(page.getByRole('timer'));
  await button('Hang Up').click();
  await button('Contacted').click();
  await untilVisible(page.getByRole('heading', { name: 'Tags & Stages' }));
  await looksRight('tags');
  await button('Hot lead').click();
  await untilVisible(page.getByRole('heading', { name: 'Thank you!' }));
  await doneAndReady(page);
});

it('an inbound caller: its ringing banner, and Add Lead on the call', async () => {
  const inbound = await http.post(`${product.url}/api/v1/sandbox/inbound`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { from: '+15550100777', to: '+15550142000' },
  });
  expect(inbound.ok()).toBe(true);
  await shows('Acme Solar main line');
  await looksRight('ringing-inbound');
  await answerButton(page, 'Accept').click();
  await button('Add Lead').click();
  await untilVisible(region('Add Lead'));
  await looksRight('on-call-add-lead');
  await button('Hang Up').click();
  // An inbound call goes to Thank you and back to waiting by itself.
  await shows('Waiting for lead...');
});

it('dialing a number that does not answer', async () => {
  await navButton('Call').click();
  await page.getByRole('textbox', { name: 'First Name' }).fill('Noel');
  await page.getByRole('textbox', { name: 'Phone Number' }).pressSequentially('+1 555 019 9002');
  await button('Call Now').click();
  await untilVisible(region('Dialing'));
  await looksRight('dialing');
  await region('Dialing')
    .getByRole('button', { name: /^Hang Up/ })
    .click();
  await untilVisible(page.getByRole('heading', { name: 'Call Result' }));
  await recordResultAndFinish(page, 'Missed', 'Send SMS');
});

it('History with calls', async () => {
  await navButton('History').click();
  await untilVisible(region('Call History').getByRole('list', { name: 'Calls' }));
  await looksRight('history');
  await region('Call History').getByRole('button', { name: 'Close' }).click();
});
