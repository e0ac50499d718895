/**
 * The `engine` section of docs/benchmarks.md (frame pacing per leg count, and under API load),
 * rendered from the runs bench/engine/run.ts measured (stored in
 * bench/results/sections/engine.json). Pure: no clock, no machine, no files.
 */

/** What the bench client reports (bench-client.ts `result`). */
export interface EngineClientResult {
  legs: number;
  failed: number;
  setupMs: { p50: number; max: number };
  signallingMs: { p50: number; max: number };
  frames: number;
  lostFrames: number;
  interArrivalDeviationMs: { p50: number; p99: number; max: number };
  latenessMs: { p50: number; p99: number; max: number };
  framesLaterThan60Ms: number;
  client: { cpuPercent: number; loopDelayP99Ms: number; loopDelayMaxMs: number };
}

/** One measured run; null where the run did not get as far as measuring a figure. */
export interface EngineRun {
  label: string;
  legs: number;
  result: EngineClientResult;
  /** Engine process CPU over the window, % of one core, and idle before the legs. */
  cpuPercent: number | null;
  idleCpuPercent: number;
  /** Engine process resident memory with the legs up, and idle (MB). */
  rssMb: number | null;
  idleRssMb: number;
  /** Engine process CPU while the legs were set up, per leg (ms). */
  setupCpuMsPerLeg: number | null;
  /** From the first leg's socket to the last leg up (or failed), ms. */
  allUpMs: number | null;
  /** Media workers' frame start lateness over the window (engine host only). */
  loop?: {
    p99: number;
    max: number;
    skipped: number;
    /** When the workers finished mixing a frame (its datagrams leave right after). */
    endP99: number;
    endMax: number;
    /** The workers' GC pauses over the window: the longest, and the total per second. */
    gcMaxMs: number;
    gcMsPerSecond: number;
  };
  api?: { requests: number; rps: number; p99Ms: number; errors: number };
}

/** What the engine benchmark measured, and with which settings. */
export interface EngineSectionData {
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  cores: number;
  cpuModel: string;
  node: string;
  /** Media worker threads of the engine host (`BENCH_WORKERS` or the engine's default). */
  mediaWorkers: string;
  lead: string;
  /** Legs setting up at a time (0: all at once). */
  setupConcurrency: number;
  warmupMs: number;
  windowMs: number;
  setupTimeoutMs: number;
  apiRate: number;
  /** The engine host's runs, the first the reference. */
  engineRuns: EngineRun[];
  /** The product without, then with API load (none when skipped). */
  products: EngineRun[];
}

/** A figure with its digits, '–' when there is none. */
const fixed = (n: number | null | undefined, digits: number): string =>
  typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–';
const f1 = (n: number | null | undefined): string => fixed(n, 1);
const f0 = (n: number | null | undefined): string => fixed(n, 0);
/** `value / reference` as `1.23×`, '–' when either is missing or the reference is 0. */
const ratio = (value: number | null, reference: number | null): string =>
  typeof value === 'number' &&
  typeof reference === 'number' &&
  Number.isFinite(value) &&
  Number.isFinite(reference) &&
  reference !== 0
    ? `${(value / reference).toFixed(2)}×`
    : '–';
const perLegCpu = (run: EngineRun): number =>
  ((run.cpuPercent ?? NaN) - run.idleCpuPercent) / run.legs;
const perLegMb = (run: EngineRun): number => ((run.rssMb ?? NaN) - run.idleRssMb) / run.legs;

