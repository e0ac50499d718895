/**
 * The on-call controls through the started product, heard end to end: agent1 (fake microphone
 * 1000 Hz) takes a posted lead (the sandbox's 440 Hz). Hold: the agent stops hearing the lead,
 * the lead hears the hold music and not the agent; Resume: both ways again. Keypad: 1, 2 and #
 * reach the virtual lead in that order. Screenshots of the on-call view and the keypad at 360 and
 * 1280 px, and no serious or critical axe-core violation on them.
 */
import { join } from 'node:path';
import { type Page, type WebSocketRoute } from 'playwright-core';
import { expect, it } from 'vitest';
import { holdMusicShare } from '@leadline/voice/testing';
import { captureRemoteAudio, loopbackOnlyContext } from './support/browser';
import { answerButton, logInToConsole, overflowingElements } from './support/console';
import { partyRecording, sandboxCallOf, seriousViolations } from './support/page-checks';
import { consoleWorld } from './support/console-world';
import { heardTones, remoteToneLevels, toneLevels } from './support/remote-tones';
import { letAudioFlow } from './support/softphone-page';

const LEAD_HZ = 440;
const AGENT_HZ = 1000;
const PROBES = [LEAD_HZ, AGENT_HZ] as const;

const world = consoleWorld(AGENT_HZ);

/** What the agent's page hears now: the probed tones heard over 1.5 s. */
const agentHears = async (page: Page) => heardTones(await remoteToneLevels(page, PROBES));

/** Waits until what the agent hears is `expected` (tones, lowest first). */
async function untilAgentHears(page: Page, expected: number[]): Promise<void> {
  await expect.poll(() => agentHears(page), { timeout: 20_000, interval: 100 }).toEqual(expected);
}

/** Runs axe-core in the page; the serious and critical violations' ids. */

it('Hold: the lead hears music and not the agent, the agent hears nothing; Resume restores both; Keypad 1 2 # reach the lead', async () => {
  const { context, foreignRequests } = await loopbackOnlyContext(world.browser);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, world.product.url, 'agent1@example.com');
  // The sandbox lists the account's calls to its session.
  await context.request.get(`${world.product.url}/api/v1/user`);

  await world.postLead({ fname: 'Jordan', lname: 'Miles', phone: '+15550100042' });
  await expect
    .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(page, 'Call').click();
  await untilAgentHears(page, [LEAD_HZ]);

  const onCall = page.getByRole('region', { name: 'On call' });
  const hold = onCall.getByRole('button', { name: /^Hold/ });
  await expect.poll(() => hold.isVisible()).toBe(true);
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({
      path: join(world.product.dataDir, `on-call-${width}.png`),
      fullPage: true,
    });
    expect(await overflowingElements(page)).toEqual([]);
  }
  expect(await seriousViolations(page)).toEqual([]);

  // Let the lead hear the agent a while before the hold (the recording's window before it).
  await letAudioFlow(1_500);

  // Hold: the agent hears neither the lead nor the music.
  const heldAt = Date.now();
  await hold.click();
  await expect
    .poll(() => onCall.getByRole('button', { name: /^Resume/ }).isVisible(), { timeout: 10_000 })
    .toBe(true);
  await expect.poll(() => onCall.getByText('On hold').isVisible()).toBe(true);
  await untilAgentHears(page, []);
  const duringHold = await remoteToneLevels(page, [LEAD_HZ, 523, 659, 784]);
  expect(heardTones(duringHold)).toEqual([]);

  // Resume: the agent hears the lead again.
  const resumedAt = Date.now();
  await onCall.getByRole('button', { name: /^Resume/ }).click();
  await expect
    .poll(() => onCall.getByRole('button', { name: /^Hold/ }).isVisible(), { timeout: 10_000 })
    .toBe(true);
  await untilAgentHears(page, [LEAD_HZ]);

  // Keypad: 1, 2 and # in order, two by click and one from the keyboard.
  await onCall.getByRole('button', { name: /^Keypad/ }).click();
  const keypad = page.getByRole('region', { name: 'Keypad' });
  await keypad.getByRole('button', { name: '1', exact: true }).click();
  await keypad.getByRole('button', { name: '2', exact: true }).click();
  await page.keyboard.press('#');
  await expect.poll(() => keypad.getByRole('status').textContent()).toBe('12#');
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({
      path: join(world.product.dataDir, `keypad-${width}.png`),
      fullPage: true,
    });
    expect(await overflowingElements(page)).toEqual([]);
  }
  expect(await seriousViolations(page)).toEqual([]);
  const leadCall = () => sandboxCallOf(page, world.product.url, '+15550100042');
  await expect.poll(async () => (await leadCall())?.digits, { timeout: 10_000 }).toBe('12#');

  // Let the lead hear the agent a while after the resume, then hang up.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await expect.poll(() => page.getByText('Call Ended').isVisible(), { timeout: 10_000 }).toBe(true);
  const call = (await leadCall())!;
  expect(call.answeredAt).not.toBeNull();
  expect(foreignRequests).toEqual([]);
  await context.close();

  // The lead's recording (written when its call ends), cut at the hold and the resume.
  const wav = await partyRecording(world.product.dataDir, call);
  const answeredMs = Date.parse(call.answeredAt!);
  const cut = (fromMs: number, toMs: number) => ({
    sampleRateHz: wav.sampleRateHz,
    samples: wav.samples.subarray(
      Math.max(0, Math.round(((fromMs - answeredMs) / 1000) * wav.sampleRateHz)),
      Math.round(((toMs - answeredMs) / 1000) * wav.sampleRateHz),
    ),
  });
  // Margins of a second around each click: the request, the room's change, the clocks.
  const held = cut(heldAt + 1000, resumedAt - 200);
  const before = cut(answeredMs + 500, heldAt - 200);
  const after = cut(resumedAt + 1500, resumedAt + 3000);
  expect(held.samples.length).toBeGreaterThan(wav.sampleRateHz);
  expect(holdMusicShare(held.samples, held.sampleRateHz)).toBeGreaterThan(0.8);
  expect(heardTones(toneLevels(held, PROBES))).toEqual([]);
  expect(heardTones(toneLevels(before, PROBES))).toEqual([AGENT_HZ]);
  expect(heardTones(toneLevels(after, PROBES))).toEqual([AGENT_HZ]);
  expect(holdMusicShare(after.samples, after.sampleRateHz)).toBe(0);
}, 120_000);

