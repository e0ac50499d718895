/**
 * A live call survives what the network does to it: the signalling socket cut mid-call (the
 * SDK reconnects it and re-attaches the call with its reconnect token), and the media blocked
 * for 3 s (the SDK restarts ICE until audio flows again). The browser's mic is a 1000 Hz tone;
 * the lead (+15550100042) plays 440 Hz and records what it hears.
 *
 * How long each recovery took is printed (never asserted); the tests assert the outcome: the
 * call stays open and audio flows both ways afterwards.
 */
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
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
  ringAndAccept,
  waitForCallEvent,
  type LeadCall,
} from '../support/softphone-page';

const MIC_HZ = 1000;
const LEAD_HZ = 440;
/** Bounded waits for a recovery (the SDK's own targets are 2 s and a few seconds). */
const RECOVERY_WAIT_MS = 10_000;

const world = softphoneWorld(MIC_HZ);

const softphone = (identity: string): Promise<Page> => world.softphone(identity);

/** The call is open, the browser hears the lead and the lead hears the mic after `from`. */
async function expectAudioBothWaysAfter(page: Page, call: LeadCall, from: number): Promise<void> {
  expect(await callStatus(page)).toBe('open');
  const heard = await browserHears(page, LEAD_HZ);
  expect(heard, `the browser hears ${heard} Hz`).not.toBeNull();
  expect(Math.abs(heard! - LEAD_HZ)).toBeLessThanOrEqual(20);
  const listenedFrom = Date.now();
  await letAudioFlow(1_500);
  const end = Date.now();
  expect(await callStatus(page)).toBe('open');
  const recording = await hangUpAndRecord(world.harness, call);
  const after = heardBetween(recording, Math.max(from, listenedFrom), end);
  expect(after.length).toBeGreaterThan(recording.sampleRateHz);
  expect(hasClearTone(after, MIC_HZ, recording.sampleRateHz)).toBe(true);
}

for (const direction of ['outgoing', 'incoming'] as const) {
  it(`a cut signalling socket reconnects and the ${direction} call stays up with audio`, async () => {
    const identity = `agent-sig-${direction}`;
    const page = await softphone(identity);
    const call =
      direction === 'outgoing'
        ? await callLead(page, world.harness, identity)
        : await ringAndAccept(page, world.harness, identity, 'CAsig1');
    await letAudioFlow(1_000);
    const since = world.harness.events.length;

    const cutAt = Date.now();
    expect(world.harness.dropSignalling()).toBeGreaterThanOrEqual(1);
    const reconnecting = await waitForCallEvent(page, 'reconnecting', RECOVERY_WAIT_MS);
    const reconnected = await waitForCallEvent(page, 'reconnected', RECOVERY_WAIT_MS);
    const online = await world.harness.waitFor(
      'device.online',
      (e) => e.identity === identity,
      RECOVERY_WAIT_MS,
      since,
    );
    console.log(
      `signalling cut (${direction} call): reconnecting after ${reconnecting.at - cutAt} ms, ` +
        `device online again after ${online.at - cutAt} ms, call reconnected after ` +
        `${reconnected.at - cutAt} ms (${reconnecting.detail})`,
    );
    expect(reconnected.at).toBeGreaterThanOrEqual(reconnecting.at);
    expect(
      world.harness.events
        .slice(since)
        .filter((e) => e.type === 'agent.left' || e.type === 'phone.left'),
    ).toEqual([]);
    await expectAudioBothWaysAfter(page, call, reconnected.at);
    // The engine hung up: the page hears of it a moment later.
    await waitForCallEvent(page, 'disconnect', RECOVERY_WAIT_MS);
    const events = (await callLog(page)).map((e) => e.event);
    expect(events.filter((e) => e === 'disconnect' || e === 'error')).toEqual(['disconnect']);
    expect(events.indexOf('disconnect')).toBe(events.length - 1);
    await page.close();
  });
}

// 3 s as the issue asks; 6 s outlasts the ICE restarts' answers, and the call must not say
// `reconnected` before audio is actually back (it did, and then flapped).
it.each([3_000, 6_000])(
  'media blocked for %i ms: reconnecting, then reconnected, and audio flows again',
  async (blockMs) => {
    const identity = `agent-media-${blockMs}`;
    const page = await softphone(identity);
    const call = await callLead(page, world.harness, identity);
    await letAudioFlow(1_000);

    const blockedAt = Date.now();
    expect(world.harness.engine.interruptMedia(call.callSid, identity, blockMs)).toBe(true);
    const reconnecting = await waitForCallEvent(page, 'reconnecting', RECOVERY_WAIT_MS);
    const reconnected = await waitForCallEvent(page, 'reconnected', RECOVERY_WAIT_MS + blockMs);
    console.log(
      `media blocked ${blockMs} ms: reconnecting after ${reconnecting.at - blockedAt} ms ` +
        `(${reconnecting.detail}), reconnected after ${reconnected.at - blockedAt} ms`,
    );
    expect(reconnected.at).toBeGreaterThan(reconnecting.at);
    await expectAudioBothWaysAfter(page, call, reconnected.at);
    // The engine hung up: the page hears of it a moment later.
    await waitForCallEvent(page, 'disconnect', RECOVERY_WAIT_MS);
    const events = (await callLog(page)).map((e) => e.event);
    expect(events.filter((e) => e === 'reconnecting' || e === 'reconnected')).toEqual([
      'reconnecting',
      'reconnected',
    ]);
    expect(events.filter((e) => e === 'disconnect' || e === 'error')).toEqual(['disconnect']);
    await page.close();
  },
);
