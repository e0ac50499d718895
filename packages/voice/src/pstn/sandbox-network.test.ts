/**
 * The sandbox phone network through the media core with a fake clock: exact ringing and
 * hang-up times, what each number plays and what it records. Every number is dialled into a
 * room with a "caller" party that plays 1000 Hz, so the number has someone to hear and be heard
 * by. (The same numbers run for real through the worker in `sandbox-network.integration.test.ts`.)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ECHO_DELAY_MS, SANDBOX_NUMBERS, VOICEMAIL_BEEP } from '../constants';
import { readWavFile } from '../dsp/wav';
import { FakeClock } from '../testing/fake-clock';
import { MediaCore } from '../media/media-core';
import type { MediaEvent } from '../media/media-engine';
import { between, soundsLikeSpeech, tonesIn } from '../testing/audio-checks';
import { defaultAssetsDir, loadClips, type ClipLibrary } from './clips';
import { SANDBOX_NUMBER_PLAN, type NumberPlan } from './number-plan';
import type { PartyRecord } from './virtual-party';

const AGENT_NUMBER = '+1000';
/** The sandbox plan plus one number for the other side of each call: a steady 1000 Hz. */
const PLAN: NumberPlan = {
  rows: [
    {
      description: 'the other side',
      pattern: /^\+1000$/,
      behaviour: {
        kind: 'answer',
        ringMs: 0,
        audio: { kind: 'tone', frequencyHz: 1000, dbfs: -12 },
      },
    },
    ...SANDBOX_NUMBER_PLAN.rows,
  ],
  fallback: SANDBOX_NUMBER_PLAN.fallback,
};

