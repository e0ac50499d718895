/**
 * The `floor` section of docs/benchmarks.md, rendered from the figures bench/floor/floor.ts
 * measured (stored in bench/results/sections/floor.json). Pure: no clock, no machine, no files.
 */
import { loadSentence } from '../lib/machine-load';
import { round } from '../lib/stats';

/** Latency figures of one kind of request (ms). */
export interface FloorFigures {
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/** One database's measurement. */
export interface FloorRow {
  backend: string;
  floor: FloorFigures;
  reference: FloorFigures;
  seedSeconds: number;
  callsToday: number;
  agents: number;
  intervals: number;
}

/** What the floor benchmark measured, and with which settings. */
export interface FloorSectionData {
  /** ISO time the run started. */
  startedAt: string;
  node: string;
  command: string;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  agents: number;
  calls: number;
  queued: number;
  samples: number;
  warmup: number;
  targetP95Ms: number;
  rows: FloorRow[];
  /** Why a database's rows are missing ('' when none is). */
  missing: string;
}

/** The section's markdown. */
export function renderFloorSection(data: FloorSectionData): string {
  const { agents, calls, queued, samples, warmup, targetP95Ms } = data;
  const pgNote = data.missing ? `\n${data.missing} The target is not shown met.\n` : '';
  // null: a figure JSON could not keep (NaN when nothing was measured).
  const ms = (value: number | null) => (value === null ? '–' : round(value, 1));
  const table = data.rows.map(
    (r) =>
      `| ${r.backend} | ${r.agents} | ${r.callsToday.toLocaleString('en-US')} | ${r.intervals} | **${ms(r.floor.p95)}** | ${ms(r.floor.p50)} | ${ms(r.floor.p99)} | ${ms(r.floor.min)}–${ms(r.floor.max)} | ${ms(r.reference.p50)} / ${ms(r.reference.p95)} | ${round(r.floor.p50 / r.reference.p50, 1)}× | ${r.floor.p95 < targetP95Ms ? 'met' : '**missed**'} |`,
  );
  return `## The floor at size: 500 agents, 100,000 calls today

Run ${data.startedAt.slice(0, 16).replace('T', ' ')} UTC, Node ${data.node}. Command: \`${data.command}\` (or \`npx tsx bench/floor/floor.ts\`). ${loadSentence(data.loadAtStart, data.loadAtEnd)}

One account holds ${agents} agents (three in ten on a call, one ringing, one wrapping up, two available, one away, two offline) and ${calls.toLocaleString('en-US')} offered calls that arrived today between the account's midnight and a minute ago (answered, missed and abandoned, web and inbound, with talk and wrap-up), each answered one with its agent's call-user row, and ${queued} leads waiting; the account's zone puts the run in its afternoon, so the day has about 64 intervals. ${samples} requests of \`GET /api/v1/floor\` as the supervisor after ${warmup} warm-up ones, each followed by the reference \`GET /api/v1/user\`, in process (\`fastify.inject\`: session, role, the floor's queries, serialisation; no network). The day's figures come from the counts the database keeps as calls change (\`apps/server/src/floor/floor-counts.ts\`: a trigger appends each change's effect, each instance folds them in every 5 s); the seed's day of changes is folded once and the table vacuumed before timing, as the running product does as it goes. Counting the day's calls at each read instead took 130–270 ms for the figures alone on PGlite. Target (issue 39): **p95 under ${targetP95Ms} ms** on both databases.

| Database | agents | offered today | intervals | floor p95 ms | p50 | p99 | min–max | user p50 / p95 ms | floor p50 / user p50 | target |
|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|
${table.join('\n')}
${pgNote}`;
}
