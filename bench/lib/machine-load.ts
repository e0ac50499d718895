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

/** Steal above this share of the machine's time (0..1) before a run: the host is oversubscribed. */
export const BUSY_STEAL_SHARE = 0.02;

/** The `/proc/stat` totals (ticks): all time, and time stolen by the hypervisor. */
function cpuTotals(): { total: number; steal: number; idle: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1);
  const ticks = fields.map(Number);
  return {
    total: ticks.reduce((sum, n) => sum + n, 0),
    idle: (ticks[3] ?? 0) + (ticks[4] ?? 0),
    steal: ticks[7] ?? 0,
  };
}

/** What decided whether a run could start: the figures a section shows. */
export interface IdleGate {
  idle: boolean;
  /** Load average (1 / 5 / 15 min) when the run was allowed or refused. */
  load: number[];
  /** Share of the machine's time stolen by the hypervisor over the sample before the run. */
  stealShare: number;
  /** Share of the machine's time busy (not idle) over that sample. */
  busyShare: number;
  /** How long the gate waited for the load average to fall (s). */
  waitedS: number;
  /** Why it was refused, in words. */
  reason?: string;
}

/**
 * Waits (up to `maxWaitMs`) for the 1-minute load average to fall to {@link BUSY_LOAD} or below
 * (a benchmark that ran just before leaves its own load to decay), then samples the machine for
 * `sampleMs`: the run may start when the load average is that low and the hypervisor stole at
 * most {@link BUSY_STEAL_SHARE} of the time.
 */
export async function waitForIdle(maxWaitMs = 180_000, sampleMs = 5000): Promise<IdleGate> {
  const started = Date.now();
  while (loadavg()[0]! > BUSY_LOAD && Date.now() - started < maxWaitMs) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  const before = cpuTotals();
  await new Promise((resolve) => setTimeout(resolve, sampleMs));
  const after = cpuTotals();
  const total = Math.max(1, after.total - before.total);
  const stealShare = (after.steal - before.steal) / total;
  const busyShare = 1 - (after.idle - before.idle) / total;
  const load = loadavg().map((v) => round(v, 2));
  const reasons = [
    ...(load[0]! > BUSY_LOAD ? [`load average ${load[0]} above ${BUSY_LOAD}`] : []),
    ...(stealShare > BUSY_STEAL_SHARE
      ? [`${round(stealShare * 100, 1)} % of the time stolen (above ${BUSY_STEAL_SHARE * 100} %)`]
      : []),
  ];
  return {
    idle: reasons.length === 0,
    load,
    stealShare: round(stealShare, 4),
    busyShare: round(busyShare, 3),
    waitedS: Math.round((Date.now() - started - sampleMs) / 1000),
    ...(reasons.length ? { reason: reasons.join(', ') } : {}),
  };
}
