import { describe, expect, it } from 'vitest';
import { ErrorLog } from './error-log';

function logAt(startMs: number, maxLines?: number) {
  let now = startMs;
  const sunk: string[] = [];
  const log = new ErrorLog(
    { now: () => now },
    { info: () => undefined, error: (message) => sunk.push(message) },
    maxLines,
  );
  return { log, sunk, advance: (ms: number) => (now += ms) };
}

describe('ErrorLog', () => {
  it('stamps each line with the injected clock, oldest first, and writes it to the sink too', () => {
    const { log, sunk, advance } = logAt(Date.UTC(2026, 10, 26, 9, 30, 0));
    log.write('first');
    advance(1500);
    log.write('second');
    expect(log.getSnapshot()).toEqual([
      '[2026-11-26T09:30:00.000Z] first',
      '[2026-11-26T09:30:01.500Z] second',
    ]);
    expect(sunk).toEqual(log.getSnapshot());
  });

  it('tells subscribers of every write with a new array, and keeps the array between writes', () => {
    const { log } = logAt(0);
    const seen: (readonly string[])[] = [];
    const unsubscribe = log.subscribe(() => seen.push(log.getSnapshot()));
    const empty = log.getSnapshot();
    expect(log.getSnapshot()).toBe(empty);
    log.write('one');
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(empty);
    expect(log.getSnapshot()).toBe(seen[0]);
    unsubscribe();
    log.write('two');
    expect(seen).toHaveLength(1);
  });

  it('keeps only the newest lines', () => {
    const { log } = logAt(0, 3);
    for (const n of [1, 2, 3, 4, 5]) log.write(`line ${n}`);
    expect(log.getSnapshot().map((line) => line.replace(/^\[[^\]]+\] /, ''))).toEqual([
      'line 3',
      'line 4',
      'line 5',
    ]);
  });
});
