/**
 * Rooms of the media core with virtual parties only (fake clock, real files): roles, hold,
 * the room recording, inbound callers and DTMF. Each party plays its own tone and records what
 * it hears, so every check is "who heard which tone".
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readWavFile } from '../dsp/wav';
import { defaultAssetsDir, loadClips } from '../pstn/clips';
import type { NumberPlan } from '../pstn/number-plan';
import type { PartyRecord } from '../pstn/virtual-party';
import { between, holdMusicShare, soundsLikeSpeech, tonesIn } from '../testing/audio-checks';
import { FakeClock } from '../testing/fake-clock';
import { MediaCore } from './media-core';
import type { MediaEvent, ParticipantRole } from './media-engine';

const TONES = { lead: 440, agent: 1000, supervisor: 1500, second: 700 } as const;
const ALL_TONES = Object.values(TONES);

/** `+1` + the tone: a party that answers after 1 s and plays that tone. */
const TONE_PLAN: NumberPlan = {
  rows: ALL_TONES.map((frequencyHz) => ({
    description: `${frequencyHz} Hz`,
    pattern: new RegExp(`^\\+1${frequencyHz}$`),
    behaviour: { kind: 'answer', audio: { kind: 'tone', frequencyHz, dbfs: -12 } } as const,
  })),
  fallback: { kind: 'unanswered', reason: 'failed' },
};

