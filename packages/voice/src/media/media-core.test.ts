import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FRAME_DURATION_MS } from '../constants';
import { dominantFrequency } from '../dsp/dominant-frequency';
import { readWavFile } from '../dsp/wav';
import { defaultAssetsDir } from '../pstn/clips';
import { SANDBOX_NUMBER_PLAN, type NumberPlan } from '../pstn/number-plan';
import { FakeClock } from '../testing/fake-clock';
import { MediaCore, recordingFileName } from './media-core';
import type { MediaEvent } from './media-engine';

const tone = (frequencyHz: number) => ({ kind: 'tone', frequencyHz, dbfs: -12 }) as const;

/** Numbers with distinct tones and behaviours, so tests can tell parties apart by ear. */
const TEST_PLAN: NumberPlan = {
  rows: [
    {
      description: 'low tone',
      pattern: /^\+1000$/,
      behaviour: { kind: 'answer', audio: tone(700) },
    },
    {
      description: 'high tone',
      pattern: /^\+2000$/,
      behaviour: { kind: 'answer', audio: tone(1300) },
    },
    {
      description: 'hangs up',
      pattern: /^\+3000$/,
      behaviour: { kind: 'answer', ringMs: 100, audio: tone(500), hangUpAfterMs: 3000 },
    },
    {
      description: 'busy after ringing',
      pattern: /^\+4000$/,
      behaviour: { kind: 'unanswered', reason: 'busy', ringMs: 2000 },
    },
    ...SANDBOX_NUMBER_PLAN.rows,
  ],
  fallback: SANDBOX_NUMBER_PLAN.fallback,
};

describe('MediaCore with virtual parties (fake clock)', () => {
  let sandboxDir: string;
  let clock: FakeClock;
  let events: MediaEvent[];
  let warnings: string[];
  let core: MediaCore;

  beforeEach(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-core-'));
    clock = new FakeClock();
    events = [];
    warnings = [];
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      recordingsDir: join(sandboxDir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 1000,
      emit: (event) => events.push(event),
      warn: (message) => warnings.push(message),
      clock,
      scheduler: clock,
      numberPlan: TEST_PLAN,
    });
    await core.start();
  });

  afterEach(async () => {
    await core.shutdown();
    await rm(sandboxDir, { recursive: true, force: true });
  });

  const types = (participantId: string): string[] =>
    events
      .filter((event) => 'participantId' in event && event.participantId === participantId)
      .map((event) => event.type);

  const recording = (
    participantId: string,
  ): Extract<MediaEvent, { type: 'party.recorded' }> | undefined =>
    events.find(
      (event): event is Extract<MediaEvent, { type: 'party.recorded' }> =>
        event.type === 'party.recorded' && event.participantId === participantId,
    );

  it('a sandbox number rings at once and answers after answerDelayMs', () => {
    core.dial('room', 'p', '+15550100042');
    expect(events).toEqual([{ type: 'party.ringing', participantId: 'p', roomId: 'room' }]);
    clock.advance(999);
    expect(types('p')).toEqual(['party.ringing']);
    clock.advance(1);
    expect(types('p')).toEqual(['party.ringing', 'party.answered']);
  });

  it('an unknown number fails at once without ringing', () => {
    core.dial('room', 'p', '+15559990000');
    expect(events).toEqual([
      { type: 'party.unanswered', participantId: 'p', roomId: 'room', reason: 'failed' },
    ]);
    expect(clock.pendingTimers).toBe(1); // only the mixer loop
    expect(() => core.remove('p')).not.toThrow();
  });

  it('each of two parties records the other one, not itself', async () => {
    core.dial('room', 'low', '+1000');
    core.dial('room', 'high', '+2000');
    clock.advance(1000 + 2000);
    core.remove('low');
    core.remove('high');
    await core.settled();
    const low = await readWavFile(recording('low')?.path ?? '');
    const high = await readWavFile(recording('high')?.path ?? '');
    expect(Math.abs((dominantFrequency(low.samples, 8000) ?? 0) - 1300)).toBeLessThan(2);
    expect(Math.abs((dominantFrequency(high.samples, 8000) ?? 0) - 700)).toBeLessThan(2);
    // 2 s in the mix at 20 ms a frame, give or take the frame in progress at the answer.
    expect(recording('low')?.seconds).toBeCloseTo(2, 1);
    expect(low.samples.length % ((8000 * FRAME_DURATION_MS) / 1000)).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('a muted party is heard by nobody but still hears', async () => {
    core.dial('room', 'low', '+1000');
    core.dial('room', 'high', '+2000');
    core.setMuted('low', true);
    clock.advance(2000);
    core.closeRoom('room');
    await core.settled();
    const heardByHigh = await readWavFile(recording('high')?.path ?? '');
    expect(heardByHigh.samples.every((sample) => sample === 0)).toBe(true);
    const heardByLow = await readWavFile(recording('low')?.path ?? '');
    expect(Math.abs((dominantFrequency(heardByLow.samples, 8000) ?? 0) - 1300)).toBeLessThan(2);
  });

  it('a party that hangs up by itself reports it, then its recording', async () => {
    core.dial('room', 'quitter', '+3000');
    clock.advance(100 + 2999);
    expect(types('quitter')).toEqual(['party.ringing', 'party.answered']);
    clock.advance(1);
    await core.settled();
    expect(types('quitter')).toEqual([
      'party.ringing',
      'party.answered',
      'party.hangup',
      'party.recorded',
    ]);
    expect(recording('quitter')?.seconds).toBeCloseTo(3, 1);
  });

  it('a busy number rings, then reports busy', () => {
    core.dial('room', 'busy', '+4000');
    clock.advance(1999);
    expect(types('busy')).toEqual(['party.ringing']);
    clock.advance(1);
    expect(events.at(-1)).toEqual({
      type: 'party.unanswered',
      participantId: 'busy',
      roomId: 'room',
      reason: 'busy',
    });
  });

  it('a party removed while ringing neither answers nor records', async () => {
    core.dial('room', 'p', '+15550100042');
    core.remove('p');
    clock.advance(5000);
    await core.settled();
    expect(types('p')).toEqual(['party.ringing']);
  });

  it('shutdown writes every recording before it resolves', async () => {
    core.dial('room-a', 'a', '+1000');
    core.dial('room-b', 'b', '+2000');
    clock.advance(1500);
    await core.shutdown();
    expect(recording('a')?.seconds).toBeCloseTo(0.5, 1);
    expect(recording('b')).toBeDefined();
  });

  it('refuses a participant id in use and ignores ids that have gone', async () => {
    core.dial('room', 'p', '+1000');
    core.dial('room', 'p', '+2000');
    expect(types('p')).toEqual(['party.ringing']);
    expect(warnings.join()).toMatch(/ParticipantExists|already in use/);
    await expect(core.createOfferLeg('room', 'p')).rejects.toMatchObject({
      name: 'ParticipantExists',
    });
    await expect(core.acceptAnswer('p', 'v=0')).rejects.toMatchObject({
      name: 'IllegalTransition',
    });
    await expect(core.acceptAnswer('gone', 'v=0')).resolves.toBeUndefined();
    expect(() => {
      core.remove('gone');
      core.setMuted('gone', true);
      core.closeRoom('no-room');
    }).not.toThrow();
  });

  it('rejects an offer leg removed before its offer is ready (LegClosed)', async () => {
    const pending = core.createOfferLeg('room', 'quick');
    core.remove('quick');
    await expect(pending).rejects.toMatchObject({ name: 'LegClosed' });
  });

  it('names recordings after the participant, keeping them inside the sandbox', async () => {
    expect(recordingFileName('phone-1')).toBe('phone-1.wav');
    expect(recordingFileName('CA123/phone/1')).toBe('CA123_phone_1.wav');
    expect(recordingFileName('../../etc/passwd')).toBe('______etc_passwd.wav');
    core.dial('room', 'CA1/phone/2', '+15550100042');
    clock.advance(1100);
    core.remove('CA1/phone/2');
    await core.settled();
    expect(recording('CA1/phone/2')?.path).toBe(join(sandboxDir, 'CA1_phone_2.wav'));
  });
});

