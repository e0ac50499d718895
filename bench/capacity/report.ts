/**
 * The capacity bench's section of docs/benchmarks.md and its row of the side-by-side summary,
 * both rendered from the run's stored data alone (pure: the same data renders the same text).
 * The headline is server CPU per leg at fixed loads, our engine next to Janus in the same run,
 * medians of the interleaved rounds with their spread; then legs per core at both pass lines.
 */
import type { IdleGate } from '../lib/machine-load';
import type { BenchRow, Machine } from '../lib/results';
import type { ProfileSummary } from './profile';
import { cpuRatios, readSystem, type Spread, type SystemReading } from './rounds';
import type { System } from './servers';

export const TARGET = '≤ Janus';
export const COMMAND = 'npm run bench -- engine-capacity';

/** One step as stored. */
export interface StepRecord {
  round: number;
  system: System;
  legs: number;
  up: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  latenessP99Ms: number | null;
  frames: number;
  lostFrames: number;
  serverCpuPercent: number | null;
  clientCpuPercent: number | null;
  clientLoopDelayP99Ms: number | null;
  loadBound: boolean;
  setupMs: number;
  error?: string;
}

/** Everything a run measured: what the section is rendered from. */
export interface CapacityData {
  measuredAt: string;
  machine: Machine;
  janusVersion: string;
  /** How the bench's Janus differs from Janus's defaults, and why. */
  janusConfig: string[];
  /** The figures that let the run start. */
  gate: IdleGate;
  loadAtEnd: number[];
  published: boolean;
  settings: {
    ladder: number[];
    fixed: number[];
    rounds: number;
    windowMs: number;
    warmupMs: number;
    legsPerLoadProcess: number;
    lines: number[];
  };
  systems: System[];
  elapsedS: number;
  /** Every step, in the order it ran. */
  steps: StepRecord[];
  profile?: {
    legs: number;
    p99Ms: number | null;
    serverCpuPercent: number | null;
    summary: ProfileSummary;
  };
}

const num = (n: number | null): number => n ?? Number.NaN;
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const f0 = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
const spread2 = (s: Spread): string =>
  s.n === 0 ? '–' : `${f2(s.median)} (${f2(s.min)}–${f2(s.max)})`;
const spread1 = (s: Spread): string =>
  s.n === 0 ? '–' : `${f1(s.median)} (${f1(s.min)}–${f1(s.max)})`;

/** Each system's reading of the stored steps. */
export function readings(
  data: Pick<CapacityData, 'steps' | 'systems' | 'settings'>,
): Partial<Record<System, SystemReading>> {
  const figures = data.steps.map((step) => ({
    system: step.system,
    legs: step.legs,
    up: step.up,
    p99Ms: num(step.p99Ms),
    serverCpuPercent: num(step.serverCpuPercent),
  }));
  return Object.fromEntries(
    data.systems.map((system) => [system, readSystem(system, figures, data.settings.lines)]),
  );
}

const NAMES: Record<System, (data: CapacityData) => string> = {
  ours: () => 'Leadline engine',
  janus: (data) => `Janus AudioBridge ${data.janusVersion}`,
};

/** The fixed load the summary row reports: the middle one. */
const headlineLegs = (data: CapacityData): number =>
  data.settings.fixed[Math.floor(data.settings.fixed.length / 2)]!;

function legsPerCoreText(reading: SystemReading | undefined, line: number): string {
  const result = reading?.legsPerCore[String(line)];
  if (!result) return '–';
  if (result.legs === 0) return 'under the smallest count';
  return `${result.legs}${result.capped ? ' or more' : ''}`;
}

