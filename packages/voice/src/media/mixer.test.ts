import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { toneShare } from '../dsp/goertzel';
import { generateTone } from '../dsp/tone';
import { conferenceHearing, mixFrames, type HearingRule, type MixInput } from './mixer';

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
