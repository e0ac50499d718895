import { describe, expect, it } from 'vitest';
import { rmsDbfs } from './samples';
import { generateTone, ToneGenerator } from './tone';

describe('tone generation', () => {
  it('generates the requested level', () => {
    const tone = generateTone({ frequencyHz: 440, dbfs: -10, sampleRateHz: 8000 }, 8000);
    expect(rmsDbfs(tone)).toBeCloseTo(-10, 1);
    expect(Math.max(...tone)).toBeCloseTo(32_767 * 10 ** (-10 / 20), -1);
  });

  it('continues the phase across frames', () => {
    const whole = generateTone({ frequencyHz: 440, sampleRateHz: 8000 }, 480);
    const generator = new ToneGenerator({ frequencyHz: 440, sampleRateHz: 8000 });
    const framed = new Int16Array(480);
    for (let start = 0; start < 480; start += 160)
      framed.set(generator.fill(new Int16Array(160)), start);
    for (let i = 0; i < 480; i++)
      expect(Math.abs((framed[i] ?? 0) - (whole[i] ?? 0))).toBeLessThanOrEqual(1);
  });

  it('reports silence as -Infinity dBFS', () => {
    expect(rmsDbfs(new Int16Array(10))).toBe(-Infinity);
    expect(rmsDbfs([])).toBe(-Infinity);
  });
});
