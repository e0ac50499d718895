import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { FramePacer } from './frame-pacer';
import type { Scheduler } from './platform';

function pacer(
  clock: FakeClock,
  scheduler: Scheduler = clock,
  onFrame: () => void = () => undefined,
): { pacer: FramePacer; frames: number[]; errors: unknown[]; skips: number[]; lateness: number[] } {
  const frames: number[] = [];
  const errors: unknown[] = [];
  const skips: number[] = [];
  const lateness: number[] = [];
  const instance = new FramePacer({
    clock,
    scheduler,
    frameMs: 20,
    maxCatchUpFrames: 5,
    onFrame: (latenessMs) => {
      frames.push(clock.now());
      lateness.push(latenessMs);
      onFrame();
    },
    onSkip: (count) => skips.push(count),
    onError: (error) => errors.push(error),
  });
  return { pacer: instance, frames, errors, skips, lateness };
}

describe('FramePacer', () => {
  it('with a phase, runs frames on the grid phase + k × frame, from the first one after start', () => {
    const clock = new FakeClock(1003);
    const frames: number[] = [];
    const loop = new FramePacer({
      clock,
      scheduler: clock,
      frameMs: 20,
      phaseMs: 10,
      maxCatchUpFrames: 2,
      onFrame: () => frames.push(clock.now()),
      onError: () => undefined,
    });
    loop.start();
    clock.advance(6);
    expect(frames).toEqual([]);
    clock.advance(1);
    expect(frames).toEqual([1010]);
    clock.advance(19);
    expect(frames).toEqual([1010]);
    clock.advance(1);
    expect(frames).toEqual([1010, 1030]);
  });

  it.each([
    { phaseMs: -4_000_017, startMs: 0, first: 3 },
    { phaseMs: 123_456_789.5, startMs: 50, first: 69.5 },
    { phaseMs: 40, startMs: 40, first: 60 },
  ])('with phase $phaseMs started at $startMs, the first frame is at $first', (row) => {
    const clock = new FakeClock(row.startMs);
    const frames: number[] = [];
    const loop = new FramePacer({
      clock,
      scheduler: clock,
      frameMs: 20,
      phaseMs: row.phaseMs,
      maxCatchUpFrames: 2,
      onFrame: () => frames.push(clock.now()),
      onError: () => undefined,
    });
    loop.start();
    clock.advance(20);
    expect(frames).toEqual([row.first]);
  });

  it('runs the first frame one period after start, not before', () => {
    const clock = new FakeClock(1000);
    const { pacer: loop, frames } = pacer(clock);
    loop.start();
    clock.advance(19);
    expect(frames).toEqual([]);
    clock.advance(1);
    expect(frames).toEqual([1020]);
  });

  it('keeps a fixed grid when timers fire late (no drift)', () => {
    const clock = new FakeClock(0);
    // Every timer fires 7 ms late, as an event loop under load would.
    const late: Scheduler = { after: (delayMs, callback) => clock.after(delayMs + 7, callback) };
    const { pacer: loop, frames } = pacer(clock, late);
    loop.start();
    clock.advance(10_000);
    // A naive interval would have drifted to ~370 frames; the grid gives one per 20 ms.
    expect(loop.stats.framesRun).toBeGreaterThanOrEqual(499);
    expect(loop.stats.framesRun).toBeLessThanOrEqual(500);
    expect(frames.every((at, i) => at >= 20 * (i + 1))).toBe(true);
  });

  it('catches up after a short stall and skips beyond the catch-up limit', () => {
    const clock = new FakeClock(0);
    // A scheduler whose timer the test fires by hand, at whatever time it likes (a stalled loop).
    let wake: (() => void) | undefined;
    const manual: Scheduler = {
      after: (_delayMs, callback) => {
        wake = callback;
        return () => {
          wake = undefined;
        };
      },
    };
    const fire = (): void => wake?.();
    const { pacer: loop, frames, skips, lateness } = pacer(clock, manual);
    loop.start();
    clock.advance(20);
    fire();
    expect(loop.stats).toEqual({ framesRun: 1, framesSkipped: 0 });
    clock.advance(100); // 100 ms stall: frames due at 40, 60, 80, 100, 120 all run
    fire();
    expect(loop.stats).toEqual({ framesRun: 6, framesSkipped: 0 });
    expect(frames).toHaveLength(6);
    // Each frame is told how late it runs: 80, 60, 40, 20, 0 ms after its due time.
    expect(lateness.slice(1)).toEqual([80, 60, 40, 20, 0]);
    clock.advance(300); // 300 ms stall: 15 frames due; 5 run, 10 skipped (and reported)
    fire();
    expect(loop.stats).toEqual({ framesRun: 11, framesSkipped: 10 });
    expect(skips).toEqual([10]);
    clock.advance(19); // the grid goes on from 440
    fire();
    expect(loop.stats.framesRun).toBe(11);
    clock.advance(1);
    fire();
    expect(loop.stats.framesRun).toBe(12);
  });

  it('stops, and keeps going when a frame throws', () => {
    const clock = new FakeClock(0);
    let calls = 0;
    const { pacer: loop, errors } = pacer(clock, clock, () => {
      calls++;
      if (calls === 2) throw new Error('bad frame');
    });
    loop.start();
    loop.start();
    clock.advance(100);
    expect(calls).toBe(5);
    expect(errors).toHaveLength(1);
    loop.stop();
    expect(loop.running).toBe(false);
    clock.advance(100);
    expect(calls).toBe(5);
    expect(clock.pendingTimers).toBe(0);
  });
});
