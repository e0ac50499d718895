/**
 * How busy the machine was apart from the benchmark: the load average before a run (the
 * 1-minute figure above {@link BUSY_LOAD} marks the run, or refuses it with
 * `BENCH_REFUSE_BUSY=1`), and, over a measured window, the CPU every process on the machine used
 * (`/proc/stat`) less what the benchmark's own processes used: work of others sharing the cores.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { round } from './stats';

/** Clock ticks per second of /proc/stat (100 on Linux). */
const CLK_TCK = 100;

/** A 1-minute load average above this when a run starts: the machine was not idle. */
export const BUSY_LOAD = 0.5;

/**
 * Other work in a window above this share of one core (0..1) marks the window's figures as
 * taken on a busy machine.
 */
export const BUSY_FOREIGN_SHARE = 0.15;

/** CPU time all cores spent on any process since boot (ms): user, nice, system, irq, softirq, steal. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / CLK_TCK;
}

/** The load average now, and whether it says the machine is busy. */
export function loadNow(): { values: number[]; busy: boolean } {
  const values = loadavg().map((v) => round(v, 2));
  return { values, busy: values[0]! > BUSY_LOAD };
}

/**
 * Stops the process (exit 3) when `BENCH_REFUSE_BUSY=1` and the machine is busy now; otherwise
 * returns the load average, to be printed with the figures.
 */
export function refuseIfBusy(what: string): { values: number[]; busy: boolean } {
  const load = loadNow();
  if (load.busy && process.env.BENCH_REFUSE_BUSY === '1') {
    console.error(
      `${what}: refused, the machine is busy (load average ${load.values.join(' / ')}, above ${BUSY_LOAD}); run it again when it is idle, or without BENCH_REFUSE_BUSY=1 to mark the figures instead.`,
    );
    process.exit(3);
  }
  return load;
}

/** The sentence of a section about the load average at the start and end of its run. */
export function loadSentence(start: number[], end: number[]): string {
  const busy = start[0]! > BUSY_LOAD;
  return `Load average (1 / 5 / 15 min) ${start.join(' / ')} at the start, ${end.join(' / ')} at the end${busy ? `: **the machine was not idle when the run began** (above ${BUSY_LOAD}), so the figures may be higher and noisier than on an idle machine` : ''} (the end is mostly the run's own work).`;
}

/** A window of machine CPU: call `end(ownMs)` with what the benchmark's processes used in it. */
export function foreignCpuWindow(): {
  end(ownMs: number): { foreignShare: number; windowMs: number };
} {
  const startedAt = performance.now();
  const busyAt = machineBusyMs();
  return {
    end(ownMs) {
      const windowMs = performance.now() - startedAt;
      const foreignMs = Math.max(0, machineBusyMs() - busyAt - ownMs);
      return { foreignShare: windowMs > 0 ? foreignMs / windowMs : 0, windowMs };
    },
  };
}
