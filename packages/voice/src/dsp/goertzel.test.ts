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
