import { describe, expect, it } from 'vitest';
import {
  decodeMuLaw,
  decodeMuLawSample,
  encodeMuLaw,
  encodeMuLawSample,
  MU_LAW_SILENCE,
} from './mu-law';

describe('µ-law codec', () => {
  it.each([
    // [linear, code]: reference values of ITU-T G.711 µ-law (inverted code words).
    [0, 0xff],
    [-1, 0x7f],
    [1, 0xff],
    [8, 0xfe],
    [-8, 0x7e],
    [100, 0xf2],
    [1000, 0xce],
    [-1000, 0x4e],
    [8031, 0xa0],
    [32_124, 0x80],
    [32_767, 0x80],
    [-32_768, 0x00],
  ])('encodes %i as 0x%s', (linear, code) => {
    expect(encodeMuLawSample(linear)).toBe(code);
  });

  it.each([
    [0xff, 0],
    [0x7f, 0],
    [0x80, 32_124],
    [0x00, -32_124],
    [0xfe, 8],
    [0xf0, 120],
    [0xce, 988],
    [0x4e, -988],
  ])('decodes 0x%s as %i', (code, linear) => {
    expect(decodeMuLawSample(code)).toBe(linear);
  });

  it('decodes every code word back to itself', () => {
    for (let code = 0; code < 256; code++) {
      const linear = decodeMuLawSample(code);
      // 0x7f is "negative zero", which encodes as positive zero.
      expect(encodeMuLawSample(linear)).toBe(code === 0x7f ? 0xff : code);
    }
  });

  it('keeps the round-trip error within half a quantisation step for every 16-bit sample', () => {
    let worstRelative = 0;
    for (let sample = -32_124; sample <= 32_124; sample++) {
      const code = encodeMuLawSample(sample);
      const error = Math.abs(decodeMuLawSample(code) - sample);
      // The step doubles per segment (exponent): 8 in the first segment, 1024 in the last.
      const segment = (~code >> 4) & 0x07;
      expect(error).toBeLessThanOrEqual(4 << segment);
      if (Math.abs(sample) >= 1024)
        worstRelative = Math.max(worstRelative, error / Math.abs(sample));
    }
    // About 5 bits of precision: a few percent at every level above the first segments.
    expect(worstRelative).toBeLessThan(0.035);
  });

  it('clips beyond the top segment and stays monotonic', () => {
    let previous = -Infinity;
    for (let sample = -32_768; sample <= 32_767; sample += 7) {
      const decoded = decodeMuLawSample(encodeMuLawSample(sample));
      expect(decoded).toBeGreaterThanOrEqual(previous);
      previous = decoded;
    }
    expect(decodeMuLawSample(encodeMuLawSample(32_767))).toBe(32_124);
  });

  it('encodes and decodes whole frames', () => {
    const frame = Int16Array.from({ length: 160 }, (_, i) => Math.round(10_000 * Math.sin(i / 3)));
    const encoded = encodeMuLaw(frame);
    expect(encoded).toHaveLength(160);
    const decoded = decodeMuLaw(encoded);
    for (let i = 0; i < frame.length; i++) {
      const sample = frame[i] ?? 0;
      expect(Math.abs((decoded[i] ?? 0) - sample)).toBeLessThanOrEqual(
        Math.max(4, Math.abs(sample) / 16),
      );
    }
    expect(encodeMuLaw(new Int16Array(4))).toEqual(
      Uint8Array.of(MU_LAW_SILENCE, MU_LAW_SILENCE, MU_LAW_SILENCE, MU_LAW_SILENCE),
    );
  });
});