function headline(data: CapacityData, ours?: SystemReading, janus?: SystemReading): string[] {
  const at = (reading: SystemReading | undefined, legs: number) =>
    reading?.counts.find((count) => count.legs === legs);
  const ratios = ours && janus ? cpuRatios(ours, janus) : [];
  const ratioAt = (legs: number) => ratios.find((r) => r.legs === legs)?.ratio ?? Number.NaN;
  const head = [
    'Server CPU per leg (% of one core), median (lowest–highest) of ' +
      `${data.settings.rounds} rounds`,
    ...data.settings.fixed.map((legs) => `${legs} legs`),
  ];
  const row = (reading: SystemReading | undefined, name: string) => [
    name,
    ...data.settings.fixed.map((legs) => {
      const count = at(reading, legs);
      return count ? spread2(count.cpuPerLeg) : '–';
    }),
  ];
  const ratioRow = [
    `Ours / Janus (target ${TARGET}: at most 1×)`,
    ...data.settings.fixed.map((legs) => {
      const ratio = ratioAt(legs);
      return Number.isFinite(ratio)
        ? `**${ratio.toFixed(2)}×** ${ratio <= 1 ? 'met' : 'not met'}`
        : '–';
    }),
  ];
  const passHead = [
    'Legs per core (largest count held in most rounds)',
    ...data.settings.lines.map((line) => `p99 < ${line} ms, all up`),
  ];
  const passRow = (reading: SystemReading | undefined, name: string) => [
    name,
    ...data.settings.lines.map((line) => legsPerCoreText(reading, line)),
  ];
  const table = (header: string[], rows: string[][]) => [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
  return [
    ...table(head, [row(ours, `**${NAMES.ours(data)}**`), row(janus, NAMES.janus(data)), ratioRow]),
    '',
    ...table(passHead, [
      passRow(ours, `**${NAMES.ours(data)}**`),
      passRow(janus, NAMES.janus(data)),
    ]),
  ];
}

function countsTable(data: CapacityData, reading: SystemReading): string[] {
  const head = [
    'Legs (calls)',
    'Server CPU per leg',
    'Server CPU (1 core)',
    'Inter-arrival deviation p99 (ms)',
    ...data.settings.lines.map((line) => `Rounds with p99 < ${line} ms, all up`),
  ];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...reading.counts.map(
      (count) =>
        `| ${count.legs} (${count.legs / 2}) | ${spread2(count.cpuPerLeg)} % | ${spread1(count.serverCpu)} % | ${spread1(count.p99Ms)} | ${data.settings.lines.map((line) => `${count.held[String(line)]} of ${count.rounds}`).join(' | ')} |`,
    ),
  ];
}

function stepsTable(data: CapacityData): string[] {
  const head = [
    'Order',
    'Round',
    'System',
    'Legs',
    'Up',
    'Inter-arrival p50 / p99 / max (ms)',
    'Lateness p99 (ms)',
    'Lost frames',
    'Server CPU',
    'Load-client CPU',
    'Client loop delay p99 (ms)',
    'Setup (s)',
  ];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...data.steps.map(
      (s, i) =>
        `| ${i + 1} | ${s.round} | ${s.system} | ${s.legs} | ${s.up}${s.error ? ` (${s.error.replace(/\|/g, '/').slice(0, 100)})` : ''} | ${f1(num(s.p50Ms))} / ${f1(num(s.p99Ms))} / ${f0(num(s.maxMs))} | ${f1(num(s.latenessP99Ms))} | ${s.lostFrames} of ${s.frames + s.lostFrames} | ${f1(num(s.serverCpuPercent))} % | ${f0(num(s.clientCpuPercent))} %${s.loadBound ? ' **load-bound**' : ''} | ${f1(num(s.clientLoopDelayP99Ms))} | ${f1(s.setupMs / 1000)} |`,
    ),
  ];
}

function profileMarkdown(data: CapacityData): string[] {
  const profile = data.profile;
  if (!profile) return ['*No profile run* (`BENCH_PROFILE=0`, or ours was not run).'];
  const { summary } = profile;
  if (summary.threads === 0 || summary.busyMs === 0)
    return ['The profile run wrote no media worker profile with samples in the window.'];
  const { ours, janus } = readings(data);
  const missed = ours && janus ? cpuRatios(ours, janus).filter((r) => r.ratio > 1) : [];
  const why = missed.some((r) => r.legs === profile.legs)
    ? 'the smallest count at which it used more CPU per leg than Janus'
    : missed.length === 0
      ? 'the middle fixed load; it used no more CPU per leg than Janus at any count'
      : 'the middle fixed load';
  const table = (rows: ProfileSummary['functions'], what: string) => [
    `| ${what} | Self ms | Share of sampled |`,
    '|---|---:|---:|',
    ...rows.map(
      (r) => `| \`${r.name.replace(/\|/g, '\\|')}\` | ${f0(r.ms)} | ${f1(r.share * 100)} % |`,
    ),
  ];
  return [
    `Our engine once more with ${profile.legs} legs (${why}), run with \`node --cpu-prof\` (profiling slows it; this run's pacing p99 was ${f1(num(profile.p99Ms))} ms and the process used ${f0(num(profile.serverCpuPercent))} % of its core). V8's sampler sees JavaScript and the native calls it makes; the kernel's side of the sockets, V8's own threads (garbage collection, the optimising compiler) and time between samples are not in these tables, so they add up to less than the process's CPU: ${f0(summary.busyMs)} ms sampled busy in the ${summary.threads} media worker threads over the ${f1(summary.windowMs / 1000)} s window. By kind of work, by source file, then by function:`,
    '',
    ...table(summary.categories, 'Kind of work'),
    '',
    ...table(summary.files, 'File'),
    '',
    ...table(summary.functions.slice(0, 12), 'Function (file:line)'),
  ];
}

