import { describe, expect, it } from 'vitest';
import { goertzelPower, meanSquare, toneShare } from './goertzel';
import { generateTone } from './tone';

const RATE = 8000;

function mix(...signals: Int16Array[]): Int16Array {
  const out = new Int16Array(signals[0]?.length ?? 0);
  for (const signal of signals)
    for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) + (signal[i] ?? 0);
  return out;
}

describe('goertzelPower', () => {
  it('measures A²/4 for a sine of amplitude A at the probed frequency', () => {
    const tone = Float64Array.from(
      { length: 8000 },
      (_, i) => 1000 * Math.sin((2 * Math.PI * 1000 * i) / RATE),
    );
    expect(goertzelPower(tone, 1000, RATE)).toBeCloseTo(250_000, -3);
  });

  it('finds next to nothing at a frequency that is absent', () => {
    const tone = generateTone({ frequencyHz: 440, sampleRateHz: RATE }, 8000);
    expect(goertzelPower(tone, 1000, RATE)).toBeLessThan(goertzelPower(tone, 440, RATE) / 10_000);
  });

  it('gives 0 for no samples and for silence', () => {
    expect(goertzelPower([], 440, RATE)).toBe(0);
    expect(goertzelPower(new Int16Array(160), 440, RATE)).toBe(0);
  });
});

describe('toneShare', () => {
  it('is about 1 for a pure tone and about 0 for an absent one', () => {
    const tone = generateTone({ frequencyHz: 440, sampleRateHz: RATE }, 4000);
    expect(toneShare(tone, 440, RATE)).toBeGreaterThan(0.95);
    expect(toneShare(tone, 1000, RATE)).toBeLessThan(0.01);
  });

  it('splits the power between two tones of the same level', () => {
    const both = mix(
      generateTone({ frequencyHz: 440, dbfs: -12, sampleRateHz: RATE }, 4000),
      generateTone({ frequencyHz: 1000, dbfs: -12, sampleRateHz: RATE }, 4000),
    );
    expect(toneShare(both, 440, RATE)).toBeCloseTo(0.5, 1);
    expect(toneShare(both, 1000, RATE)).toBeCloseTo(0.5, 1);
    expect(toneShare(both, 700, RATE)).toBeLessThan(0.01);
  });

  it('is 0 for silence', () => {
    expect(toneShare(new Int16Array(800), 440, RATE)).toBe(0);
    expect(meanSquare([])).toBe(0);
  });
});

describe('toneShare of tones as they arrive over a network', () => {
  /** A 1000 Hz tone whose amplitude falls as `amplitude(t)` (t in seconds). */
  const shaped = (seconds: number, amplitude: (t: number) => number, phase = (_t: number) => 0) =>
    Int16Array.from({ length: seconds * RATE }, (_, i) => {
      const t = i / RATE;
      return Math.round(amplitude(t) * Math.sin(2 * Math.PI * 1000 * t + phase(t)));
    });

  // What a fake microphone's tone sounds like through Chromium's automatic gain control: loud at
  // first, settling ~20 dB lower within two seconds (measured in e2e recordings).
  const agc = shaped(3, (t) => 18_000 * Math.exp(-1.3 * Math.min(t, 2)));

  it('counts a tone whole while its level settles', () => {
    expect(toneShare(agc, 1000, RATE)).toBeGreaterThan(0.95);
    expect(toneShare(agc, 440, RATE)).toBeLessThan(0.01);
  });

  it('where one Goertzel over the whole stretch sees it as only partly there', () => {
    const coherent = (2 * goertzelPower(agc, 1000, RATE)) / meanSquare(agc);
    expect(coherent).toBeLessThan(0.7);
  });

  it('counts a tone whole across a phase jump', () => {
    const jumped = shaped(
      2,
      () => 8000,
      (t) => (t >= 1 ? Math.PI : 0),
    );
    expect((2 * goertzelPower(jumped, 1000, RATE)) / meanSquare(jumped)).toBeLessThan(0.05);
    expect(toneShare(jumped, 1000, RATE)).toBeGreaterThan(0.95);
  });

  it('measures a stretch shorter than one window as one window', () => {
    const short = generateTone({ frequencyHz: 1000, sampleRateHz: RATE }, 200);
    expect(toneShare(short, 1000, RATE)).toBeGreaterThan(0.95);
    expect(toneShare(short.subarray(0, 1), 1000, RATE)).toBeGreaterThanOrEqual(0);
  });
});
