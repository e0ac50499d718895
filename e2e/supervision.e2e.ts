/**
 * Supervision and conference through the started product, heard by each party. Three browsers
 * with their own fake microphones: agent1 1000 Hz, agent2 700 Hz, the supervisor 1500 Hz; the
 * sandbox's test leads play 440 Hz. Listen → whisper → barge on one call: what the agent and the
 * supervisor hear is measured in their pages, what the lead hears in its recording cut at each
 * change. Conference: agent1 adds agent2 from the on-call controls; agent2 rings 'Incoming
 * Conference!'; all three hear each other; agent1 leaves and agent2 and the lead still do.
 * Screenshots of the Conference panel as a supervisor and as an agent at 360 and 1280 px.
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
  logInToConsole,
  recordResultAndFinish,
  screenshotsAtBothWidths,
} from './support/console';
import { leadHearing } from './support/page-checks';
import { startProduct, type Product } from './support/product';
import { heardTones, remoteToneLevels } from './support/remote-tones';

const LEAD = 440;
const AGENT1 = 1000;
const AGENT2 = 700;
const SUPERVISOR = 1500;
const PROBES = [LEAD, AGENT2, AGENT1, SUPERVISOR];

let product: Product;
let browsers: Record<'agent1' | 'agent2' | 'supervisor', Browser>;
let http: APIRequestContext;

beforeAll(async () => {
  product = await startProduct();
  const [agent1, agent2, supervisor] = await Promise.all(
    [AGENT1, AGENT2, SUPERVISOR].map(async (hz) => launchChromium(await toneWav(hz))),
  );
  browsers = { agent1: agent1!, agent2: agent2!, supervisor: supervisor! };
  http = await request.newContext();
});

afterAll(async () => {
  await http?.dispose();
  await Promise.all(Object.values(browsers ?? {}).map((b) => b.close()));
  await product?.stop();
});

async function consoleOf(who: keyof typeof browsers): Promise<Page> {
  const { context } = await loopbackOnlyContext(browsers[who]);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, product.url, `${who}@example.com`);
  return page;
}

const hears = async (page: Page) => heardTones(await remoteToneLevels(page, PROBES));

async function untilHears(page: Page, expected: number[], timeout = 20_000): Promise<void> {
  await expect.poll(() => hears(page), { timeout, interval: 100 }).toEqual(expected);
}

async function shows(page: Page, text: string | RegExp, timeout = 15_000): Promise<void> {
  await expect.poll(() => page.getByText(text).first().isVisible(), { timeout }).toBe(true);
}

async function postLead(phone: string): Promise<void> {
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname: 'Jordan', lname: 'Miles', phone_number: phone },
  });
  expect(posted.status()).toBe(201);
}

/** The lead's recording once its call ended, and how to cut it by wall-clock time. */
const leadRecording = (page: Page, phone: string) => leadHearing(page, product, phone, PROBES);

