import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, fullJitterBackoff } from './retry-policy';

describe('DEFAULT_RETRY_POLICY (from 1000 ms, factor 2, at most 30,000 ms, full jitter)', () => {
  // The cap of retry n is min(30000, 1000 × 2^n): 1000, 2000, 4000, 8000, 16000, 30000, 30000…
  it.each([
    [0, 1_000],
    [1, 2_000],
    [2, 4_000],
    [3, 8_000],
    [4, 16_000],
    [5, 30_000],
    [6, 30_000],
    [40, 30_000],
  ])('retry index %i draws between 0 and %i ms', (retryIndex, capMs) => {
    expect(DEFAULT_RETRY_POLICY.delayMs(retryIndex, () => 0)).toBe(0);
    expect(DEFAULT_RETRY_POLICY.delayMs(retryIndex, () => 0.5)).toBe(capMs / 2);
    expect(DEFAULT_RETRY_POLICY.delayMs(retryIndex, () => 0.999_999)).toBe(capMs - 1);
  });

  it('takes one random draw per delay', () => {
    const draws = [0.1, 0.9];
    const random = () => draws.shift() ?? 0;
    expect(DEFAULT_RETRY_POLICY.delayMs(0, random)).toBe(100);
    expect(DEFAULT_RETRY_POLICY.delayMs(0, random)).toBe(900);
  });
});

describe('fullJitterBackoff', () => {
  it('follows its options', () => {
    const policy = fullJitterBackoff({ initialDelayMs: 100, factor: 3, maxDelayMs: 1_000 });
    const caps = [0, 1, 2, 3].map((n) => policy.delayMs(n, () => 0.999_999) + 1);
    expect(caps).toEqual([100, 300, 900, 1_000]);
  });
});