it("the signalling socket cut on a call: 'Reconnecting…' shows until the call is back, by itself, and the call goes on; a keypad digit meanwhile is refused and said so", async () => {
  const { context, foreignRequests } = await loopbackOnlyContext(world.browser);
  const page = await context.newPage();
  // The page's signalling sockets pass through here, so the test can cut them and, for a while,
  // refuse new ones (the SDK retries with back-off).
  const open: WebSocketRoute[] = [];
  let refusing = false;
  await page.routeWebSocket(/\/signal/, (ws) => {
    if (refusing) {
      void ws.close({ code: 1011, reason: 'cut by the test' });
      return;
    }
    ws.connectToServer();
    open.push(ws);
  });
  await captureRemoteAudio(page);
  await logInToConsole(page, world.product.url, 'agent2@example.com');
  await world.postLead({ fname: 'Casey', lname: 'Ng', phone: '+15550100043' });
  await expect
    .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(page, 'Call').click();
  await untilAgentHears(page, [LEAD_HZ]);
  const onCall = page.getByRole('region', { name: 'On call' });
  const banner = onCall.getByRole('status').filter({ hasText: 'Reconnecting' });
  expect(await banner.count()).toBe(0);
  await onCall.getByRole('button', { name: /^Keypad/ }).click();
  const keypad = page.getByRole('region', { name: 'Keypad' });
  const sent = keypad.getByRole('status', { name: 'Digits sent' });
  await keypad.getByRole('button', { name: '1', exact: true }).click();
  await expect.poll(() => sent.textContent()).toBe('1');

  refusing = true;
  for (const ws of open.splice(0)) await ws.close({ code: 1006, reason: 'cut by the test' });
  await expect.poll(() => banner.isVisible(), { timeout: 10_000 }).toBe(true);
  await expect
    .poll(() => banner.textContent(), { timeout: 10_000 })
    .toMatch(/Reconnecting… [2-9] s/);
  // Spec section 8: a digit while the signalling is down is not sent; the softphone says why.
  await keypad.getByRole('button', { name: '2', exact: true }).click();
  const refused = keypad.getByRole('alert');
  await expect
    .poll(() => refused.textContent(), { timeout: 5_000 })
    .toBe('Could not send DTMF: Signaling channel is disconnected');
  expect(await sent.textContent()).toBe('1');
  expect(await banner.isVisible()).toBe(true);
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: join(world.product.dataDir, `reconnecting-${width}.png`) });
    expect(await overflowingElements(page)).toEqual([]);
  }
  expect(await seriousViolations(page)).toEqual([]);
  refusing = false;
  // Back by itself: the agent does nothing; the banner goes and the lead is heard again.
  await expect.poll(() => banner.count(), { timeout: 30_000 }).toBe(0);
  await untilAgentHears(page, [LEAD_HZ]);
  expect(open.length).toBeGreaterThan(0);
  // Digits go out again; the lead got 1 and 3, never the refused 2.
  await keypad.getByRole('button', { name: '3', exact: true }).click();
  await expect.poll(() => sent.textContent()).toBe('13');
  expect(await refused.count()).toBe(0);
  await context.request.get(`${world.product.url}/api/v1/user`);
  await expect
    .poll(async () => (await sandboxCallOf(page, world.product.url, '+15550100043'))?.digits, {
      timeout: 10_000,
    })
    .toBe('13');
  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await expect.poll(() => page.getByText('Call Ended').isVisible(), { timeout: 10_000 }).toBe(true);
  expect(foreignRequests).toEqual([]);
  await context.close();
}, 120_000);