function table(runs: EngineRun[], reference: EngineRun): string {
  const rows = runs.map((run) => {
    const r = run.result;
    const met = r.interArrivalDeviationMs.p99 < 10 && r.framesLaterThan60Ms === 0;
    return [
      run.label,
      `${r.legs - r.failed}/${r.legs}`,
      `${f1(r.interArrivalDeviationMs.p50)} / ${f1(r.interArrivalDeviationMs.p99)} / ${f0(r.interArrivalDeviationMs.max)}`,
      ratio(r.interArrivalDeviationMs.p99, reference.result.interArrivalDeviationMs.p99),
      `${r.framesLaterThan60Ms} of ${r.frames}`,
      `${f1(r.latenessMs.p99)} / ${f0(r.latenessMs.max)}`,
      run.loop ? `${f1(run.loop.p99)} / ${f0(run.loop.max)}` : '–',
      run.loop ? `${f1(run.loop.endP99)} / ${f0(run.loop.endMax)}` : '–',
      run.loop ? `${f1(run.loop.gcMsPerSecond)} / ${f0(run.loop.gcMaxMs)}` : '–',
      `${f1(run.cpuPercent)} %`,
      `${f1(perLegCpu(run))} % (${ratio(perLegCpu(run), perLegCpu(reference))})`,
      `${f1(perLegMb(run))} MB`,
      `${f0(r.setupMs.p50)} / ${f0(r.setupMs.max)}`,
      `${f1(run.setupCpuMsPerLeg)} ms`,
      `${f0(r.client.cpuPercent)} %`,
      `${f1(r.client.loopDelayP99Ms)} / ${f0(r.client.loopDelayMaxMs)}`,
      met ? 'yes' : 'no',
    ];
  });
  const head = [
    'Run',
    'Legs up',
    'Inter-arrival deviation p50 / p99 / max (ms)',
    'p99 vs ref',
    'Frames > 60 ms late',
    'Lateness p99 / max (ms)',
    'Engine frame start late p99 / max (ms)',
    'Engine frame sent late p99 / max (ms)',
    'Engine GC ms/s / longest pause (ms)',
    'Engine CPU (1 core)',
    'CPU per leg (vs ref)',
    'Memory per leg',
    'Leg setup p50 / max (ms)',
    'Engine CPU per leg setup',
    'Client CPU',
    'Client event-loop delay p99 / max (ms)',
    'p99 < 10 ms, none > 60 ms',
  ];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The section's markdown (without its markers). */
export function renderEngineSection(data: EngineSectionData): string {
  const { engineRuns, products, setupConcurrency, warmupMs, windowMs } = data;
  const reference = engineRuns[0]!;
  const quiet = products[0];
  const loaded = products[1];
  const placement =
    setupConcurrency > 0
      ? `at most ${setupConcurrency} setting up at a time (the next call is placed as soon as one before it is up)`
      : 'all N at once';
  const lines = [
    '## Media engine: frame pacing per leg count, and under API load',
    '',
    `Measured ${data.date} on ${data.cores} cores (${data.cpuModel}), Node ${data.node}, with \`npx tsx bench/engine/run.ts\`. Every figure comes from the same run; ratios are to the reference run (${reference.label}).`,
    '',
    '**Set-up.** The engine runs alone in one process pinned to core 0 (`taskset -c 0`: bench/engine/engine-host.ts, the `VoiceEngine` with its `WorkerMediaEngine`, ' +
      `${data.mediaWorkers} media worker threads, no database). N werift client legs run in another process pinned to core 1 (bench/engine/bench-client.ts). Each leg has its own PStream socket and places a call to ${data.lead}, ${placement}: every call is a two-party room, the leg and the virtual lead the engine dials (440 Hz), recorded as the product records calls. Every leg sends a PCMU frame every 20 ms. After ${warmupMs / 1000} s the client times, for ${windowMs / 1000} s, every PCMU frame the engine sends, when its datagram reaches the client's socket (before decryption).`,
    '',
    '- *Inter-arrival deviation*: |time between two frames of a leg − 20 ms|, over all legs.',
    "- *Lateness*: a frame's arrival against its RTP timestamp, relative to the leg's earliest frame (what a jitter buffer must absorb); *frames > 60 ms late* count those over 60 ms.",
    "- *Engine frame start late*: how late the media workers started their 20 ms mixing ticks (their own clock); *sent late*: how late they finished mixing a frame, right after which its datagrams leave; *GC*: the workers' garbage collection pauses, total per second and the longest.",
    '- *CPU per leg*: (engine process CPU with the legs − idle) / N; *memory per leg* likewise from its resident memory.',
    `- *Leg setup*: from the client sending \`invite\` to its media being connected (ICE and DTLS), ${placement}; a leg not up within ${data.setupTimeoutMs / 1000} s counts as failed (*legs up*).`,
    "- *Engine CPU per leg setup*: engine process CPU from the first leg’s socket until every leg was up, / N. Setting N legs up at once takes at least N times this on the engine's core (the client's werift legs cost about as much on theirs), so legs are placed a few at a time, as agents start calls, rather than all in the same instant.",
    '- *Client CPU*: the load generator’s own share of core 1; near 100 % its timestamps get late too. *Client event-loop delay*: how late its own timers ran; an arrival is timestamped at most that late by the client itself.',
    '',
    table(engineRuns, reference),
    '',
  ];
  if (quiet && loaded) {
    const r0 = quiet.result;
    const r1 = loaded.result;
    lines.push(
      '**Under API load.** The built product (`node apps/server/dist/main.js`: HTTP, PGlite and the engine in one process) pinned to core 0, the same client with 50 legs on core 1, first without, then with ' +
        `${data.apiRate} requests/s on the API (autocannon on core 1: half \`GET /healthz\`, half an authenticated \`GET /api/v1/user\`). Ratios are loaded / unloaded.`,
      '',
      table(products, quiet),
      '',
      `API load achieved: ${f0(loaded.api?.rps ?? NaN)} requests/s (${loaded.api?.requests ?? 0} requests, ${loaded.api?.errors ?? 0} errors), p99 latency ${f0(loaded.api?.p99Ms ?? NaN)} ms. Pacing under load vs without: inter-arrival p99 ${ratio(r1.interArrivalDeviationMs.p99, r0.interArrivalDeviationMs.p99)}, lateness p99 ${ratio(r1.latenessMs.p99, r0.latenessMs.p99)}, frames > 60 ms late ${r0.framesLaterThan60Ms} → ${r1.framesLaterThan60Ms}.`,
      '',
    );
  }
  return lines.join('\n');
}
