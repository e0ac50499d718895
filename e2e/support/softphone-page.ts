/**
 * Driving our SDK in a harness page (see `openSoftphone`) and listening to what each side of a
 * call hears: the browser's remote audio (WebAudio analysis in the page) and the virtual lead's
 * recording (a WAV the engine writes when the lead leaves).
 *
 * The call under test is `window.call`; everything it emits is logged in the page with the time
 * (`Date.now()`, the same clock as the test process), so specs can wait for events and line the
 * page's actions up with the lead's recording.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Call, CallEvents, Device } from '@leadline/softphone';
import { goertzelPower, readWavFile } from '@leadline/voice/dsp';
import { tonesIn } from '@leadline/voice/testing';
import { captureRemoteAudio, launchChromium, remoteDominantFrequency, toneWav } from './browser';
import {
  openSoftphone,
  startEngineHarness,
  type EngineHarness,
  type HarnessSdk,
} from './engine-harness';

/** One event of the call under test, as the page saw it. */
export interface CallLogEntry {
  event: keyof CallEvents;
  /** When it fired (ms since epoch). */
  at: number;
  /** Its arguments as text (errors by their message; other objects left out). */
  detail: string;
}

/** What the harness page holds. */
export interface SoftphonePageWindow {
  device: Device;
  /** Incoming calls, newest last (`openSoftphone`). */
  calls: Call[];
  /** The call under test. */
  call?: Call;
  /** Its events. */
  callLog: CallLogEntry[];
  /** Its `volume` events: [at, input, output]. */
  volumes: Array<[number, number, number]>;
  /** Makes `call` the call under test and logs its events. */
  watchCall(call: Call): void;
}

/**
 * Opens the harness page with a registered device of `sdk` (`openSoftphone`) and installs
 * `window.watchCall`, which logs a call's events (both SDKs emit the same call events).
 */
export async function openSoftphonePage(
  page: Page,
  harness: Pick<EngineHarness, 'url' | 'host'>,
  token: string,
  deviceOptions: Record<string, unknown> = {},
  sdk: HarnessSdk = 'leadline',
): Promise<void> {
  await openSoftphone(page, harness, token, deviceOptions, sdk);
  await page.evaluate(() => {
    const w = window as unknown as SoftphonePageWindow;
    w.callLog = [];
    w.volumes = [];
    const events: Array<keyof CallEvents> = [
      'accept',
      'disconnect',
      'cancel',
      'reject',
      'error',
      'mute',
      'ringing',
      'reconnecting',
      'reconnected',
      'warning',
      'warning-cleared',
    ];
    const text = (arg: unknown): string => {
      // Our errors' messages read `Name (code): message`.
      if (arg instanceof Error) return arg.message;
      return typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean'
        ? String(arg)
        : '';
    };
    w.watchCall = (call) => {
      w.call = call;
      for (const event of events) {
        call.on(event, (...args: unknown[]) => {
          w.callLog.push({ event, at: Date.now(), detail: args.map(text).join(' ').trim() });
        });
      }
      call.on('volume', (input, output) => w.volumes.push([Date.now(), input, output]));
    };
  });
}

/** Places an outgoing call with connect params `params`; it becomes the call under test. */
export async function placeCall(page: Page, params: Record<string, string>): Promise<void> {
  await page.evaluate(async (params) => {
    const w = window as unknown as SoftphonePageWindow;
    w.watchCall(await w.device.connect({ params }));
  }, params);
}

/** Waits for the newest incoming call, makes it the call under test and accepts it. */
export async function acceptIncoming(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(
    () => (window as unknown as SoftphonePageWindow).calls.length > 0,
    undefined,
    { timeout: timeoutMs, polling: 50 },
  );
  await page.evaluate(() => {
    const w = window as unknown as SoftphonePageWindow;
    const call = w.calls.at(-1)!;
    w.watchCall(call);
    call.accept();
  });
}

/**
 * Waits until the call under test emitted `event` `count` times (counting from the start);
 * resolves with that entry. Fails after `timeoutMs` with the log so far.
 */