describe('the sandbox phone network (media core, fake clock)', () => {
  let dir: string;
  let clock: FakeClock;
  let events: MediaEvent[];
  let core: MediaCore;
  let clips: ClipLibrary;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-sandbox-'));
    clock = new FakeClock();
    events = [];
    clips = await loadClips(defaultAssetsDir());
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: dir,
      recordingsDir: join(dir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 1000,
      emit: (event) => events.push(event),
      warn: (message) => {
        throw new Error(message);
      },
      clock,
      scheduler: clock,
      numberPlan: PLAN,
    });
    await core.start();
  });

  afterEach(async () => {
    await core.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  /** The party's events, without ids. */
  const seen = (participantId: string): string[] =>
    events
      .filter((event) => 'participantId' in event && event.participantId === participantId)
      .map((event) =>
        event.type === 'party.unanswered' ? `unanswered:${event.reason}` : event.type,
      );

  const record = async (participantId: string): Promise<PartyRecord> =>
    JSON.parse(await readFile(join(dir, `${participantId}.json`), 'utf8')) as PartyRecord;

  const heard = async (participantId: string): Promise<Int16Array> => {
    const path = (await record(participantId)).recording;
    if (!path) throw new Error(`${participantId} recorded nothing`);
    return (await readWavFile(path)).samples;
  };

  /** Dials `number` into a room with the 1000 Hz side already on the line. */
  function dial(number: string): void {
    core.dial('room', 'agent', AGENT_NUMBER);
    clock.advance(0);
    core.dial('room', 'phone', number);
  }

  it(`${SANDBOX_NUMBERS.busy} is busy at once, without ringing`, async () => {
    dial(SANDBOX_NUMBERS.busy);
    expect(seen('phone')).toEqual(['unanswered:busy']);
    await core.settled();
    expect(await record('phone')).toMatchObject({
      number: SANDBOX_NUMBERS.busy,
      outcome: 'unanswered',
      failure: 'busy',
      recording: null,
    });
  });

  it(`${SANDBOX_NUMBERS.noAnswer} rings for 30 s, then is not answered`, () => {
    dial(SANDBOX_NUMBERS.noAnswer);
    expect(seen('phone')).toEqual(['party.ringing']);
    clock.advance(29_999);
    expect(seen('phone')).toEqual(['party.ringing']);
    clock.advance(1);
    expect(seen('phone')).toEqual(['party.ringing', 'unanswered:no-answer']);
  });

  it(`${SANDBOX_NUMBERS.voicemail} goes to voicemail: greeting, beep, then it records the message`, async () => {
    dial(SANDBOX_NUMBERS.voicemail);
    clock.advance(1000);
    expect(seen('phone')).toEqual(['party.ringing', 'party.answered']);
    const greetingSeconds = clips['voicemail-greeting'].length / 8000;
    const beepSeconds = VOICEMAIL_BEEP.durationMs / 1000;
    clock.advance((greetingSeconds + beepSeconds + 3) * 1000);
    core.closeRoom('room');
    await core.settled();
    // The caller heard the greeting (speech), then the beep.
    const callerHeard = await heard('agent');
    expect(soundsLikeSpeech(between(callerHeard, 1, 1 + greetingSeconds))).toBe(true);
    const beep = between(
      callerHeard,
      1 + greetingSeconds + 0.1,
      1 + greetingSeconds + beepSeconds - 0.05,
    );
    expect(tonesIn(beep, [VOICEMAIL_BEEP.frequencyHz], 0.8)).toEqual([VOICEMAIL_BEEP.frequencyHz]);
    // The voicemail recorded only the message after the beep: 3 s of the caller's 1000 Hz.
    const message = await record('phone');
    expect(message.seconds).toBeCloseTo(3, 1);
    expect(tonesIn(await heard('phone'), [1000], 0.9)).toEqual([1000]);
  });

  it(`${SANDBOX_NUMBERS.hangsUp} answers and hangs up after 3 s`, async () => {
    dial(SANDBOX_NUMBERS.hangsUp);
    clock.advance(1000);
    expect(seen('phone')).toEqual(['party.ringing', 'party.answered']);
    clock.advance(2999);
    expect(seen('phone')).toEqual(['party.ringing', 'party.answered']);
    clock.advance(1);
    await core.settled();
    expect(seen('phone')).toEqual([
      'party.ringing',
      'party.answered',
      'party.hangup',
      'party.recorded',
    ]);
    expect((await record('phone')).seconds).toBeCloseTo(3, 1);
    core.closeRoom('room');
    await core.settled();
    expect(tonesIn(between(await heard('agent'), 1, 4), [440, 1000])).toEqual([440]);
  });

  it(`${SANDBOX_NUMBERS.invalid} and unknown numbers fail as invalid numbers at once`, () => {
    dial(SANDBOX_NUMBERS.invalid);
    core.dial('room', 'unknown', '+15550200000');
    expect(seen('phone')).toEqual(['unanswered:failed']);
    expect(seen('unknown')).toEqual(['unanswered:failed']);
  });

  it(`${SANDBOX_NUMBERS.echo} (the echo test) answers at once and plays back what it hears, ${ECHO_DELAY_MS} ms later`, async () => {
    dial(SANDBOX_NUMBERS.echo);
    expect(seen('phone')).toEqual(['party.ringing']);
    clock.advance(0);
    expect(seen('phone')).toEqual(['party.ringing', 'party.answered']);
    clock.advance(5000);
    core.closeRoom('room');
    await core.settled();
    // The caller's 1000 Hz came back to it: silence while the echo holds it, then the tone.
    const delaySeconds = ECHO_DELAY_MS / 1000;
    const agent = await heard('agent');
    expect(tonesIn(between(agent, 0, delaySeconds), [1000])).toEqual([]);
    expect(tonesIn(between(agent, delaySeconds + 0.1, 5), [440, 1000], 0.95)).toEqual([1000]);
    // And the echo heard the caller all along, as any party records what it hears.
    expect(tonesIn(await heard('phone'), [1000], 0.95)).toEqual([1000]);
    expect(await record('phone')).toMatchObject({
      number: SANDBOX_NUMBERS.echo,
      outcome: 'answered',
    });
  });

  it.each(['+15550100001', '+15550100099'])(
    '%s (a test lead) rings about 1 s, answers and plays a steady 440 Hz until hung up',
    async (number) => {
      dial(number);
      clock.advance(999);
      expect(seen('phone')).toEqual(['party.ringing']);
      clock.advance(1);
      clock.advance(60_000);
      expect(seen('phone')).toEqual(['party.ringing', 'party.answered']);
      core.closeRoom('room');
      await core.settled();
      const agent = await heard('agent');
      expect(tonesIn(between(agent, 1, 61), [440], 0.95)).toEqual([440]);
      expect(tonesIn(await heard('phone'), [1000], 0.95)).toEqual([1000]);
    },
  );

  it.each(['+15550100000', '+15550100100', '+15550109999'])(
    '%s (any other number of the range) answers and a lead talks: the voice clip, looped',
    async (number) => {
      dial(number);
      clock.advance(1000);
      const clipSeconds = clips['lead-voice'].length / 8000;
      clock.advance(clipSeconds * 2 * 1000);
      core.closeRoom('room');
      await core.settled();
      const agent = await heard('agent');
      expect(soundsLikeSpeech(between(agent, 1, 1 + 2 * clipSeconds))).toBe(true);
      // Exactly the clip, twice over (aligned on the first sound of each).
      const clip = clips['lead-voice'];
      const inClip = clip.findIndex((sample) => sample !== 0);
      const start = agent.findIndex((sample) => sample !== 0) - inClip;
      expect(agent.subarray(start, start + 8000)).toEqual(clip.subarray(0, 8000));
      expect(agent.subarray(start + clip.length, start + clip.length + 8000)).toEqual(
        clip.subarray(0, 8000),
      );
    },
  );
});