it('a supervisor listens, then whispers, then barges on one call, each heard as the role says; leaving disturbs nobody', async () => {
  const phone = '+15550100071';
  const agent = await consoleOf('agent1');
  await postLead(phone);
  await shows(agent, 'Incoming Lead!');
  await answerButton(agent, 'Call').click();
  await untilHears(agent, [LEAD]);

  // The supervisor comes online after the lead was taken (they are in agent1's team).
  const supervisor = await consoleOf('supervisor');
  await supervisor
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Conference' })
    .click();
  const panel = supervisor.getByRole('region', { name: 'Conference' });
  const listen = panel.getByRole('button', { name: 'Listen to Alex Rivera' });
  await expect.poll(() => listen.isVisible(), { timeout: 15_000 }).toBe(true);
  await screenshotsAtBothWidths(supervisor, product.dataDir, 'conference-supervisor');
  await listen.click();

  // Listen: auto-answered; the supervisor hears agent and lead, nobody hears the supervisor.
  await shows(supervisor, "Listening to Alex Rivera's call");
  const onCall = supervisor.getByRole('region', { name: 'On call' });
  await untilHears(supervisor, [LEAD, AGENT1]);
  const listenFrom = Date.now();
  await untilHears(agent, [LEAD]);
  expect(await hears(agent)).toEqual([LEAD]);
  const listenTo = Date.now();
  expect(await onCall.getByRole('button', { name: /^Mute/ }).isDisabled()).toBe(true);

  // Whisper: the agent hears the supervisor, the lead does not.
  await onCall.getByRole('button', { name: 'Whisper', exact: true }).click();
  await shows(supervisor, 'Whispering to Alex Rivera');
  await untilHears(agent, [LEAD, SUPERVISOR]);
  const whisperFrom = Date.now();
  expect(await hears(supervisor)).toEqual([LEAD, AGENT1]);
  const whisperTo = Date.now();

  // Barge: everyone hears everyone.
  await onCall.getByRole('button', { name: 'Barge', exact: true }).click();
  await shows(supervisor, "Barged into Alex Rivera's call");
  await untilHears(agent, [LEAD, SUPERVISOR]);
  const bargeFrom = Date.now();
  await untilHears(supervisor, [LEAD, AGENT1]);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const bargeTo = Date.now();

  // The supervisor leaves: the agent and the lead go on.
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await untilHears(agent, [LEAD]);
  const aloneFrom = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const aloneTo = Date.now();
  expect(await agent.getByRole('region', { name: 'On call' }).isVisible()).toBe(true);
  await agent.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(agent, 'Call Ended');

  const leadHeard = await leadRecording(agent, phone);
  // Margins for the clocks and the room's change after each click.
  expect(leadHeard(listenFrom + 300, listenTo)).toEqual([AGENT1]);
  expect(leadHeard(whisperFrom + 300, whisperTo)).toEqual([AGENT1]);
  expect(leadHeard(bargeFrom + 500, bargeTo)).toEqual([AGENT1, SUPERVISOR]);
  expect(leadHeard(aloneFrom + 500, aloneTo)).toEqual([AGENT1]);
  await recordResultAndFinish(agent, 'Contacted', 'Tags & Stages');
  await agent.context().close();
  await supervisor.context().close();
}, 180_000);

it("conference: agent1 adds agent2, who rings 'Incoming Conference!'; all three hear each other; agent1 leaves and agent2 and the lead go on", async () => {
  const phone = '+15550100072';
  const first = await consoleOf('agent1');
  await postLead(phone);
  await shows(first, 'Incoming Lead!');
  await answerButton(first, 'Call').click();
  await untilHears(first, [LEAD]);
  const second = await consoleOf('agent2');

  const onCall = first.getByRole('region', { name: 'On call' });
  await onCall.getByRole('button', { name: /^Conference/ }).click();
  const panel = first.getByRole('region', { name: 'Conference' });
  const add = panel.getByRole('button', { name: 'Add Blake Chen to the call' });
  await expect.poll(() => add.isEnabled(), { timeout: 15_000 }).toBe(true);
  await screenshotsAtBothWidths(first, product.dataDir, 'conference-agent');
  const status = onCall.locator('.call-status-text');
  expect(await status.textContent()).toBe('On call');
  await add.click();
  // Spec section 7: success closes the panel and labels the call Conference.
  await expect.poll(() => panel.count(), { timeout: 10_000 }).toBe(0);
  expect(await status.textContent()).toBe('Conference');

  await shows(second, 'Incoming Conference!');
  await screenshotsAtBothWidths(second, product.dataDir, 'ringing-conference');
  await answerButton(second, 'Call').click();
  await untilHears(second, [LEAD, AGENT1]);
  await untilHears(first, [LEAD, AGENT2]);
  const threeFrom = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const threeTo = Date.now();

  // Agent1 leaves: agent2 and the lead still hear each other.
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(first, 'Call Ended');
  await untilHears(second, [LEAD]);
  const twoFrom = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const twoTo = Date.now();
  await second.getByRole('button', { name: /^Hang Up/ }).click();
  await shows(second, 'Call Ended');

  const leadHeard = await leadRecording(second, phone);
  expect(leadHeard(threeFrom + 300, threeTo)).toEqual([AGENT2, AGENT1]);
  expect(leadHeard(twoFrom + 500, twoTo)).toEqual([AGENT2]);
  await first.context().close();
  await second.context().close();
}, 180_000);
