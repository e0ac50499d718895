/**
 * One step of the capacity bench: a fresh server with N legs on it. Starts the server on core 0,
 * the load generator (one process, or two when N is over `legsPerLoadProcess`) on the load cores
 * at nice -10 (where allowed) so its timestamps measure the server, not its own waits; once every
 * process has its calls up it signals all to go (SIGUSR2), so they measure the same window, and the server's
 * CPU is read from /proc over that window. Every child is stopped at the end of the step, and by
 * `stopAll` on a signal or error.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { canPin, startOnCore, stopChild } from '../lib/processes';
import type { Pacing } from '../lib/pacing';
import { startServer, type Server, type System } from './servers';

export interface Settings {
  windowMs: number;
  warmupMs: number;
  legsPerLoadProcess: number;
  thresholdMs: number;
}

/** What a load process reports (load-client.ts `result`). */
interface ClientResult extends Pacing {
  legs: number;
  up: number;
  client: { cpuPercent: number; loopDelayP99Ms: number; loopDelayMaxMs: number };
}

export interface StepResult {
  system: System;
  legs: number;
  up: number;
  /** Pacing over all load processes: quantiles are the worst process's. */
  pacing: Pacing;
  /** Server process CPU over the window, % of one core. */
  serverCpuPercent: number;
  /** Load processes' CPU over the window, summed, % of one core. */
  clientCpuPercent: number;
  clientLoopDelayP99Ms: number;
  loadProcesses: number;
  /** Leg setup: first socket to the last call up, ms. */
  setupMs: number;
  /** The window on the monotonic clock (µs), for profiles. */
  window: { startUs: number; endUs: number };
  pass: boolean;
  /** The load generator's CPU was at or near a whole core: it may bound this step. */
  loadBound: boolean;
  /** This is the second try of the step (the first failed with the load generator running late). */
  retried?: boolean;
  /** Why calls were not set up: each reason with its count of calls. */
  error?: string;
}

const SETUP_TIMEOUT_MS = 15_000;
/** Calls setting up at a time per load process (24 legs, as the engine bench's 25). */
const CONCURRENCY = 12;
const CLIENT_NICE = -10;
const CLK_TCK = 100;
const LOAD_BOUND_PERCENT = 90;

/** Every child process and server alive, for `stopAll`. */
const live = new Set<() => Promise<void>>();

/** Stops every child process and server still running. */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...live].map((stop) => stop()));
  live.clear();
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Cores for the load processes: every core but the server's (core 1 on two cores). */
const loadCores = (): number[] => {
  const n = cpus().length;
  return canPin && n > 1 ? Array.from({ length: n - 1 }, (_, i) => i + 1) : [1];
};

/** A load process: its child, and its `connected` and `result` lines as they come. */
function startLoad(
  server: Server,
  system: System,
  core: number,
  calls: number,
  firstCall: number,
  settings: Settings,
) {
  const child: ChildProcess = startOnCore(
    core,
    ['--import', 'tsx', 'capacity/load-client.ts'],
    {
      SYSTEM: system,
      URL: server.url,
      ...(server.http ? { HTTP: server.http } : {}),
      ...(server.recordDir ? { RECORD: '1', RECORD_DIR: server.recordDir } : {}),
      CALLS: String(calls),
      FIRST_CALL: String(firstCall),
      WARMUP_MS: String(settings.warmupMs),
      WINDOW_MS: String(settings.windowMs),
      SETUP_TIMEOUT_MS: String(SETUP_TIMEOUT_MS),
      CONCURRENCY: String(CONCURRENCY),
    },
    CLIENT_NICE,
  );
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => (errors = (errors + d.toString()).slice(-4000)));
  const lines = new Map<string, (message: Record<string, unknown>) => void>();
  const waitFor = (phase: string) =>
    new Promise<Record<string, unknown>>((resolve) => lines.set(phase, resolve));
  const connected = waitFor('connected');
  const windowStart = waitFor('window-start');
  const windowEnd = waitFor('window-end');
  const result = waitFor('result');
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const message = JSON.parse(line) as { phase: string };
    lines.get(message.phase)?.(message);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = exited.then(() => {
    throw new Error(`a load process exited early: ${errors.slice(-600)}`);
  });
  failed.catch(() => undefined);
  const stop = () => stopChild(child, 5000);
  live.add(stop);
  // Each is awaited in its turn; until then an early exit must not be an unhandled rejection.
  const orFailed = <T>(phase: Promise<T>): Promise<T> => {
    const raced = Promise.race([phase, failed]);
    raced.catch(() => undefined);
    return raced;
  };
  return {
    child,
    connected: orFailed(connected),
    windowStart: orFailed(windowStart),
    windowEnd: orFailed(windowEnd),
    result: orFailed(result) as Promise<unknown> as Promise<ClientResult>,
    go: () => child.kill('SIGUSR2'),
    async stop() {
      await stop();
      live.delete(stop);
    },
  };
}

