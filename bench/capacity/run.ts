/**
 * The engine capacity benchmark (`npx tsx bench/capacity/run.ts`, or `npm run bench --
 * engine-capacity`): server CPU per leg at fixed loads, and legs per core at two pass lines
 * (frame pacing p99 < 5 ms and < 10 ms), our engine next to Janus's AudioBridge measured in the
 * same run, with the same load generator, codec and call shape.
 *
 * Each step starts the server fresh on core 0 (servers.ts), sets N legs up from the load
 * generator on core 1 (load-client.ts: N/2 two-party calls, two werift legs each, PCMU), lets
 * them talk for the warm-up and times every frame the server sends over the window, reading the
 * server's CPU from /proc (step.ts). Every leg count of the ladder runs for both systems in each
 * round, interleaved (rounds.ts); each figure is the median of the rounds with its spread.
 * Last, our engine runs once more under `--cpu-prof` to say where the media workers' JavaScript
 * time goes (profile.ts): at the smallest leg count where it used more CPU per leg than Janus, or
 * else at the middle fixed load.
 *
 * The run starts only on an idle machine: it waits for the load average to fall (a benchmark
 * just before leaves its own load) and samples steal time; on a busy machine it refuses (exit
 * 3), or with `BENCH_ALLOW_BUSY=1` runs and prints the section without publishing it.
 *
 * Environment: `BENCH_CAPACITY_LADDER` (leg counts, `10,20,30,40,60,80,120,160`),
 * `BENCH_CAPACITY_FIXED` (the headline loads, `20,40,80`), `BENCH_CAPACITY_ROUNDS` (3),
 * `BENCH_WINDOW_MS` (10000), `BENCH_WARMUP_MS` (5000), `BENCH_LEGS_PER_LOAD_PROCESS` (300),
 * `BENCH_SYSTEMS` (`ours,janus`), `BENCH_PROFILE=0` (no profile run), `BENCH_WRITE=0` (print
 * the section instead of publishing it), `BENCH_SERVER_FLAGS` (node flags for our engine host).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureJanus, janusConfigNotes, janusVersion } from './janus';
import { readings, summaryRow, type CapacityData, type StepRecord } from './report';
import { cpuRatios, interleavedPlan, profileLegs } from './rounds';
import { runStep, stopAll, type StepResult } from './step';
import { summariseMediaWorkers } from './profile';
import type { System } from './servers';
import { waitForIdle } from '../lib/machine-load';
import { publishSection } from '../lib/sections';
import { machine, recordRow } from '../lib/results';
import { round } from '../lib/stats';

const env = (name: string, fallback: number): number =>
  process.env[name] === undefined ? fallback : Number(process.env[name]);
const list = (name: string, fallback: string): number[] =>
  (process.env[name] ?? fallback).split(',').map(Number);

const fixed = list('BENCH_CAPACITY_FIXED', '20,40,80');
export const settings = {
  ladder: [
    ...new Set([...list('BENCH_CAPACITY_LADDER', '10,20,30,40,60,80,120,160'), ...fixed]),
  ].sort((a, b) => a - b),
  fixed,
  rounds: env('BENCH_CAPACITY_ROUNDS', 3),
  windowMs: env('BENCH_WINDOW_MS', 10_000),
  warmupMs: env('BENCH_WARMUP_MS', 5000),
  legsPerLoadProcess: env('BENCH_LEGS_PER_LOAD_PROCESS', 300),
  /** The pass lines (ms): the issue's, and the engine pacing bench's. */
  lines: [5, 10],
  /** `thresholdMs` of a step (its `pass`): the stricter line. */
  thresholdMs: 5,
};
const systems = (process.env.BENCH_SYSTEMS ?? 'ours,janus').split(',') as System[];
const publish = process.env.BENCH_WRITE !== '0';

let interrupted = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (interrupted) return;
  interrupted = true;
  console.error(`${signal}: stopping every child process…`);
  void stopAll().finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