describe('MediaCore rooms (fake clock)', () => {
  let dir: string;
  let clock: FakeClock;
  let events: MediaEvent[];
  let warnings: string[];
  let core: MediaCore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-rooms-'));
    clock = new FakeClock();
    events = [];
    warnings = [];
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      recordingsDir: join(dir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 1000,
      emit: (event) => events.push(event),
      warn: (message) => warnings.push(message),
      clock,
      scheduler: clock,
      numberPlan: TONE_PLAN,
    });
    await core.start();
  });

  afterEach(async () => {
    await core.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Dials one party per tone into `room`, gives each its role, runs `beforeAnswer`, and lets
   * them all answer.
   */
  function call(
    room: string,
    roles: Partial<Record<keyof typeof TONES, ParticipantRole>>,
    beforeAnswer?: () => void,
  ): void {
    for (const [name, role] of Object.entries(roles)) {
      core.dial(room, name, `+1${TONES[name as keyof typeof TONES]}`);
      core.setRole(name, role);
    }
    beforeAnswer?.();
    clock.advance(1000);
  }

  async function heard(participantId: string): Promise<Int16Array> {
    const recorded = events.find(
      (event): event is Extract<MediaEvent, { type: 'party.recorded' }> =>
        event.type === 'party.recorded' && event.participantId === participantId,
    );
    if (!recorded) throw new Error(`${participantId} recorded nothing`);
    return (await readWavFile(recorded.path)).samples;
  }

  async function roomRecording(
    room: string,
  ): Promise<Extract<MediaEvent, { type: 'recording.ready' }> & { samples: Int16Array }> {
    const ready = events.find(
      (event): event is Extract<MediaEvent, { type: 'recording.ready' }> =>
        event.type === 'recording.ready' && event.roomId === room,
    );
    if (!ready) throw new Error(`room ${room} has no recording`);
    return { ...ready, samples: (await readWavFile(ready.path)).samples };
  }

  async function finish(room: string): Promise<void> {
    core.closeRoom(room);
    await core.settled();
  }

  it.each([
    // role of the supervisor, what lead / agent / supervisor hear, what the recording holds
    [
      'whisper',
      [TONES.agent],
      [TONES.lead, TONES.supervisor],
      [TONES.lead, TONES.agent],
      [TONES.lead, TONES.agent],
    ],
    ['listen', [TONES.agent], [TONES.lead], [TONES.lead, TONES.agent], [TONES.lead, TONES.agent]],
    [
      'barge',
      [TONES.agent, TONES.supervisor],
      [TONES.lead, TONES.supervisor],
      [TONES.lead, TONES.agent],
      ALL_TONES.slice(0, 3),
    ],
    [
      'conference',
      [TONES.agent, TONES.supervisor],
      [TONES.lead, TONES.supervisor],
      [TONES.lead, TONES.agent],
      ALL_TONES.slice(0, 3),
    ],
  ] as const)(
    'a supervisor who %ss: lead hears %j, agent %j, supervisor %j; the recording has %j',
    async (role, leadHears, agentHears, supervisorHears, recordingHas) => {
      call('room', { lead: 'lead', agent: 'agent', supervisor: role });
      clock.advance(2000);
      await finish('room');
      expect(tonesIn(await heard('lead'), ALL_TONES)).toEqual(leadHears);
      expect(tonesIn(await heard('agent'), ALL_TONES)).toEqual(agentHears);
      expect(tonesIn(await heard('supervisor'), ALL_TONES)).toEqual(supervisorHears);
      const recording = await roomRecording('room');
      expect(tonesIn(recording.samples, ALL_TONES)).toEqual(recordingHas);
      expect(warnings).toEqual([]);
    },
  );

  it('whisper → barge: from the switch on, the lead hears the supervisor', async () => {
    call('room', { lead: 'lead', agent: 'agent', supervisor: 'whisper' });
    clock.advance(2000);
    core.setRole('supervisor', 'barge');
    clock.advance(2000);
    await finish('room');
    const lead = await heard('lead');
    expect(tonesIn(between(lead, 0.2, 1.8), ALL_TONES)).toEqual([TONES.agent]);
    expect(tonesIn(between(lead, 2.2, 3.8), ALL_TONES)).toEqual([TONES.agent, TONES.supervisor]);
  });

  it('hold: the lead hears the music and nobody else, nobody hears the lead; unhold restores', async () => {
    call('room', { lead: 'lead', agent: 'agent', second: 'conference' });
    clock.advance(1000);
    core.setHold('room', true);
    clock.advance(3000);
    core.setHold('room', false);
    clock.advance(1000);
    await finish('room');
    const lead = await heard('lead');
    const agent = await heard('agent');
    // Before the hold (0–1 s), during it (1–4 s), after it (4–5 s) from the answer.
    expect(tonesIn(between(lead, 0.1, 0.9), ALL_TONES)).toEqual([TONES.agent, TONES.second]);
    expect(holdMusicShare(between(lead, 1.1, 3.9))).toBeGreaterThan(0.8);
    expect(tonesIn(between(lead, 1.1, 3.9), ALL_TONES, 0.02)).toEqual([]);
    expect(tonesIn(between(lead, 4.1, 4.9), ALL_TONES)).toEqual([TONES.agent, TONES.second]);
    expect(tonesIn(between(agent, 1.1, 3.9), ALL_TONES, 0.02)).toEqual([TONES.second]);
    expect(holdMusicShare(between(agent, 1.1, 3.9))).toBe(0);
    expect(tonesIn(between(agent, 4.1, 4.9), ALL_TONES)).toEqual([TONES.lead, TONES.second]);
    // The recording skips the held lead and never has the music.
    const recording = (await roomRecording('room')).samples;
    expect(tonesIn(between(recording, 1.1, 3.9), ALL_TONES, 0.02)).toEqual([
      TONES.agent,
      TONES.second,
    ]);
    expect(holdMusicShare(recording)).toBe(0);
  });

  it('mute: a muted agent is heard by nobody, not even the recording', async () => {
    // Muted before anyone answers: not one frame of the agent may reach the others.
    call('room', { lead: 'lead', agent: 'agent' }, () => core.setMuted('agent', true));
    clock.advance(1000);
    await finish('room');
    expect(tonesIn(await heard('lead'), ALL_TONES)).toEqual([]);
    expect(tonesIn(await heard('agent'), ALL_TONES)).toEqual([TONES.lead]);
    expect(tonesIn((await roomRecording('room')).samples, ALL_TONES)).toEqual([TONES.lead]);
  });

  it('records the room from the moment two parties talk until it closes, under recordingsDir', async () => {
    core.dial('CA123', 'lead', `+1${TONES.lead}`);
    clock.advance(1000);
    clock.advance(500);
    core.dial('CA123', 'agent', `+1${TONES.agent}`);
    clock.advance(1000);
    clock.advance(2000);
    await finish('CA123');
    const recording = await roomRecording('CA123');
    expect(recording.path).toBe(join(dir, 'recordings', 'CA123.wav'));
    expect(recording.seconds).toBeCloseTo(2, 1);
    expect(recording.samples.length).toBe(recording.seconds * 8000);
    expect(tonesIn(recording.samples, ALL_TONES)).toEqual([TONES.lead, TONES.agent]);
    // One party alone records nothing.
    core.dial('CA-alone', 'alone', `+1${TONES.lead}`);
    clock.advance(2000);
    await finish('CA-alone');
    expect(events.some((e) => e.type === 'recording.ready' && e.roomId === 'CA-alone')).toBe(false);
  });

  it('a sandbox party hangs up when told, as a person would; the room goes on without it', async () => {
    call('room', { lead: 'lead', agent: 'agent', second: 'conference' });
    clock.advance(500);
    core.partyHangsUp('lead');
    // Only a party that is talking can hang up; a second request changes nothing.
    core.partyHangsUp('lead');
    core.partyHangsUp('nobody');
    clock.advance(1000);
    expect(events.filter((e) => e.type === 'party.hangup')).toEqual([
      { type: 'party.hangup', participantId: 'lead', roomId: 'room' },
    ]);
    await finish('room');
    // The agent heard the lead for the first half second, then only the second agent.
    const agent = await heard('agent');
    expect(tonesIn(between(agent, 0.1, 0.4), ALL_TONES)).toEqual([TONES.lead, TONES.second]);
    expect(tonesIn(between(agent, 0.7, 1.4), ALL_TONES)).toEqual([TONES.second]);
  });

  it('a stalled media loop leaves the recordings on wall-clock time, silent for the gap', async () => {
    call('room', { lead: 'lead', agent: 'agent' });
    clock.advance(1000);
    // The thread is busy elsewhere for 500 ms: the pacer runs two frames late, skips the rest.
    clock.stall(500);
    clock.advance(500);
    await finish('room');
    const lead = await heard('lead');
    const recording = await roomRecording('room');
    // Answered at 1 s, closed at 3 s: two seconds each, not two minus the skipped frames.
    expect(lead.length / 8000).toBeCloseTo(2, 1);
    expect(recording.seconds).toBeCloseTo(2, 1);
    // After the stall the agent is heard where the wall clock says, before it silence.
    expect(tonesIn(between(lead, 1.6, 2), ALL_TONES)).toEqual([TONES.agent]);
    expect(tonesIn(between(lead, 1.1, 1.4), ALL_TONES)).toEqual([]);
    expect(tonesIn(between(recording.samples, 1.6, 2), ALL_TONES)).toEqual([
      TONES.lead,
      TONES.agent,
    ]);
  });

  it('an inbound caller is on the line at once, speaks the voice clip and leaves a record', async () => {
    const clips = await loadClips(defaultAssetsDir());
    core.addCaller('room', 'caller', '+15550101234', '+15557654321');
    expect(events).toEqual([{ type: 'party.answered', participantId: 'caller', roomId: 'room' }]);
    core.dial('room', 'agent', `+1${TONES.agent}`);
    clock.advance(1000 + 3000);
    await finish('room');
    // The agent (answered 1 s after the caller) hears the clip, sample for sample, from where the
    // caller had got to (about 1 s in, give or take the frame in progress).
    const agent = await heard('agent');
    expect(soundsLikeSpeech(agent)).toBe(true);
    const clip = clips['lead-voice'];
    const offsets = [...Array(11).keys()].map((k) => 8000 + (k - 5) * 160);
    const offset = offsets.find((at) =>
      agent.subarray(0, 8000).every((sample, i) => sample === clip[at + i]),
    );
    expect(offset).toBeDefined();
    const record = JSON.parse(
      await readFile(join(dir, 'sandbox', 'caller.json'), 'utf8'),
    ) as PartyRecord;
    expect(record).toMatchObject({
      direction: 'inbound',
      number: '+15550101234',
      to: '+15557654321',
      outcome: 'answered',
      digits: '',
    });
    expect(tonesIn((await heard('caller')).subarray(0, 8000 * 3), ALL_TONES)).toEqual([
      TONES.agent,
    ]);
  });

  it('DTMF reaches the virtual parties of the room, which log it', async () => {
    call('room', { lead: 'lead', agent: 'agent' });
    core.sendDigits('room', '12');
    core.sendDigits('room', '#');
    core.sendDigits('other-room', '9');
    await finish('room');
    const dtmf = events.filter((event) => event.type === 'party.dtmf');
    expect(dtmf).toEqual([
      { type: 'party.dtmf', participantId: 'lead', roomId: 'room', digits: '12' },
      { type: 'party.dtmf', participantId: 'agent', roomId: 'room', digits: '12' },
      { type: 'party.dtmf', participantId: 'lead', roomId: 'room', digits: '#' },
      { type: 'party.dtmf', participantId: 'agent', roomId: 'room', digits: '#' },
    ]);
    const record = JSON.parse(
      await readFile(join(dir, 'sandbox', 'lead.json'), 'utf8'),
    ) as PartyRecord;
    expect(record).toMatchObject({ direction: 'outbound', number: '+1440', digits: '12#' });
  });
});