export async function waitForCallEvent(
  page: Page,
  event: keyof CallEvents,
  timeoutMs = 10_000,
  count = 1,
): Promise<CallLogEntry> {
  try {
    await page.waitForFunction(
      ({ event, count }) =>
        (window as unknown as SoftphonePageWindow).callLog.filter((e) => e.event === event)
          .length >= count,
      { event, count },
      { timeout: timeoutMs, polling: 50 },
    );
  } catch {
    throw new Error(
      `no ${event} (#${count}) within ${timeoutMs} ms; call log: ${JSON.stringify(await callLog(page))}`,
    );
  }
  return (await callLog(page)).filter((e) => e.event === event)[count - 1]!;
}

/** Everything the call under test emitted so far (volume events aside). */
export function callLog(page: Page): Promise<CallLogEntry[]> {
  return page.evaluate(() => (window as unknown as SoftphonePageWindow).callLog);
}

/** The state of the call under test (`call.status()`). */
export function callStatus(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as unknown as SoftphonePageWindow).call?.status());
}

/** The `volume` events of the call under test since `since` (ms since epoch). */
export async function volumesSince(
  page: Page,
  since = 0,
): Promise<Array<{ at: number; input: number; output: number }>> {
  const all = await page.evaluate(() => (window as unknown as SoftphonePageWindow).volumes);
  return all.filter(([at]) => at >= since).map(([at, input, output]) => ({ at, input, output }));
}

/** A recording and where it sits on the wall clock. */
export interface Recording {
  samples: Int16Array;
  sampleRateHz: number;
  /** When its first sample was heard (ms since epoch). */
  startedAt: number;
}

/**
 * Reads the virtual lead's recording. It starts when the lead answered (`phone.answered`, whose
 * time is `startedAt`) and holds one 20 ms frame per media tick, so a wall-clock time maps to
 * an offset in it (to within the event's delivery delay).
 */
export async function readRecording(path: string, startedAt: number): Promise<Recording> {
  const { samples, sampleRateHz } = await readWavFile(path);
  return { samples, sampleRateHz, startedAt };
}

/** The samples of `recording` heard between the wall-clock times `from` and `to` (ms). */
export function heardBetween(recording: Recording, from: number, to: number): Int16Array {
  const { samples, sampleRateHz, startedAt } = recording;
  const first = Math.max(0, Math.round(((from - startedAt) / 1000) * sampleRateHz));
  const last = Math.min(samples.length, Math.round(((to - startedAt) / 1000) * sampleRateHz));
  return samples.subarray(first, Math.max(first, last));
}

/**
 * The level (dBFS, a full-scale sine being 0) of the `frequencyHz` component of `samples`
 * (Goertzel); -Infinity for silence.
 */
export function toneLevelDbfs(
  samples: Int16Array,
  frequencyHz: number,
  sampleRateHz: number,
): number {
  const power = goertzelPower(samples, frequencyHz, sampleRateHz);
  // A sine of amplitude A gives A² / 4.
  return power === 0 ? -Infinity : 20 * Math.log10((2 * Math.sqrt(power)) / 32_767);
}

/**
 * The tone levels (dBFS) of `frequencyHz` in consecutive `windowMs` windows of `recording`
 * between the wall-clock times `from` and `to`: for spotting where a tone starts and stops.
 */
export function toneLevels(
  recording: Recording,
  frequencyHz: number,
  from: number,
  to: number,
  windowMs = 100,
): Array<{ at: number; dbfs: number }> {
  const levels: Array<{ at: number; dbfs: number }> = [];
  for (let at = from; at + windowMs <= to; at += windowMs) {
    const part = heardBetween(recording, at, at + windowMs);
    if (part.length === 0) break;
    levels.push({ at, dbfs: toneLevelDbfs(part, frequencyHz, recording.sampleRateHz) });
  }
  return levels;
}

/**
 * Listens to what the browser receives, in `windowMs` stretches, until its dominant frequency is
 * within `toleranceHz` of `frequencyHz` or `attempts` stretches have passed; resolves with the
 * last frequency measured (null: silence). Audio may take a moment to come back after a
 * reconnect, hence more than one stretch.
 */
export async function browserHears(
  page: Page,
  frequencyHz: number,
  { windowMs = 1_000, attempts = 5, toleranceHz = 20 } = {},
): Promise<number | null> {
  let heard: number | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    heard = await remoteDominantFrequency(page, windowMs);
    if (heard !== null && Math.abs(heard - frequencyHz) <= toleranceHz) return heard;
  }
  return heard;
}

