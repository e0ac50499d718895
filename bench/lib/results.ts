/**
 * Headline results of the side-by-side benchmarks: each benchmark records one row (ours, the
 * reference measured in the same run, the ratio and its target) in `bench/results/<name>.json`;
 * `bench/run.ts` gathers the rows of a run into `bench/results/latest.json` and the summary
 * table of docs/benchmarks.md.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { writeSection } from './report';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** One measured side of a row. */
export interface Measure {
  /** What was measured, e.g. "console: Accept → first lead audio". */
  label: string;
  value: number;
  /** e.g. "ms", "legs/core". */
  unit: string;
}

/** A benchmark's headline row. */
export interface BenchRow {
  /** The row's id (a benchmark may record more than one row; its command names it). */
  name: string;
  /** The row's title in the summary, e.g. "call setup". */
  title: string;
  /** Which statistic `value` is, e.g. "p50 over 20 calls". */
  statistic: string;
  ours: Measure;
  reference: Measure;
  /** ours / reference (for capacity: ours / reference legs per core). */
  ratio: number;
  /** The target as written in the issue, e.g. "≤ 2×", "≤ floor + 30 ms". */
  target: string;
  met: boolean;
  /** Where the target is missed: by how much, and what the profile shows. */
  missedBy?: string;
  /** The command that runs this benchmark alone. */
  command: string;
  /** ISO time the row was measured. */
  measuredAt: string;
  /** Any further figures worth keeping in the JSON (free form). */
  details?: Record<string, unknown>;
}

/** The machine a run measured on. */
export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machine(): Machine {
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** bench/results/latest.json: the last run's metadata and every benchmark's latest row. */
export interface LatestResults {
  run?: {
    command: string;
    benchmarks: string[];
    startedAt: string;
    finishedAt?: string;
    machine: Machine;
    loadAverage: { start: number[]; end?: number[] };
    failed?: string[];
  };
  rows: Record<string, BenchRow>;
}

export const LATEST_FILE = `${RESULTS_DIR}latest.json`;

export function readLatest(): LatestResults {
  return existsSync(LATEST_FILE)
    ? (JSON.parse(readFileSync(LATEST_FILE, 'utf8')) as LatestResults)
    : { rows: {} };
}

/**
 * Writes bench/results/latest.json and the summary table of docs/benchmarks.md, rendered from the
 * JSON as written (so the table is what the stored file renders: bench/lib/doc-generated.test.ts).
 */
export function writeLatest(latest: LatestResults): void {
  const text = `${JSON.stringify(latest, null, 2)}\n`;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(LATEST_FILE, text);
  writeSection('side-by-side', summaryMarkdown(JSON.parse(text) as LatestResults), undefined, true);
}

/**
 * Records `row` as its benchmark's latest result in bench/results/latest.json and regenerates
 * the summary table of docs/benchmarks.md.
 */
export function recordRow(row: Omit<BenchRow, 'measuredAt'>): BenchRow {
  const full: BenchRow = { ...row, measuredAt: new Date().toISOString() };
  const latest = readLatest();
  latest.rows[row.name] = full;
  writeLatest(latest);
  return full;
}

/**
 * Removes `name`'s row from bench/results/latest.json (its benchmark ran and could not measure:
 * an old figure must not stand in the summary as if it were this run's).
 */
export function dropRow(name: string): void {
  const latest = readLatest();
  delete latest.rows[name];
  writeLatest(latest);
}

/** Formats a ratio for a table: 2 decimals under 10. */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  return `${ratio < 10 ? Number(ratio.toFixed(2)) : Number(ratio.toFixed(1))}×`;
}

const formatValue = (m: Measure): string =>
  `${Number(m.value.toPrecision(3)).toLocaleString('en-US')} ${m.unit}`;

/** The order of the rows in the summary: the issue's table. */
export const SIDE_BY_SIDE = [
  'engine-capacity',
  'call-setup',
  'incoming-lead',
  'incoming-lead-postgres-1',
  'incoming-lead-postgres-3',
  'mouth-to-ear',
  'api-user',
  'api-paginated',
  'app-load',
  'routing-pglite-1',
  'routing-postgres-1',
  'routing-postgres-3',
] as const;

/**
 * The summary section of docs/benchmarks.md, from `latest` (bench/results/latest.json) alone:
 * pure, so the doc's test renders it again from the file.
 */
export function summaryMarkdown(latest: LatestResults): string {
  const run = latest.run;
  const m = run?.machine;
  const lines = [
    '## Side by side: each headline figure next to a peer or the floor',
    '',
    run && m
      ? `Last \`${run.command}\` run started ${run.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; load average at the start ${run.loadAverage.start.map((n) => n.toFixed(2)).join(' / ')}${run.loadAverage.end ? `, at the end ${run.loadAverage.end.map((n) => n.toFixed(2)).join(' / ')}` : ''}.${run.failed?.length ? ` Failed in that run: ${run.failed.join(', ')}.` : ''} Each row's reference was measured in the same run as ours; the JSON is \`bench/results/latest.json\`.`
      : 'Machine: not recorded yet (`npm run bench` records the run and its machine).',
    '',
    '| Benchmark | Ours | Reference (same run) | Statistic | Ratio | Target | Met | Measured | Reproduce |',
    '|---|---|---|---|---:|---|---|---|---|',
  ];
  const names = [
    ...SIDE_BY_SIDE.filter((name) => latest.rows[name]),
    ...Object.keys(latest.rows).filter(
      (name) => !(SIDE_BY_SIDE as readonly string[]).includes(name),
    ),
  ];
  for (const name of names) {
    const row = latest.rows[name]!;
    lines.push(
      `| ${row.title} | ${row.ours.label}: **${formatValue(row.ours)}** | ${row.reference.label}: ${formatValue(row.reference)} | ${row.statistic} | ${formatRatio(row.ratio)} | ${row.target} | ${row.met ? 'yes' : `**no**${row.missedBy ? ` (${row.missedBy})` : ''}`} | ${row.measuredAt.slice(0, 16).replace('T', ' ')} | \`${row.command}\` |`,
    );
  }
  const missing = SIDE_BY_SIDE.filter((name) => !latest.rows[name]);
  if (missing.length) lines.push('', `Not measured yet: ${missing.join(', ')}.`);
  lines.push(
    '',
    'Each benchmark has its own section below with its set-up, its other figures and, where a target is missed, what the profile shows.',
  );
  return lines.join('\n');
}
