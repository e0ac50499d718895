import { describe, expect, it } from 'vitest';
import { fftInPlace } from './fft';

describe('fftInPlace', () => {
  it('matches a direct DFT', () => {
    const n = 16;
    const input = Array.from({ length: n }, (_, i) => Math.sin(i) + 0.5 * Math.cos(3 * i));
    const re = Float64Array.from(input);
    const im = new Float64Array(n);
    fftInPlace(re, im);
    for (let k = 0; k < n; k++) {
      let sumRe = 0;
      let sumIm = 0;
      input.forEach((x, t) => {
        sumRe += x * Math.cos((-2 * Math.PI * k * t) / n);
        sumIm += x * Math.sin((-2 * Math.PI * k * t) / n);
      });
      expect(re[k]).toBeCloseTo(sumRe, 9);
      expect(im[k]).toBeCloseTo(sumIm, 9);
    }
  });

  it('rejects sizes that are not powers of two', () => {
    expect(() => fftInPlace(new Float64Array(12), new Float64Array(12))).toThrow(RangeError);
  });
});
