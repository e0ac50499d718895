/**
 * The capacity bench's section of docs/benchmarks.md (set-up, a table of every step of each
 * system, both capacities, the ratio against its target and where our media workers' time goes)
 * and its row of the side-by-side summary.
 */
import { machine, type BenchRow } from '../lib/results';
import type { Search } from './capacity';
import type { ProfileSummary } from './profile';
import type { StepResult } from './step';

export const TARGET = '≥ Janus';
const COMMAND = 'npm run bench -- engine-capacity';

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f0 = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');

/** Ours / Janus, legs per core (the server has one core); infinite if only Janus carried none. */
export const ratioOf = (ours: Search, janus: Search): number =>
  janus.capacity > 0
    ? ours.capacity / janus.capacity
    : ours.capacity > 0
      ? Number.POSITIVE_INFINITY
      : Number.NaN;

/** The target: ours carries at least as many legs per core as Janus (and some). */
export const metTarget = (ours: Search, janus: Search): boolean =>
  ours.capacity > 0 && ours.capacity >= janus.capacity;

function stepsTable(search: Search, thresholdMs: number): string {
  const head = [
    'Legs (calls)',
    'Legs up',
    'Inter-arrival deviation p50 / p99 / max (ms)',
    'Lateness p99 / max (ms)',
    'Lost frames',
    'Server CPU (1 core)',
    'Server CPU per leg',
    'Load-client CPU (processes)',
    'Client loop delay p99 (ms)',
    'Setup (s)',
    `p99 < ${thresholdMs} ms, all up`,
    ...(thresholdMs === SECONDARY_MS ? [] : [`p99 < ${SECONDARY_MS} ms, all up`]),
  ];
  const rows = [...search.steps]
    .sort((a, b) => a.legs - b.legs)
    .map((s: StepResult) => {
      const d = s.pacing.interArrivalDeviationMs;
      return [
        `${s.legs} (${s.legs / 2})`,
        `${s.up}/${s.legs}`,
        `${f1(d.p50)} / ${f1(d.p99)} / ${f0(d.max)}`,
        `${f1(s.pacing.latenessMs.p99)} / ${f0(s.pacing.latenessMs.max)}`,
        `${s.pacing.lostFrames} of ${s.pacing.frames + s.pacing.lostFrames}`,
        `${f0(s.serverCpuPercent)} %`,
        `${(s.serverCpuPercent / s.legs).toFixed(2)} %`,
        `${f0(s.clientCpuPercent)} % (${s.loadProcesses})${s.loadBound ? ' **load-bound**' : ''}`,
        f1(s.clientLoopDelayP99Ms),
        f1(s.setupMs / 1000),
        `${s.pass ? 'yes' : `no${s.error ? ` (${s.error.slice(0, 160)})` : ''}`}${s.retried ? ' (second try)' : ''}`,
        ...(thresholdMs === SECONDARY_MS
          ? []
          : [s.up === s.legs && d.p99 < SECONDARY_MS ? 'yes' : 'no']),
      ];
    });
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** "p99 < 10 ms" as well, for the steps of a search at another threshold. */
const SECONDARY_MS = 10;

const capacityText = (search: Search | undefined): string =>
  !search
    ? 'not run'
    : `${search.capacity} legs/core${search.firstFailure === undefined ? ' (no step failed: at least this)' : `, ${search.firstFailure} failed`}${search.loadBound ? ' (the load generator was near a whole core: the capacity may be the client’s)' : ''}`;

/** A few words on the profile, for the summary's `missedBy`. */
function profileGist(summary: ProfileSummary | undefined): string {
  if (!summary || summary.busyMs === 0) return 'no profile';
  const kinds = summary.categories
    .slice(0, 3)
    .map((f) => `${f.name} ${Math.round(f.share * 100)} %`)
    .join(', ');
  return `media workers' self time: ${kinds}`;
}

function profileMarkdown(
  profile: { step: StepResult; summary: ProfileSummary } | undefined,
): string[] {
  if (!profile) return ['*No profile run* (`BENCH_PROFILE=0`, or ours was not run).'];
  const { step, summary } = profile;
  if (summary.threads === 0 || summary.busyMs === 0)
    return ['The profile run wrote no media worker profile with samples in the window.'];
  const d = step.pacing.interArrivalDeviationMs;
  const table = (rows: ProfileSummary['functions'], what: string) => [
    `| ${what} | Self ms | Share of busy |`,
    '|---|---:|---:|',
    ...rows.map(
      (r) => `| \`${r.name.replace(/\|/g, '\\|')}\` | ${f0(r.ms)} | ${f1(r.share * 100)} % |`,
    ),
  ];
  return [
    `Our engine once more with ${step.legs} legs, run with \`node --cpu-prof\` (every thread writes a profile; profiling slows it, so this run's pacing, p99 ${f1(d.p99)} ms, is not a step of the search). Over the ${f1(summary.windowMs / 1000)} s window the ${summary.threads} media worker threads were busy ${f0(summary.busyMs)} ms in all (${f0((summary.busyMs / summary.windowMs) * 100)} % of one core); the main thread was busy ${f0(summary.others.busyMs)} ms (${summary.others.files
      .slice(0, 3)
      .map((f) => `${f.name} ${f0(f.share * 100)} %`)
      .join(
        ', ',
      )}); the process used ${f0(step.serverCpuPercent)} % of the core in all, the rest being libuv, V8's own threads (GC, compiler) and the profiler. The media workers' self time by kind of work, by source file, then by function:`,
    '',
    ...table(summary.categories, 'Kind of work'),
    '',
    ...table(summary.files, 'File'),
    '',
    ...table(summary.functions, 'Function (file:line)'),
  ];
}

export interface ReportInput {
  searches: { ours?: Search; janus?: Search };
  profile: { step: StepResult; summary: ProfileSummary } | undefined;
  settings: {
    start: number;
    max: number;
    maxSteps: number;
    windowMs: number;
    warmupMs: number;
    legsPerLoadProcess: number;
    thresholdMs: number;
  };
  janusVersion: string;
  elapsedS: number;
}

export function reportSection(input: ReportInput): string {
  const { searches, settings } = input;
  const m = machine();
  const { ours, janus } = searches;
  const ratio = ours && janus ? ratioOf(ours, janus) : Number.NaN;
  const met = ours !== undefined && janus !== undefined && metTarget(ours, janus);
  const lines = [
    `## Engine capacity: legs per core at frame pacing p99 < ${settings.thresholdMs} ms, next to Janus AudioBridge`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Janus ${input.janusVersion} (Debian), with \`npx tsx bench/capacity/run.ts\` (\`${COMMAND}\`); the whole run took ${Math.round(input.elapsedS / 60)} min. Both systems were measured in this run, one after the other, on the same machine.`,
    '',
    '**Call shape, the same on both.** A call is two WebRTC legs (werift, DTLS-SRTP, PCMU 8 kHz) in one room; each leg sends a 1000 Hz PCMU frame every 20 ms and receives the room’s mix (the other leg) from the server every 20 ms; each room’s mix is recorded to a WAV file (the product records every call, and our engine cannot turn that off, so Janus records too). *Legs* counts WebRTC legs (two a call).',
    '',
    '- **Ours**: bench/engine/engine-host.ts (the `VoiceEngine` with its `WorkerMediaEngine`, default media workers at their default nice −10, no database) pinned to core 0. Each leg logs in and registers on its own PStream socket under its own identity; the host’s `GET /ring` rings both legs of a call into one room as agents, each answers the engine’s offer, and the engine mixes and records them as any call.',
    `- **Reference**: Janus ${input.janusVersion} (Debian’s \`janus\` package, installed by the bench when missing) pinned to core 0 at nice −10 (the nice value our engine gives its media worker threads by default, so neither server runs at a higher priority than the other), with a configuration folder of its own: the AudioBridge plugin and the WebSockets transport only, ICE on the loopback interface, RTP ports 30000–39999, logging at level 3, Janus’s defaults otherwise (no shared event loops: a thread per handle; each AudioBridge room mixes in a thread of its own). Per call the load generator creates a room (\`sampling_rate: 8000\`, \`record: true\`, private, no audio-level events) and both legs join it with \`codec: "pcmu"\` and their offer; one Janus session per load process, one plugin handle per leg.`,
    `- **Load generator, the same for both** (bench/capacity/load-client.ts, one process per ${settings.legsPerLoadProcess} legs, pinned to the cores the server does not use: core 1 here, at nice −10): at most 12 calls setting up at a time; a leg not up within 15 s counts as not up. Once every leg is up it waits ${settings.warmupMs / 1000} s, then timestamps for ${settings.windowMs / 1000} s every PCMU datagram from the server when it reaches the leg's socket (before decryption), as the engine pacing bench does.`,
    `- **Pacing** (definitions of the media engine section): *inter-arrival deviation* is |time between two frames of a leg − 20 ms| over all legs; *lateness* a frame's arrival against its RTP timestamp relative to the leg's earliest frame. With two load processes, each quantile is the worse process's.`,
    `- **Capacity**: a step passes when every leg is up and the inter-arrival deviation p99 is under ${settings.thresholdMs} ms. Each step starts the server afresh; leg counts double from ${settings.start} while steps pass (up to ${settings.max}), then bisect between the last pass and the first failure (at most ${settings.maxSteps} steps a system). The server has one core, so legs/core is the largest passing count. A step whose load generator used ${90} % or more of its core is marked *load-bound*: there the client, not the server, may be the limit. A step that fails while the load generator's own event loop ran ${settings.thresholdMs} ms late or more (p99) though it used under half its core (another process held the core) runs once more (*second try*), and the second counts.`,
    '',
    `**Janus’s own pacing floor.** The AudioBridge mixer of Janus ${input.janusVersion} does not wake on a 20 ms timer: its room thread polls, sleeping 5 ms (\`g_usleep(5000)\`) until at least 15 ms have passed since the frame’s due time, then mixes and sends (checked in the installed \`libjanus_audiobridge.so\`: \`cmp $0x3a97\` then \`g_usleep(0x1388)\`). Its frames therefore leave between about 15 and 20 ms (plus oversleep) after the previous one’s due time whatever the load, so its inter-arrival deviation p99 sits near 5 ms even with a few legs (4.9–7 ms in development runs at 8–50 legs): at the issue’s p99 < 5 ms it passes or fails a step by a fraction of a millisecond, and its capacity by that criterion is noisy. The *server CPU per leg* column compares the work each does per leg at the same counts; \`BENCH_CAPACITY_P99_MS=10\` (the engine pacing bench’s threshold) runs the same search at a criterion both can meet.`,
    '',
    `| | Capacity (legs/core) |`,
    '|---|---|',
    `| Leadline engine | **${capacityText(ours)}** |`,
    `| Janus AudioBridge ${input.janusVersion} | ${capacityText(janus)} |`,
    `| Ratio ours / Janus (target ${TARGET}) | **${Number.isNaN(ratio) ? '–' : Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '∞ (Janus passed no step)'}** — ${met ? 'met' : 'not met'} |`,
    '',
  ];
  if (ours && janus && ours.capacity === 0 && janus.capacity === 0) {
    lines.push(
      '**Not measured**: neither system passed a step, not even the smallest; the machine was likely too busy (see the load generator’s loop delay per step). Run it again on an idle machine.',
      '',
    );
  } else if (ours && janus && !met) {
    const fewer = janus.capacity - ours.capacity;
    lines.push(
      `**Target missed** by ${fewer} legs/core (${janus.capacity > 0 ? `${f0((fewer / janus.capacity) * 100)} %` : '–'} fewer than Janus). ${profileGist(input.profile?.summary)}; see *where the time goes* below.`,
      '',
    );
  }
  if (ours)
    lines.push('### Leadline engine, per step', '', stepsTable(ours, settings.thresholdMs), '');
  if (janus)
    lines.push(
      `### Janus AudioBridge ${input.janusVersion}, per step`,
      '',
      stepsTable(janus, settings.thresholdMs),
      '',
    );
  lines.push(
    '### Where the time goes (our media workers)',
    '',
    ...profileMarkdown(input.profile),
    '',
  );
  lines.push(
    '### Reproduce',
    '',
    `\`${COMMAND}\` or \`npx tsx bench/capacity/run.ts\` (as root if Janus must be installed), on an otherwise idle machine with 2 cores or more (the server is pinned to core 0, the load to the others). \`BENCH_SYSTEMS=ours\` or \`janus\` runs one side; \`BENCH_CAPACITY_START\`, \`BENCH_CAPACITY_MAX\`, \`BENCH_CAPACITY_STEPS\`, \`BENCH_WINDOW_MS\`, \`BENCH_WARMUP_MS\`, \`BENCH_LEGS_PER_LOAD_PROCESS\`, \`BENCH_CAPACITY_BUDGET_S\` (400 s: no step starts after a system’s share of it) change the search; \`BENCH_PROFILE=0\` skips the profile run; \`BENCH_WRITE=0\` prints this section instead of writing it.`,
  );
  return lines.join('\n');
}

/** The side-by-side summary row. */
export function summaryRow(
  ours: Search,
  janus: Search,
  janusVersion: string,
  profile: ProfileSummary | undefined,
  thresholdMs = 5,
): Omit<BenchRow, 'measuredAt'> {
  const ratio = ratioOf(ours, janus);
  const met = metTarget(ours, janus);
  const fewer = janus.capacity - ours.capacity;
  const stepOf = (s: StepResult) => ({
    legs: s.legs,
    up: s.up,
    interArrivalDeviationMs: s.pacing.interArrivalDeviationMs,
    serverCpuPercent: s.serverCpuPercent,
    clientCpuPercent: s.clientCpuPercent,
    pass: s.pass,
    loadBound: s.loadBound,
  });
  return {
    name: 'engine-capacity',
    title: 'engine capacity',
    statistic: `legs at frame pacing p99 < ${thresholdMs} ms, server on 1 core`,
    ours: { label: 'Leadline engine', value: ours.capacity, unit: 'legs/core' },
    reference: {
      label: `Janus AudioBridge ${janusVersion}`,
      value: janus.capacity,
      unit: 'legs/core',
    },
    ratio,
    target: TARGET,
    met,
    ...(met
      ? {}
      : ours.capacity === 0 && janus.capacity === 0
        ? { missedBy: 'not measured: neither system passed a step (busy machine?)' }
        : {
            missedBy: `${fewer} legs/core (${f0((fewer / Math.max(1, janus.capacity)) * 100)} %) fewer; profile: ${profileGist(profile)}`,
          }),
    command: COMMAND,
    details: {
      oursSteps: ours.steps.map(stepOf),
      janusSteps: janus.steps.map(stepOf),
      oursLoadBound: ours.loadBound,
      janusLoadBound: janus.loadBound,
      ...(profile ? { profile: { busyMs: profile.busyMs, files: profile.files.slice(0, 8) } } : {}),
    },
  };
}
