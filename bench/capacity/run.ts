/**
 * The engine capacity benchmark (`npx tsx bench/capacity/run.ts`, or `npm run bench --
 * engine-capacity`): how many legs one core carries at frame pacing p99 < 5 ms, our engine next
 * to Janus's AudioBridge measured in the same run, with the same load generator, codec and call
 * shape. Writes its section of docs/benchmarks.md and its row of the summary.
 *
 * Each step starts the server fresh on core 0 (servers.ts), sets N legs up from the load
 * generator on core 1 (load-client.ts: N/2 two-party calls, two werift legs each, PCMU), lets
 * them talk for the warm-up and times every frame the server sends over the window. A step passes
 * when every leg is up and the inter-arrival deviation p99 is under 5 ms. Leg counts double from
 * the start until a step fails, then bisect (capacity.ts). Last, our engine runs once more at its
 * capacity under `--cpu-prof` to say where the media workers' time goes (profile.ts).
 *
 * Environment: `BENCH_CAPACITY_START` (first leg count, 50), `BENCH_CAPACITY_MAX` (800),
 * `BENCH_CAPACITY_STEPS` (most steps per system, 6), `BENCH_WINDOW_MS` (10000),
 * `BENCH_WARMUP_MS` (3000), `BENCH_LEGS_PER_LOAD_PROCESS` (legs above which a second load process
 * shares the load, 300), `BENCH_CAPACITY_BUDGET_S` (no step starts after a system's share of
 * it, 400), `BENCH_SYSTEMS` (`ours,janus`), `BENCH_PROFILE=0` (no profile run),
 * `BENCH_WRITE=0` (print the section instead of writing it), `BENCH_CAPACITY_P99_MS` (the pacing
 * threshold, 5 as the issue says).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCapacity, type Search } from './capacity';
import { ensureJanus, janusVersion } from './janus';
import { reportSection, summaryRow } from './report';
import { runStep, stopAll, type StepResult } from './step';
import { summariseMediaWorkers, type ProfileSummary } from './profile';
import type { System } from './servers';
import { writeSection } from '../lib/report';
import { recordRow } from '../lib/results';

const env = (name: string, fallback: number): number =>
  process.env[name] === undefined ? fallback : Number(process.env[name]);

export const settings = {
  start: env('BENCH_CAPACITY_START', 50),
  max: env('BENCH_CAPACITY_MAX', 800),
  maxSteps: env('BENCH_CAPACITY_STEPS', 6),
  windowMs: env('BENCH_WINDOW_MS', 10_000),
  warmupMs: env('BENCH_WARMUP_MS', 3000),
  legsPerLoadProcess: env('BENCH_LEGS_PER_LOAD_PROCESS', 300),
  /** The whole run's time budget (s): no step starts after its share of it. */
  budgetS: env('BENCH_CAPACITY_BUDGET_S', 400),
  thresholdMs: env('BENCH_CAPACITY_P99_MS', 5),
};
const systems = (process.env.BENCH_SYSTEMS ?? 'ours,janus').split(',') as System[];

let interrupted = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (interrupted) return;
  interrupted = true;
  console.error(`${signal}: stopping every child process…`);
  void stopAll().finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const started = Date.now();
try {
  if (systems.includes('janus')) ensureJanus();
  const searches: Partial<Record<System, Search>> = {};
  // Each system gets its share of the budget, less the profile run's (about 40 s).
  const searchBudgetMs = (settings.budgetS - 40) * 1000;
  for (const [i, system] of systems.entries()) {
    console.log(`== ${system}`);
    const deadline = started + (searchBudgetMs * (i + 1)) / systems.length;
    searches[system] = await findCapacity({ ...settings, deadline }, (legs) =>
      runStep(system, legs, settings).then((step) => {
        console.log(`  ${describe(step)}`);
        return step;
      }),
    );
    console.log(`  capacity: ${searches[system].capacity} legs`);
  }

  let profile: { step: StepResult; summary: ProfileSummary } | undefined;
  const ours = searches.ours;
  if (ours && process.env.BENCH_PROFILE !== '0') {
    const legs = ours.capacity > 0 ? ours.capacity : settings.start;
    console.log(`== ours under --cpu-prof, ${legs} legs`);
    const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-cpuprof-'));
    try {
      const step = await runStep('ours', legs, settings, dir);
      console.log(`  ${describe(step)}`);
      profile = {
        step,
        summary: summariseMediaWorkers(dir, step.window.startUs, step.window.endUs),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const elapsedS = Math.round((Date.now() - started) / 1000);
  const version = systems.includes('janus') ? janusVersion() : 'not run';
  const markdown = reportSection({ searches, profile, settings, janusVersion: version, elapsedS });
  if (process.env.BENCH_WRITE === '0') {
    console.log(markdown);
  } else {
    writeSection('engine-capacity', markdown);
    if (searches.ours && searches.janus)
      recordRow(
        summaryRow(searches.ours, searches.janus, version, profile?.summary, settings.thresholdMs),
      );
    console.log('wrote docs/benchmarks.md (engine-capacity) and bench/results/latest.json');
  }
  console.log(`done in ${elapsedS} s`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopAll();
}

function describe(step: StepResult): string {
  const d = step.pacing.interArrivalDeviationMs;
  return `${step.system} ${step.legs} legs: ${step.up} up, inter-arrival p50/p99/max ${d.p50.toFixed(1)}/${d.p99.toFixed(1)}/${d.max.toFixed(0)} ms, server CPU ${step.serverCpuPercent.toFixed(0)} %, client CPU ${step.clientCpuPercent.toFixed(0)} % → ${step.pass ? 'pass' : 'fail'}${step.error ? ` (${step.error})` : ''}`;
}