/** The section, from a run's data. */
export function renderCapacity(data: CapacityData): string {
  const read = readings(data);
  const { ours, janus } = read;
  const when = data.measuredAt.slice(0, 16).replace('T', ' ');
  const m = data.machine;
  const gate = data.gate;
  const ratios = ours && janus ? cpuRatios(ours, janus) : [];
  const missed = ratios.filter((r) => !(r.ratio <= 1));
  const lines = [
    '## Engine capacity: server CPU per leg at fixed loads, and legs per core at two pass lines, next to Janus AudioBridge',
    '',
    `Measured ${when} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Janus ${data.janusVersion} (Debian), with \`npx tsx bench/capacity/run.ts\` (\`${COMMAND}\`); the run took ${Math.round(data.elapsedS / 60)} min. **Before it started** the machine was ${gate.idle ? 'idle by the bench’s rule' : '**busy**'}${gate.reason ? ` (${gate.reason})` : ''}: load average ${gate.load.join(' / ')} (1 / 5 / 15 min; at most 0.5 for the 1-minute figure), ${f2(gate.stealShare * 100)} % of the time stolen by the hypervisor and ${f1(gate.busyShare * 100)} % busy over a 5 s sample (steal at most 2 %)${gate.waitedS > 0 ? `, after waiting ${gate.waitedS} s for the load of what ran before to fall` : ''}${data.published ? '' : ' — **these figures were not published**'}. Load average at the end ${data.loadAtEnd.join(' / ')} (the run's own work).`,
    '',
    `Both systems ran every leg count in each of ${data.settings.rounds} rounds, interleaved: a fresh server per step, the two systems one after the other at each count, the one going first alternating from count to count and from round to round. Each figure below is the median of the rounds, with the lowest and highest in brackets.`,
    '',
    ...headline(data, ours, janus),
    '',
  ];
  if (ours && janus && missed.length > 0) {
    lines.push(
      `**Target missed** at ${missed.map((r) => `${r.legs} legs by ${f0((r.ratio - 1) * 100)} %`).join(', ')} (ours uses more CPU per leg than Janus there); *where the time goes* below shows the profile.`,
      '',
    );
  }
  lines.push(
    '**Call shape, the same on both.** A call is two WebRTC legs (werift, DTLS-SRTP, PCMU 8 kHz) in one room; each leg sends a 1000 Hz PCMU frame every 20 ms and receives the room’s mix (the other leg) from the server every 20 ms; each room’s mix is recorded to a WAV file (the product records every call, and our engine cannot turn that off, so Janus records too). *Legs* counts WebRTC legs (two a call).',
    '',
    '- **Ours**: bench/engine/engine-host.ts (the `VoiceEngine` with its `WorkerMediaEngine`, its default media workers, one per core it may run on, so one here, at their default nice −10, no database) pinned to core 0. Each leg logs in and registers on its own PStream socket under its own identity; the host’s `GET /ring` rings both legs of a call into one room as agents, each answers the engine’s offer, and the engine mixes and records them as any call.',
    `- **Reference**: Janus ${data.janusVersion} (Debian’s \`janus\` package, installed by the bench when missing) pinned to core 0 at nice −10 (the nice value our engine gives its media worker threads, so neither server runs at a higher priority than the other). Where its configuration differs from Janus’s defaults: ${data.janusConfig.join('; ')}. Per call the load generator creates a room (\`sampling_rate: 8000\`, \`record: true\`, private, no audio-level events) and both legs join it with \`codec: "pcmu"\` and their offer; one Janus session per load process, one plugin handle per leg.`,
    `- **Load generator, the same for both** (bench/capacity/load-client.ts, one process per ${data.settings.legsPerLoadProcess} legs, pinned to the cores the server does not use: core 1 here, at nice −10): at most 12 calls setting up at a time; a leg not up within 15 s counts as not up. Once every leg is up it waits ${data.settings.warmupMs / 1000} s (a warm-up: our engine's JavaScript is compiled as it runs, Janus's is not), then timestamps for ${data.settings.windowMs / 1000} s every PCMU datagram from the server when it reaches the leg's socket (before decryption), and the server's CPU is read from /proc over the same window.`,
    `- **Pacing**: *inter-arrival deviation* is |time between two frames of a leg − 20 ms| over all legs. A step holds a pass line when every leg was up and that deviation's p99 was under the line: ${data.settings.lines.map((l) => `${l} ms`).join(' and ')}. A leg count holds a line when most of its rounds did; *legs per core* is the largest count of the ladder (${data.settings.ladder.join(', ')}) held with every smaller count held too (the server has one core).`,
    '',
    `**Janus’s own pacing floor.** The AudioBridge mixer of Janus ${data.janusVersion} does not wake on a 20 ms timer: its room thread polls, sleeping 5 ms (\`g_usleep(5000)\`) until at least 15 ms have passed since the frame’s due time, then mixes and sends (checked in the installed \`libjanus_audiobridge.so\`: \`cmp $0x3a97\` then \`g_usleep(0x1388)\`). Its inter-arrival deviation p99 therefore sits near 5 ms even with a few legs, so at the 5 ms line it passes or fails by a fraction of a millisecond; the 10 ms line is one both can meet, and CPU per leg at the same load compares the work each does.`,
    '',
  );
  for (const reading of [ours, janus]) {
    if (!reading) continue;
    lines.push(
      `### ${NAMES[reading.system](data)}, per leg count`,
      '',
      ...countsTable(data, reading),
      '',
    );
  }
  lines.push('### Every step, in the order run', '', ...stepsTable(data), '');
  lines.push('### Where the time goes (our media workers)', '', ...profileMarkdown(data), '');
  lines.push(
    '### Reproduce',
    '',
    `\`${COMMAND}\` or \`npx tsx bench/capacity/run.ts\` (as root if Janus must be installed), on an otherwise idle machine with 2 cores or more (the server is pinned to core 0, the load to the others); on a busy machine it refuses to start (exit 3), or with \`BENCH_ALLOW_BUSY=1\` measures and prints without publishing. \`BENCH_SYSTEMS=ours\` or \`janus\` runs one side; \`BENCH_CAPACITY_LADDER\`, \`BENCH_CAPACITY_FIXED\`, \`BENCH_CAPACITY_ROUNDS\`, \`BENCH_WINDOW_MS\`, \`BENCH_WARMUP_MS\`, \`BENCH_LEGS_PER_LOAD_PROCESS\`, \`BENCH_JANUS_EVENT_LOOPS\` change the run; \`BENCH_PROFILE=0\` skips the profile run; \`BENCH_WRITE=0\` prints this section instead of publishing it.`,
  );
  return lines.join('\n');
}

