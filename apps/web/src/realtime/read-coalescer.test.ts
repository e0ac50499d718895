import { describe, expect, it } from 'vitest';
import { FakeClock } from '../test-support/fake-platform';
import { ReadCoalescer, type ReadCoalescerOptions } from './read-coalescer';

const WINDOW_MS = 500;

/** A coalescer on a fake clock whose reads the test ends, counting reads in flight. */
function coalescerUnderTest(options: Partial<ReadCoalescerOptions> = {}) {
  const clock = new FakeClock();
  const reads: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const coalescer = new ReadCoalescer({
    timers: clock,
    windowMs: WINDOW_MS,
    read: () =>
      new Promise<void>((resolve, reject) => {
        inFlight += 1;
        mostAtOnce = Math.max(mostAtOnce, inFlight);
        const end = () => (inFlight -= 1);
        reads.push({
          resolve: () => (end(), resolve()),
          reject: (error) => (end(), reject(error)),
        });
      }),
    ...options,
  });
  /** Runs every promise callback due (a read's end reaches the coalescer): one macrotask. */
  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  return { clock, reads, coalescer, settle, mostAtOnce: () => mostAtOnce };
}

describe('ReadCoalescer', () => {
  it('reads once for a burst of requests, a window after the first', () => {
    const { clock, reads, coalescer } = coalescerUnderTest();
    coalescer.request();
    clock.tick(200);
    coalescer.request();
    coalescer.request();
    clock.tick(WINDOW_MS - 201);
    expect(reads).toHaveLength(0);
    expect(coalescer.state).toBe('waiting');
    clock.tick(1);
    expect(reads).toHaveLength(1);
    expect(coalescer.state).toBe('reading');
  });

  it('reads nothing more after a read when nothing was asked during it', async () => {
    const { clock, reads, coalescer, settle } = coalescerUnderTest();
    coalescer.request();
    clock.tick(WINDOW_MS);
    reads[0]!.resolve();
    await settle();
    expect(coalescer.state).toBe('idle');
    clock.tick(10 * WINDOW_MS);
    expect(reads).toHaveLength(1);
  });

  it('reads once more after a read during which requests came, a window later, never two at once', async () => {
    const { clock, reads, coalescer, settle, mostAtOnce } = coalescerUnderTest();
    coalescer.request();
    clock.tick(WINDOW_MS);
    coalescer.request();
    coalescer.request();
    expect(coalescer.state).toBe('reading-again');
    clock.tick(10 * WINDOW_MS);
    expect(reads).toHaveLength(1);
    reads[0]!.resolve();
    await settle();
    expect(coalescer.state).toBe('waiting');
    clock.tick(WINDOW_MS - 1);
    expect(reads).toHaveLength(1);
    clock.tick(1);
    expect(reads).toHaveLength(2);
    reads[1]!.resolve();
    await settle();
    expect(coalescer.state).toBe('idle');
    expect(mostAtOnce()).toBe(1);
  });

  it('reports a failed read and reads again on the next request', async () => {
    const errors: unknown[] = [];
    const { clock, reads, coalescer, settle } = coalescerUnderTest({
      onError: (error) => errors.push(error),
    });
    coalescer.request();
    clock.tick(WINDOW_MS);
    reads[0]!.reject(new Error('offline'));
    await settle();
    expect(errors).toEqual([new Error('offline')]);
    expect(coalescer.state).toBe('idle');
    coalescer.request();
    clock.tick(WINDOW_MS);
    expect(reads).toHaveLength(2);
  });

  it('stop forgets a waiting request, and drops the end of a read in flight', async () => {
    const { clock, reads, coalescer, settle } = coalescerUnderTest();
    coalescer.request();
    coalescer.stop();
    clock.tick(10 * WINDOW_MS);
    expect(reads).toHaveLength(0);

    coalescer.request();
    clock.tick(WINDOW_MS);
    coalescer.request();
    coalescer.stop();
    expect(coalescer.state).toBe('idle');
    reads[0]!.resolve();
    await settle();
    // The stopped read's end is not a `done` (nor the request during it a second read).
    expect(coalescer.state).toBe('idle');
    clock.tick(10 * WINDOW_MS);
    expect(reads).toHaveLength(1);
  });
});