/** Whether `frequencyHz` carries at least half the power of `samples` (a clear tone). */
export const hasClearTone = (
  samples: Int16Array,
  frequencyHz: number,
  sampleRateHz: number,
): boolean => samples.length > 0 && tonesIn(samples, [frequencyHz], 0.5, sampleRateHz).length > 0;

/** A call between the page's device and a virtual lead, as the engine knows it. */
export interface LeadCall {
  callSid: string;
  /** When the lead answered (its recording starts then). */
  answeredAt: number;
}

/**
 * Places an outgoing call from the page to `to` (a sandbox number) and waits until it is open
 * in the page and answered by the lead.
 */
export async function callLead(
  page: Page,
  harness: EngineHarness,
  identity: string,
  to = '+15550100042',
): Promise<LeadCall> {
  const since = harness.events.length;
  await placeCall(page, { To: to });
  const placed = await harness.waitFor(
    'outgoing.placed',
    (e) => e.identity === identity,
    15_000,
    since,
  );
  const answered = await harness.waitFor(
    'phone.answered',
    (e) => e.callSid === placed.callSid,
    15_000,
    since,
  );
  await waitForCallEvent(page, 'accept', 15_000);
  return { callSid: placed.callSid, answeredAt: answered.at };
}

/**
 * Rings the page's device (`identity`) into a new call, accepts it there and dials the lead
 * (`to`) into the call; resolves once the call is open in the page and the lead answered.
 */
export async function ringAndAccept(
  page: Page,
  harness: EngineHarness,
  identity: string,
  callSid: string,
  to = '+15550100042',
): Promise<LeadCall> {
  const since = harness.events.length;
  const ringing = await harness.engine.ringAgent(callSid, identity, { From: 'client:7' });
  if (ringing !== 1) throw new Error(`${identity} is not online (${ringing} devices rung)`);
  await acceptIncoming(page);
  await waitForCallEvent(page, 'accept', 15_000);
  await harness.waitFor('agent.answered', (e) => e.callSid === callSid, 15_000, since);
  harness.engine.dial(callSid, to);
  const answered = await harness.waitFor(
    'phone.answered',
    (e) => e.callSid === callSid,
    15_000,
    since,
  );
  return { callSid, answeredAt: answered.at };
}

/** Ends the call in the engine and reads the lead's recording. */
export async function hangUpAndRecord(harness: EngineHarness, call: LeadCall): Promise<Recording> {
  const since = harness.events.length;
  harness.engine.hangup(call.callSid);
  const recorded = await harness.waitFor(
    'phone.recorded',
    (e) => e.callSid === call.callSid,
    15_000,
    since,
  );
  return readRecording(recorded.path, call.answeredAt);
}

/** Lets `ms` of audio flow (not an assertion: the audio is judged afterwards). */
export const letAudioFlow = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** A spec file's engine and browser (see {@link softphoneWorld}). */
export interface SoftphoneWorld {
  /** The engine harness (started before the file's tests). */
  readonly harness: EngineHarness;
  /** The browser (its microphone plays the world's tone). */
  readonly browser: Browser;
  /**
   * A new page with our SDK's device registered as `identity` and its remote audio captured;
   * `prepare` runs on the page before it loads (init scripts).
   */
  softphone(identity: string, prepare?: (page: Page) => Promise<void>): Promise<Page>;
}

/**
 * Starts the engine harness and one Chromium whose microphone plays `micHz` before the spec
 * file's tests, and closes both after them.
 */
export function softphoneWorld(micHz: number): SoftphoneWorld {
  let harness: EngineHarness | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    harness = await startEngineHarness();
    browser = await launchChromium(await toneWav(micHz, 60));
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('softphoneWorld is used before its beforeAll ran');
    return value;
  };
  return {
    get harness() {
      return started(harness);
    },
    get browser() {
      return started(browser);
    },
    async softphone(identity, prepare) {
      const page = await started(browser).newPage();
      await captureRemoteAudio(page);
      await prepare?.(page);
      await openSoftphonePage(page, started(harness), identity);
      return page;
    },
  };
}

/** Asserts the browser hears `frequencyHz` (within 20 Hz) within a few listening windows. */
export async function expectBrowserHears(page: Page, frequencyHz: number): Promise<void> {
  const heard = await browserHears(page, frequencyHz);
  expect(heard, `the browser hears ${heard} Hz`).not.toBeNull();
  expect(Math.abs(heard! - frequencyHz)).toBeLessThanOrEqual(20);
}
