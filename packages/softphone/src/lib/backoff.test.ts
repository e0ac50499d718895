import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff';

describe('Backoff', () => {
  it('grows by the factor up to the maximum, without jitter', () => {
    const b = new Backoff({ minMs: 100, maxMs: 10_000, factor: 2, jitter: 0 });
    expect(Array.from({ length: 9 }, () => b.next())).toEqual([
      100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000,
    ]);
    b.reset();
    expect(b.next()).toBe(100);
  });

  it('spreads each delay by at most jitter × delay', () => {
    const low = new Backoff({ minMs: 100, maxMs: 10_000, factor: 2, jitter: 1 }, () => 0);
    const high = new Backoff({ minMs: 100, maxMs: 10_000, factor: 2, jitter: 1 }, () => 0.999999);
    expect([low.next(), low.next()]).toEqual([0, 0]);
    expect([high.next(), high.next()]).toEqual([200, 400]);
  });

  it('follows the media reconnect policy (min 1, max 30,000, factor 1.1, jitter 0.5)', () => {
    const b = new Backoff({ minMs: 1, maxMs: 30_000, factor: 1.1, jitter: 0.5 }, () => 0.5);
    const delays = Array.from({ length: 200 }, () => b.next());
    expect(delays[0]).toBe(1);
    expect(Math.max(...delays)).toBe(30_000);
  });
});
