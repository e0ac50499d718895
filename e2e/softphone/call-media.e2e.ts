/**
 * The SDK's calls in Chromium against the embedded engine: an outgoing call with audio both
 * ways, mute as the far end hears it, and DTMF as the engine receives it. The browser's mic is
 * a 1000 Hz tone; the lead (+15550100042) plays 440 Hz and records what it hears.
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { rmsDbfs } from '@leadline/voice/dsp';
import {
  softphoneWorld,
  browserHears,
  callLead,
  callLog,
  callStatus,
  hangUpAndRecord,
  hasClearTone,
  heardBetween,
  letAudioFlow,
  placeCall,
  toneLevelDbfs,
  waitForCallEvent,
  type SoftphonePageWindow,
} from '../support/softphone-page';
import type { EngineHarness } from '../support/engine-harness';

const MIC_HZ = 1000;
const LEAD_HZ = 440;
/** Below this the lead hears no mic tone (a live tone is about -30 dBFS or louder). */
const SILENT_DBFS = -50;

/** How long after a mute switch the lead's audio is judged (the media path's delay, busy machine). */
const SWITCH_MARGIN_MS = 1_000;

const world = softphoneWorld(MIC_HZ);

const softphone = (identity: string): Promise<Page> => world.softphone(identity);

it('outgoing: connect rings, opens, and audio flows both ways', async () => {
  const page = await softphone('agent-out');
  const since = world.harness.events.length;
  await placeCall(page, { To: '+15550100042' });
  const placed = await world.harness.waitFor(
    'outgoing.placed',
    (e) => e.identity === 'agent-out' && e.to === '+15550100042',
    15_000,
    since,
  );
  await world.harness.waitFor('phone.ringing', (e) => e.callSid === placed.callSid, 15_000, since);
  const ringing = await waitForCallEvent(page, 'ringing', 15_000);
  const answered = await world.harness.waitFor(
    'phone.answered',
    (e) => e.callSid === placed.callSid,
    15_000,
    since,
  );
  const accepted = await waitForCallEvent(page, 'accept', 15_000);
  expect(ringing.at).toBeLessThanOrEqual(accepted.at);
  expect(await callStatus(page)).toBe('open');
  expect(
    await page.evaluate(() => (window as unknown as SoftphonePageWindow).call?.parameters.CallSid),
  ).toBe(placed.callSid);

  // The browser hears the lead; the lead hears the browser's microphone.
  const heard = await browserHears(page, LEAD_HZ);
  expect(heard).not.toBeNull();
  expect(Math.abs(heard! - LEAD_HZ)).toBeLessThanOrEqual(20);
  const openAt = Date.now();
  await letAudioFlow(1_500);
  const recording = await hangUpAndRecord(world.harness, {
    callSid: placed.callSid,
    answeredAt: answered.at,
  });
  const sinceOpen = heardBetween(recording, openAt, Date.now());
  expect(sinceOpen.length).toBeGreaterThan(recording.sampleRateHz);
  expect(hasClearTone(sinceOpen, MIC_HZ, recording.sampleRateHz)).toBe(true);
  await waitForCallEvent(page, 'disconnect');
  expect(await callStatus(page)).toBe('closed');
  await page.close();
});

it('mute: the lead stops hearing the microphone while muted and hears it again after', async () => {
  const page = await softphone('agent-mute');
  const call = await callLead(page, world.harness, 'agent-mute');
  const setMuted = (muted: boolean) =>
    page.evaluate((muted) => {
      const c = (window as unknown as SoftphonePageWindow).call!;
      c.mute(muted);
      return c.isMuted();
    }, muted);

  await letAudioFlow(1_500);
  const muteAsked = Date.now();
  expect(await setMuted(true)).toBe(true);
  const muted = Date.now();
  await letAudioFlow(SWITCH_MARGIN_MS + 1_500);
  const unmuteAsked = Date.now();
  expect(await setMuted(false)).toBe(false);
  const unmuted = Date.now();
  await letAudioFlow(SWITCH_MARGIN_MS + 1_500);
  const end = Date.now();
  const recording = await hangUpAndRecord(world.harness, call);

  // Each phase is judged on its second half: a switch takes the media path's delay to reach the
  // lead, which on a busy machine can be several hundred ms.
  const rate = recording.sampleRateHz;
  const before = heardBetween(recording, call.answeredAt + 300, muteAsked);
  const during = heardBetween(recording, muted + SWITCH_MARGIN_MS, unmuteAsked);
  const after = heardBetween(recording, unmuted + SWITCH_MARGIN_MS, end);
  const levels = [before, during, after].map((part) => toneLevelDbfs(part, MIC_HZ, rate));
  console.log(
    `mute: ${MIC_HZ} Hz as the lead heard it before / muted / after: ${levels
      .map((dbfs) => `${dbfs.toFixed(1)} dBFS`)
      .join(' / ')}`,
  );
  expect(before.length).toBeGreaterThan(rate);
  expect(during.length).toBeGreaterThan(rate);
  expect(after.length).toBeGreaterThan(rate);
  expect(hasClearTone(before, MIC_HZ, rate)).toBe(true);
  expect(levels[1]).toBeLessThan(SILENT_DBFS);
  expect(rmsDbfs(during)).toBeLessThan(SILENT_DBFS);
  expect(hasClearTone(after, MIC_HZ, rate)).toBe(true);
  expect((await callLog(page)).filter((e) => e.event === 'mute').map((e) => e.detail)).toEqual([
    'true',
    'false',
  ]);
  await page.close();
});

it('DTMF: sendDigits reaches the engine as RFC 4733 events in order, at least 200 ms apart', async () => {
  const page = await softphone('agent-dtmf');
  const call = await callLead(page, world.harness, 'agent-dtmf');
  const since = world.harness.events.length;
  await page.evaluate(() => (window as unknown as SoftphonePageWindow).call!.sendDigits('123#'));
  await world.harness.waitFor(
    'phone.dtmf',
    (e) => e.callSid === call.callSid && e.digits === '#',
    15_000,
    since,
  );
  const presses = world.harness.events
    .slice(since)
    .filter(
      (e): e is Extract<EngineHarness['events'][number], { type: 'dtmf' }> =>
        e.type === 'dtmf' && e.callSid === call.callSid,
    );
  expect(presses.map((p) => p.digits).join('')).toBe('123#');
  // The lead received them too, in order.
  const received = world.harness.events
    .slice(since)
    .filter((e) => e.type === 'phone.dtmf' && e.callSid === call.callSid)
    .map((e) => (e.type === 'phone.dtmf' ? e.digits : ''));
  expect(received.join('')).toBe('123#');

  // Gaps on the sender's RTP clock (8 kHz): from the end of one tone to the start of the next.
  const tones = presses.map((p) => p.tone!);
  const gapsMs = tones.slice(1).map((tone, i) => {
    const previous = tones[i]!;
    const startsApartMs = ((tone.rtpTimestamp - previous.rtpTimestamp) >>> 0) / 8;
    return startsApartMs - previous.durationMs;
  });
  console.log(
    `DTMF: tones ${tones.map((t) => `${t.durationMs} ms`).join(', ')}; gaps ${gapsMs
      .map((g) => `${g} ms`)
      .join(', ')}`,
  );
  expect(tones.every((t) => t.durationMs >= 150)).toBe(true);
  expect(gapsMs).toHaveLength(3);
  for (const gap of gapsMs) expect(gap).toBeGreaterThanOrEqual(200);
  expect(await callStatus(page)).toBe('open');
  await hangUpAndRecord(world.harness, call);
  await page.close();
});
