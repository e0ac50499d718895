import { describe, expect, it } from 'vitest';
import { generateTone } from './tone';
import { SILENCE_DB, toneLevelsDb } from './tone-levels';

function mix(...signals: Int16Array[]): Int16Array {
  const out = new Int16Array(signals[0]?.length ?? 0);
  for (const signal of signals)
    for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) + (signal[i] ?? 0);
  return out;
}

describe('toneLevelsDb', () => {
  it('reads each tone of a mix at its own level, and next to nothing elsewhere', () => {
    const samples = mix(
      generateTone({ frequencyHz: 440, sampleRateHz: 8000, dbfs: -10 }, 8000),
      generateTone({ frequencyHz: 1000, sampleRateHz: 8000, dbfs: -26 }, 8000),
    );
    const [at440, at1000, at1500, at700] = toneLevelsDb(samples, 8000, [440, 1000, 1500, 700]);
    expect(at440).toBeCloseTo(-10, 0);
    expect(at1000).toBeCloseTo(-26, 0);
    expect(at1500).toBeLessThan(-80);
    expect(at700).toBeLessThan(-80);
  });

  it('tolerates a tone a few hertz off, and float samples with their own full scale', () => {
    const samples = Float32Array.from(
      { length: 48_000 },
      (_, i) => 0.1 * Math.sin((2 * Math.PI * 1503 * i) / 48_000),
    );
    const [level] = toneLevelsDb(samples, 48_000, [1500], { fullScale: 1 });
    expect(level).toBeGreaterThan(-21);
    expect(level).toBeLessThan(-19);
  });

  it('reads silence, and too few samples, as SILENCE_DB', () => {
    expect(toneLevelsDb(new Int16Array(8000), 8000, [440])).toEqual([SILENCE_DB]);
    expect(toneLevelsDb(new Int16Array(10), 8000, [440])).toEqual([SILENCE_DB]);
  });
});