/** Runs one step: `legs` legs on a fresh `system` server (profiled into `cpuProfDir` if given). */
export async function runStep(
  system: System,
  legs: number,
  settings: Settings,
  cpuProfDir?: string,
): Promise<StepResult> {
  const server = await startServer(system, cpuProfDir);
  live.add(server.stop);
  const calls = Math.max(1, Math.round(legs / 2));
  const processes = Math.max(1, Math.ceil(legs / settings.legsPerLoadProcess));
  const cores = loadCores();
  const loads: Array<ReturnType<typeof startLoad>> = [];
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    let first = 0;
    for (let p = 0; p < processes; p++) {
      const share = Math.floor(calls / processes) + (p < calls % processes ? 1 : 0);
      loads.push(startLoad(server, system, cores[p % cores.length]!, share, first, settings));
      first += share;
    }
    const connected = await Promise.all(loads.map((load) => load.connected));
    const setupMs = Math.max(...connected.map((c) => Number(c.allConnectedMs)));
    const errorCounts = new Map<string, number>();
    for (const c of connected)
      for (const [message, count] of Object.entries((c.errors ?? {}) as Record<string, number>))
        errorCounts.set(message, (errorCounts.get(message) ?? 0) + count);
    const firstError = errorCounts.size
      ? [...errorCounts]
          .sort((a, b) => b[1] - a[1])
          .map(([message, count]) => `${count} calls: ${message}`)
          .join('; ')
      : undefined;
    for (const load of loads) load.go();
    await Promise.all(loads.map((load) => load.windowStart));
    const ticksBefore = cpuTicks(server.pid);
    const startUs = monotonicUs();
    await Promise.all(loads.map((load) => load.windowEnd));
    const endUs = monotonicUs();
    const serverCpuPercent =
      ((cpuTicks(server.pid) - ticksBefore) / CLK_TCK / ((endUs - startUs) / 1e6)) * 100;
    const results = await Promise.all(loads.map((load) => load.result));
    const worst = (pick: (p: Pacing) => number) => Math.max(...results.map(pick));
    const pacing: Pacing = {
      legsReceiving: results.reduce((s, r) => s + r.legsReceiving, 0),
      frames: results.reduce((s, r) => s + r.frames, 0),
      lostFrames: results.reduce((s, r) => s + r.lostFrames, 0),
      interArrivalDeviationMs: {
        p50: worst((p) => p.interArrivalDeviationMs.p50),
        p99: worst((p) => p.interArrivalDeviationMs.p99),
        max: worst((p) => p.interArrivalDeviationMs.max),
      },
      latenessMs: {
        p50: worst((p) => p.latenessMs.p50),
        p99: worst((p) => p.latenessMs.p99),
        max: worst((p) => p.latenessMs.max),
      },
      framesLaterThan60Ms: results.reduce((s, r) => s + r.framesLaterThan60Ms, 0),
    };
    const up = results.reduce((s, r) => s + r.up, 0);
    const clientCpuPercent = results.reduce((s, r) => s + r.client.cpuPercent, 0);
    const allUp = up === calls * 2 && pacing.legsReceiving === up;
    return {
      system,
      legs: calls * 2,
      up,
      pacing,
      serverCpuPercent,
      clientCpuPercent,
      clientLoopDelayP99Ms: Math.max(...results.map((r) => r.client.loopDelayP99Ms)),
      loadProcesses: processes,
      setupMs,
      window: { startUs, endUs },
      pass: allUp && pacing.interArrivalDeviationMs.p99 < settings.thresholdMs,
      loadBound: clientCpuPercent / cores.length >= LOAD_BOUND_PERCENT,
      ...(firstError ? { error: firstError } : {}),
    };
  } finally {
    await Promise.allSettled(loads.map((load) => load.stop()));
    await server.stop();
    live.delete(server.stop);
  }
}
