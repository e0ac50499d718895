import { describe, expect, it } from 'vitest';
import { computeMos } from './mos';

describe('MOS by the E-model', () => {
  it('is about 4.4 for a clean call and falls with latency, jitter and loss', () => {
    // Worked by hand: latency 10 ms → R = 94.768 − 10/40 = 94.518;
    // MOS = 1 + 0.035·R + 7e-6·R·(R − 60)·(100 − R) = 4.4330…
    expect(computeMos(0, 0, 0)).toBeCloseTo(4.433, 3);
    expect(computeMos(100, 10, 0)!).toBeCloseTo(4.3744, 3); // latency 130 → R = 91.518
    // latency 420 ms → R = 94.768 − 30 = 64.768 → 3.3430
    expect(computeMos(390, 10, 0)!).toBeCloseTo(3.343, 3);
    // 10 % loss on a clean path: R = 94.518 − 25 = 69.518 → 3.5743
    expect(computeMos(0, 0, 10)!).toBeCloseTo(3.5743, 3);
    expect(computeMos(2000, 0, 0)).toBeCloseTo(1, 3);
    expect(computeMos(50, 5, 100)).toBeCloseTo(1, 1);
  });

  it('is null without every input', () => {
    expect(computeMos(null, 1, 0)).toBeNull();
    expect(computeMos(1, undefined, 0)).toBeNull();
    expect(computeMos(1, 1, -1)).toBeNull();
    expect(computeMos(Number.NaN, 1, 0)).toBeNull();
  });
});
