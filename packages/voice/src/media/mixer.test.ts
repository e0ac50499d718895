import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { toneShare } from '../dsp/goertzel';
import { generateTone } from '../dsp/tone';
import { HOLD_MUSIC } from '../constants';
import { MelodySource } from './audio-source';
import {
  conferenceHearing,
  mixFrames,
  roleHearing,
  type HearingRule,
  type MixInput,
  type MixRole,
} from './mixer';

const FRAME = 800; // 100 ms: enough for Goertzel to tell the tones apart.

function party(id: string, frequencyHz: number, muted = false): MixInput {
  return {
    id,
    muted,
    frame: generateTone({ frequencyHz, dbfs: -20, sampleRateHz: SAMPLE_RATE_HZ }, FRAME),
  };
}

function hears(output: Int16Array | undefined, frequencyHz: number): boolean {
  return toneShare(output ?? new Int16Array(0), frequencyHz, SAMPLE_RATE_HZ) > 0.2;
}

describe('mixFrames', () => {
  it('two participants hear each other and not themselves', () => {
    const outputs = mixFrames([party('a', 440), party('b', 1000)], conferenceHearing, FRAME);
    expect(hears(outputs.get('a'), 1000)).toBe(true);
    expect(hears(outputs.get('a'), 440)).toBe(false);
    expect(hears(outputs.get('b'), 440)).toBe(true);
    expect(hears(outputs.get('b'), 1000)).toBe(false);
    // Alone with one other participant, the output is exactly the other's frame.
    expect(outputs.get('a')).toEqual(party('b', 1000).frame);
  });

  it('three participants each hear the two others', () => {
    const inputs = [party('a', 440), party('b', 1000), party('c', 1700)];
    const outputs = mixFrames(inputs, conferenceHearing, FRAME);
    const tones: Record<string, number> = { a: 440, b: 1000, c: 1700 };
    for (const [listener, own] of Object.entries(tones)) {
      for (const [speaker, tone] of Object.entries(tones)) {
        expect(hears(outputs.get(listener), tone), `${listener} hears ${speaker}`).toBe(
          listener !== speaker,
        );
      }
      expect(hears(outputs.get(listener), own)).toBe(false);
    }
  });

  it('a muted participant is heard by nobody but still hears the others', () => {
    const outputs = mixFrames(
      [party('a', 440), party('b', 1000, true), party('c', 1700)],
      conferenceHearing,
      FRAME,
    );
    expect(hears(outputs.get('a'), 1000)).toBe(false);
    expect(hears(outputs.get('c'), 1000)).toBe(false);
    expect(hears(outputs.get('a'), 1700)).toBe(true);
    expect(hears(outputs.get('b'), 440)).toBe(true);
    expect(hears(outputs.get('b'), 1700)).toBe(true);
  });

  it('saturates the sum to 16 bits', () => {
    const loud = (id: string, value: number): MixInput => ({
      id,
      muted: false,
      frame: new Int16Array(4).fill(value),
    });
    const outputs = mixFrames(
      [loud('a', 30_000), loud('b', 30_000), loud('c', -30_000), loud('d', -30_000)],
      conferenceHearing,
      4,
    );
    // a hears b + c + d = -30000; c hears a + b + d = 30000; a pair of equal signs would overflow:
    expect(outputs.get('a')).toEqual(new Int16Array(4).fill(-30_000));
    const twoLoud = mixFrames(
      [loud('a', 30_000), loud('b', 30_000), loud('c', 30_000)],
      conferenceHearing,
      4,
    );
    expect(twoLoud.get('a')).toEqual(new Int16Array(4).fill(32_767));
    const twoNegative = mixFrames(
      [loud('a', -30_000), loud('b', -30_000), loud('c', -30_000)],
      conferenceHearing,
      4,
    );
    expect(twoNegative.get('a')).toEqual(new Int16Array(4).fill(-32_768));
  });

  it('gives silence to a participant who hears nobody, and treats a missing frame as silence', () => {
    const outputs = mixFrames(
      [party('a', 440), { id: 'b', muted: false, frame: undefined }],
      conferenceHearing,
      FRAME,
    );
    expect(outputs.get('a')).toEqual(new Int16Array(FRAME));
    expect(hears(outputs.get('b'), 440)).toBe(true);
    expect(mixFrames([party('alone', 440)], conferenceHearing, FRAME).get('alone')).toEqual(
      new Int16Array(FRAME),
    );
  });

  it('follows the hearing rule it is given', () => {
    // Only "coach" hears "agent"; everybody else hears nobody.
    const coachHearsAgent: HearingRule = (listener, speaker) =>
      listener.id === 'coach' && speaker.id === 'agent';
    const outputs = mixFrames(
      [party('agent', 440), party('coach', 1000), party('customer', 1700)],
      coachHearsAgent,
      FRAME,
    );
    expect(hears(outputs.get('coach'), 440)).toBe(true);
    expect(outputs.get('customer')).toEqual(new Int16Array(FRAME));
    expect(outputs.get('agent')).toEqual(new Int16Array(FRAME));
  });
});