/** The side-by-side summary row: CPU per leg at the middle fixed load. */
export function summaryRow(data: CapacityData): Omit<BenchRow, 'measuredAt'> {
  const { ours, janus } = readings(data);
  const legs = headlineLegs(data);
  const mine = ours?.counts.find((c) => c.legs === legs)?.cpuPerLeg;
  const theirs = janus?.counts.find((c) => c.legs === legs)?.cpuPerLeg;
  const ratio = mine && theirs ? mine.median / theirs.median : Number.NaN;
  const met = ratio <= 1;
  const perLine = (reading: SystemReading | undefined) =>
    Object.fromEntries(
      data.settings.lines.map((line) => [`p99<${line}ms`, reading?.legsPerCore[String(line)]]),
    );
  return {
    name: 'engine-capacity',
    title: 'engine server CPU per leg',
    statistic:
      `% of one core per leg at ${legs} legs, median of ${data.settings.rounds} interleaved rounds; ` +
      `legs per core at ${data.settings.lines.map((line) => `p99 < ${line} ms`).join(' / ')}: ` +
      `ours ${data.settings.lines.map((line) => legsPerCoreText(ours, line)).join(' / ')}, ` +
      `Janus ${data.settings.lines.map((line) => legsPerCoreText(janus, line)).join(' / ')}`,
    ours: { label: NAMES.ours(data), value: mine?.median ?? Number.NaN, unit: '%/leg' },
    reference: { label: NAMES.janus(data), value: theirs?.median ?? Number.NaN, unit: '%/leg' },
    ratio,
    target: TARGET,
    met,
    ...(met ? {} : { missedBy: `${f0((ratio - 1) * 100)} % more CPU per leg than Janus` }),
    command: COMMAND,
    details: {
      cpuPerLeg: Object.fromEntries(
        data.settings.fixed.map((n) => [
          `${n} legs`,
          {
            ours: ours?.counts.find((c) => c.legs === n)?.cpuPerLeg,
            janus: janus?.counts.find((c) => c.legs === n)?.cpuPerLeg,
          },
        ]),
      ),
      legsPerCore: { ours: perLine(ours), janus: perLine(janus) },
    },
  };
}