/** A step as stored: the figures the section shows. */
function record(round: number, step: StepResult): StepRecord {
  const d = step.pacing.interArrivalDeviationMs;
  return {
    round,
    system: step.system,
    legs: step.legs,
    up: step.up,
    p50Ms: round2(d.p50),
    p99Ms: round2(d.p99),
    maxMs: round2(d.max),
    latenessP99Ms: round2(step.pacing.latenessMs.p99),
    frames: step.pacing.frames,
    lostFrames: step.pacing.lostFrames,
    serverCpuPercent: round2(step.serverCpuPercent),
    clientCpuPercent: round2(step.clientCpuPercent),
    clientLoopDelayP99Ms: round2(step.clientLoopDelayP99Ms),
    loadBound: step.loadBound,
    setupMs: Math.round(step.setupMs),
    ...(step.error ? { error: step.error.slice(0, 200) } : {}),
  };
}
const round2 = (n: number): number | null => (Number.isFinite(n) ? round(n, 2) : null);

const started = Date.now();
try {
  if (systems.includes('janus')) ensureJanus();
  const gate = await waitForIdle();
  console.log(
    `machine: load average ${gate.load.join(' / ')}, steal ${round(gate.stealShare * 100, 2)} %, busy ${round(gate.busyShare * 100, 1)} % over 5 s${gate.waitedS > 0 ? ` (waited ${gate.waitedS} s for the load to fall)` : ''}`,
  );
  if (!gate.idle && process.env.BENCH_ALLOW_BUSY !== '1') {
    console.error(
      `engine-capacity: refused, the machine is busy (${gate.reason}); run it again when it is idle, or with BENCH_ALLOW_BUSY=1 to measure without publishing.`,
    );
    process.exit(3);
  }
  const steps: StepRecord[] = [];
  const plan = interleavedPlan(settings.ladder, settings.rounds, systems);
  for (const [i, planned] of plan.entries()) {
    const step = await runStep(planned.system, planned.legs, settings);
    steps.push(record(planned.round, step));
    console.log(`  [${i + 1}/${plan.length}] round ${planned.round}: ${describe(step)}`);
  }

  let profile: CapacityData['profile'];
  if (systems.includes('ours') && process.env.BENCH_PROFILE !== '0') {
    const { ours, janus } = readings({ steps, systems, settings });
    const legs = profileLegs(
      ours && janus ? cpuRatios(ours, janus) : [],
      settings.fixed[Math.floor(settings.fixed.length / 2)]!,
    );
    console.log(`== ours under --cpu-prof, ${legs} legs`);
    const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-cpuprof-'));
    try {
      const step = await runStep('ours', legs, settings, dir);
      console.log(`  ${describe(step)}`);
      profile = {
        legs: step.legs,
        p99Ms: round2(step.pacing.interArrivalDeviationMs.p99),
        serverCpuPercent: round2(step.serverCpuPercent),
        summary: summariseMediaWorkers(dir, step.window.startUs, step.window.endUs),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const version = systems.includes('janus') ? janusVersion() : 'not run';
  const data: CapacityData = {
    measuredAt: new Date(started).toISOString(),
    machine: machine(),
    janusVersion: version,
    janusConfig: janusConfigNotes(),
    gate,
    loadAtEnd: loadavg().map((v) => round(v, 2)),
    published: gate.idle,
    settings,
    systems,
    elapsedS: Math.round((Date.now() - started) / 1000),
    steps,
    ...(profile ? { profile } : {}),
  };
  if (!publish || !gate.idle) {
    const { renderCapacity } = await import('./report');
    console.log(renderCapacity(data));
    if (!gate.idle) console.log('\n(not published: the machine was busy when the run began)');
  } else {
    publishSection('engine-capacity', data);
    if (systems.includes('ours') && systems.includes('janus')) recordRow(summaryRow(data));
    console.log('wrote docs/benchmarks.md (engine-capacity) and bench/results');
  }
  console.log(`done in ${data.elapsedS} s`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopAll();
}

function describe(step: StepResult): string {
  const d = step.pacing.interArrivalDeviationMs;
  return `${step.system} ${step.legs} legs: ${step.up} up, inter-arrival p50/p99/max ${d.p50.toFixed(1)}/${d.p99.toFixed(1)}/${d.max.toFixed(0)} ms, server CPU ${step.serverCpuPercent.toFixed(1)} % (${(step.serverCpuPercent / step.legs).toFixed(3)} %/leg), client CPU ${step.clientCpuPercent.toFixed(0)} %${step.error ? ` (${step.error})` : ''}`;
}
