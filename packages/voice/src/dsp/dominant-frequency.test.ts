import { describe, expect, it } from 'vitest';
import { dominantFrequency } from './dominant-frequency';
import { generateTone } from './tone';

const RATE = 8000;

describe('dominantFrequency', () => {
  it.each([100, 303, 440, 1000, 1633, 2750, 3900])(
    'finds a %i Hz tone within 1 Hz',
    (frequencyHz) => {
      const tone = generateTone({ frequencyHz, sampleRateHz: RATE }, RATE);
      expect(Math.abs((dominantFrequency(tone, RATE) ?? 0) - frequencyHz)).toBeLessThan(1);
    },
  );

  it('finds the louder of two tones', () => {
    const quiet = generateTone({ frequencyHz: 440, dbfs: -30, sampleRateHz: RATE }, RATE);
    const loud = generateTone({ frequencyHz: 1000, dbfs: -10, sampleRateHz: RATE }, RATE);
    const both = quiet.map((sample, i) => sample + (loud[i] ?? 0));
    expect(Math.abs((dominantFrequency(both, RATE) ?? 0) - 1000)).toBeLessThan(1);
  });

  it('finds a tone that fills only part of a long recording', () => {
    const recording = new Int16Array(5 * RATE);
    recording.set(generateTone({ frequencyHz: 1000, sampleRateHz: RATE }, RATE), 3 * RATE);
    expect(Math.abs((dominantFrequency(recording, RATE) ?? 0) - 1000)).toBeLessThan(1);
  });

  it('finds a tone in a short frame within the ±5 Hz needed', () => {
    const frame = generateTone({ frequencyHz: 697, sampleRateHz: RATE }, 800);
    expect(Math.abs((dominantFrequency(frame, RATE) ?? 0) - 697)).toBeLessThan(5);
  });

  it('survives noise', () => {
    let seed = 1;
    const random = (): number => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647) * 2 - 1;
    const tone = generateTone({ frequencyHz: 1209, dbfs: -20, sampleRateHz: RATE }, RATE);
    const noisy = tone.map((sample) => sample + Math.round(2000 * random()));
    expect(Math.abs((dominantFrequency(noisy, RATE) ?? 0) - 1209)).toBeLessThan(2);
  });

  it('honours the search range', () => {
    const tone = generateTone({ frequencyHz: 50, sampleRateHz: RATE }, RATE);
    const higher = generateTone({ frequencyHz: 600, dbfs: -30, sampleRateHz: RATE }, RATE);
    const both = tone.map((sample, i) => sample + (higher[i] ?? 0));
    expect(Math.abs((dominantFrequency(both, RATE, { minHz: 100 }) ?? 0) - 600)).toBeLessThan(1);
  });

  it('reports nothing for silence', () => {
    expect(dominantFrequency(new Int16Array(RATE), RATE)).toBeUndefined();
    expect(dominantFrequency([], RATE)).toBeUndefined();
  });
});