/**
 * The call's roles on synthetic PCM: every participant speaks its own tone, and Goertzel tells
 * which tones reach each output. Tones as in the browser tests: agent 1000 Hz, lead 440 Hz,
 * supervisor 1500 Hz, second agent 700 Hz.
 */
describe('roleHearing: who hears whom, by role', () => {
  const TONES = { agent: 1000, lead: 440, supervisor: 1500, second: 700 } as const;
  const member = (id: string, role: MixRole, frequencyHz: number, muted = false): MixInput => ({
    ...party(id, frequencyHz, muted),
    role,
  });
  /** Which of the call's tones `id` hears. */
  const heardBy = (outputs: Map<string, Int16Array>, id: string): number[] =>
    [...Object.values(TONES), ...HOLD_MUSIC.notesHz.slice(0, 3)].filter(
      (tone) => toneShare(outputs.get(id) ?? new Int16Array(0), tone, SAMPLE_RATE_HZ) > 0.1,
    );
  const call = (supervisorRole: MixRole, held = false, extra: MixInput[] = []) =>
    mixFrames(
      [
        member('agent', 'agent', TONES.agent),
        member('lead', 'lead', TONES.lead),
        member('supervisor', supervisorRole, TONES.supervisor),
        member('recording', 'recorder', 0),
        ...extra,
      ].map((input) => (input.role === 'recorder' ? { ...input, frame: undefined } : input)),
      roleHearing(held),
      FRAME,
    );

  it('agent and lead: each hears the other, never itself; the recording has both', () => {
    const outputs = mixFrames(
      [
        member('agent', 'agent', TONES.agent),
        member('lead', 'lead', TONES.lead),
        { id: 'recording', role: 'recorder', muted: false, frame: undefined },
      ],
      roleHearing(false),
      FRAME,
    );
    expect(heardBy(outputs, 'agent')).toEqual([TONES.lead]);
    expect(heardBy(outputs, 'lead')).toEqual([TONES.agent]);
    expect(heardBy(outputs, 'recording')).toEqual([TONES.agent, TONES.lead]);
  });

  it('conference: a second agent hears both and is heard by both', () => {
    const outputs = call('agent', false, [member('second', 'conference', TONES.second)]);
    expect(heardBy(outputs, 'second')).toEqual([TONES.agent, TONES.lead, TONES.supervisor]);
    expect(heardBy(outputs, 'agent')).toContain(TONES.second);
    expect(heardBy(outputs, 'lead')).toContain(TONES.second);
    expect(heardBy(outputs, 'recording')).toContain(TONES.second);
  });

  it('barge: the supervisor hears everyone and everyone hears the supervisor', () => {
    const outputs = call('barge');
    expect(heardBy(outputs, 'supervisor')).toEqual([TONES.agent, TONES.lead]);
    expect(heardBy(outputs, 'agent')).toEqual([TONES.lead, TONES.supervisor]);
    expect(heardBy(outputs, 'lead')).toEqual([TONES.agent, TONES.supervisor]);
    expect(heardBy(outputs, 'recording')).toEqual([TONES.agent, TONES.lead, TONES.supervisor]);
  });

  it('listen: the supervisor hears everyone; nobody hears the supervisor, muted or not', () => {
    const outputs = call('listen');
    expect(heardBy(outputs, 'supervisor')).toEqual([TONES.agent, TONES.lead]);
    expect(heardBy(outputs, 'agent')).toEqual([TONES.lead]);
    expect(heardBy(outputs, 'lead')).toEqual([TONES.agent]);
    expect(heardBy(outputs, 'recording')).toEqual([TONES.agent, TONES.lead]);
  });

  it('whisper: only the coached agent hears the supervisor, never the lead or the recording', () => {
    const outputs = call('whisper', false, [member('second', 'conference', TONES.second)]);
    expect(heardBy(outputs, 'supervisor')).toEqual([TONES.agent, TONES.lead, TONES.second]);
    expect(heardBy(outputs, 'agent')).toEqual([TONES.lead, TONES.supervisor, TONES.second]);
    expect(heardBy(outputs, 'lead')).toEqual([TONES.agent, TONES.second]);
    expect(heardBy(outputs, 'second')).toEqual([TONES.agent, TONES.lead]);
    expect(heardBy(outputs, 'recording')).toEqual([TONES.agent, TONES.lead, TONES.second]);
  });

  it('hold: the lead hears only the music; nobody hears the lead; the others still talk', () => {
    const music: MixInput = {
      id: 'music',
      role: 'music',
      muted: false,
      frame: new MelodySource(HOLD_MUSIC.notesHz, HOLD_MUSIC.noteMs, HOLD_MUSIC.dbfs).fill(
        new Int16Array(FRAME * 10),
      ),
    };
    // Ten frames' worth, so the melody's first three notes all sound.
    const long = (input: MixInput): MixInput => ({
      ...input,
      frame: generateTone(
        { frequencyHz: TONES[input.id as keyof typeof TONES], dbfs: -20, sampleRateHz: 8000 },
        FRAME * 10,
      ),
    });
    const inputs = [
      long(member('agent', 'agent', TONES.agent)),
      long(member('lead', 'lead', TONES.lead)),
      long(member('supervisor', 'barge', TONES.supervisor)),
      { id: 'recording', role: 'recorder' as const, muted: false, frame: undefined },
      music,
    ];
    const held = mixFrames(inputs, roleHearing(true), FRAME * 10);
    // The lead hears exactly the melody, note after note (250 ms = 2000 samples each).
    const leadHeard = held.get('lead') ?? new Int16Array(0);
    expect(leadHeard).toEqual(music.frame);
    const notes = [0, 1, 2, 3].map((i) =>
      HOLD_MUSIC.notesHz.find(
        (note) =>
          toneShare(leadHeard.subarray(i * 2000 + 200, (i + 1) * 2000 - 200), note, 8000) > 0.8,
      ),
    );
    expect(notes).toEqual([...HOLD_MUSIC.notesHz]);
    // Everyone else hears exactly what they heard before, minus the lead: no music.
    expect(
      toneShare(held.get('agent') ?? new Int16Array(0), TONES.supervisor, 8000),
    ).toBeGreaterThan(0.99);
    expect(
      toneShare(held.get('supervisor') ?? new Int16Array(0), TONES.agent, 8000),
    ).toBeGreaterThan(0.99);
    expect(heardBy(held, 'recording')).toEqual([TONES.agent, TONES.supervisor]);
    // Off hold the music is nobody's and the lead is back.
    const unheld = mixFrames(inputs, roleHearing(false), FRAME * 10);
    expect(heardBy(unheld, 'lead')).toEqual([TONES.agent, TONES.supervisor]);
    expect(heardBy(unheld, 'agent')).toEqual([TONES.lead, TONES.supervisor]);
  });

  it('hold with a supervisor listening and a coach whispering: nobody hears the lead or the music but the lead', () => {
    const coach = 700;
    const held = mixFrames(
      [
        member('agent', 'agent', TONES.agent),
        member('lead', 'lead', TONES.lead),
        member('supervisor', 'listen', TONES.supervisor),
        member('coach', 'whisper', coach),
        { id: 'recording', role: 'recorder', muted: false, frame: undefined },
        {
          id: 'music',
          role: 'music',
          muted: false,
          frame: new MelodySource(HOLD_MUSIC.notesHz, HOLD_MUSIC.noteMs, HOLD_MUSIC.dbfs).fill(
            new Int16Array(FRAME),
          ),
        },
      ],
      roleHearing(true),
      FRAME,
    );
    expect(heardBy(held, 'lead')).toEqual([HOLD_MUSIC.notesHz[0]]);
    expect(heardBy(held, 'agent')).toEqual([coach]);
    expect(heardBy(held, 'supervisor')).toEqual([TONES.agent]);
    expect(heardBy(held, 'coach')).toEqual([TONES.agent]);
    expect(heardBy(held, 'recording')).toEqual([TONES.agent]);
  });

  it('listen, muted or not: the supervisor is never mixed, and still hears everyone', () => {
    for (const muted of [false, true]) {
      const outputs = mixFrames(
        [
          member('agent', 'agent', TONES.agent),
          member('lead', 'lead', TONES.lead),
          member('supervisor', 'listen', TONES.supervisor, muted),
          { id: 'recording', role: 'recorder', muted: false, frame: undefined },
        ],
        roleHearing(false),
        FRAME,
      );
      expect(heardBy(outputs, 'supervisor'), `muted: ${muted}`).toEqual([TONES.agent, TONES.lead]);
      for (const id of ['agent', 'lead', 'recording'])
        expect(heardBy(outputs, id), `${id}, muted: ${muted}`).not.toContain(TONES.supervisor);
    }
  });

  it('mute: a muted participant of any role is heard by no one but still hears', () => {
    for (const role of ['agent', 'lead', 'conference', 'barge', 'whisper'] as const) {
      const outputs = mixFrames(
        [
          member('muted', role, TONES.supervisor, true),
          member('agent', 'agent', TONES.agent),
          member('lead', 'lead', TONES.lead),
        ],
        roleHearing(false),
        FRAME,
      );
      expect(heardBy(outputs, 'agent'), role).toEqual([TONES.lead]);
      expect(heardBy(outputs, 'lead'), role).toEqual([TONES.agent]);
      expect(heardBy(outputs, 'muted'), role).toEqual([TONES.agent, TONES.lead]);
    }
  });
});
