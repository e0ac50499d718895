/**
 * The `api-latency` section of docs/benchmarks.md, rendered from the latencies
 * bench/api/api-latency.ts measured (stored in bench/results/sections/api-latency.json).
 * Pure: no clock, no machine, no files.
 */
import { round } from '../lib/stats';

/** One request's latency on one database (ms). */
export interface ApiLatencyRow {
  backend: string;
  name: string;
  p50: number;
  p99: number;
}

/** What the api-latency benchmark measured, and with which settings. */
export interface ApiLatencySectionData {
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  node: string;
  users: number;
  calls: number;
  samples: number;
  warmup: number;
  rows: ApiLatencyRow[];
  /** Why a database's rows are missing ('' when none is). */
  missing: string;
}

/** The section's markdown. */
export function renderApiLatencySection(data: ApiLatencySectionData): string {
  const { rows } = data;
  const pgNote = data.missing ? `\n${data.missing}\n` : '';
  const table = rows.map((r) => {
    const ref = rows.find(
      (x) => x.backend === r.backend && x.name.startsWith('GET /api/v1/user (reference)'),
    )!;
    const health = rows.find((x) => x.backend === r.backend && x.name.startsWith('GET /healthz'))!;
    return `| ${r.backend} | ${r.name} | ${round(r.p50)} | ${round(r.p99)} | ${round(r.p50 / health.p50, 1)}× | ${round(r.p50 / ref.p50, 1)}× |`;
  });
  return `## API latency with 10,000 users and 100,000 calls

Command: \`npx tsx bench/api/api-latency.ts\` (run ${data.date}, Node ${data.node}). One account holds ${data.users.toLocaleString('en-US')} agents (every 10th online, every 50th on a live call) and ${data.calls.toLocaleString('en-US')} finished calls with their call-user rows; ${data.samples} requests per line after ${data.warmup} warm-up requests, in process through \`fastify.inject\` (routing, session lookup, validation, queries, serialisation; no network). The last two columns are the p50 as a multiple of the same run's \`/healthz\` and \`GET /api/v1/user\` (a session lookup plus one small query).

| Database | Request | p50 ms | p99 ms | p50 / healthz | p50 / user |
|---|---|---:|---:|---:|---:|
${table.join('\n')}
${pgNote}`;
}