describe('MediaCore mixer loop (fake clock)', () => {
  let sandboxDir: string;
  let clock: FakeClock;
  let core: MediaCore;

  beforeEach(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-core-loop-'));
    clock = new FakeClock();
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      recordingsDir: join(sandboxDir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 1000,
      emit: () => undefined,
      warn: () => undefined,
      clock,
      scheduler: clock,
      numberPlan: TEST_PLAN,
    });
    await core.start();
  });

  afterEach(async () => {
    await core.shutdown();
    await rm(sandboxDir, { recursive: true, force: true });
  });

  it('runs only while a room exists: an engine without calls sets no timer', async () => {
    expect(core.mixing).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1000);
    expect(core.loopStats.framesRun).toBe(0);

    core.dial('a', 'low', '+1000');
    core.dial('b', 'high', '+2000');
    expect(core.mixing).toBe(true);
    clock.advance(1000 + 200);
    expect(core.loopStats.framesRun).toBe((1000 + 200) / FRAME_DURATION_MS);

    core.closeRoom('a');
    expect(core.mixing).toBe(true); // room b still mixes
    clock.advance(FRAME_DURATION_MS);
    expect(core.loopStats.framesRun).toBe((1000 + 200) / FRAME_DURATION_MS + 1);

    core.closeRoom('b');
    await core.settled();
    expect(core.mixing).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1000);
    expect(core.loopStats.framesRun).toBe((1000 + 200) / FRAME_DURATION_MS + 1);

    // A new call starts the loop again, on the same 20 ms grid.
    core.dial('c', 'low2', '+1000');
    expect(core.mixing).toBe(true);
    clock.advance(FRAME_DURATION_MS);
    expect(core.loopStats.framesRun).toBe((1000 + 200) / FRAME_DURATION_MS + 2);
  });
});
