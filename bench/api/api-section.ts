/**
 * The `api` section of docs/benchmarks.md (the API over HTTP at a fixed concurrency, next to a
 * bare Fastify route), rendered from the figures bench/api/autocannon.ts measured (stored in
 * bench/results/sections/api.json). Pure: no clock, no machine, no files.
 */
import { formatRatio, type Machine } from '../lib/results';
import { quantile, round } from '../lib/stats';
import type { LoadResult } from './load';

/** An endpoint the benchmark loads. */
export interface ApiEndpoint {
  key: 'user' | 'paginated';
  name: string;
}

/** One load of one endpoint on one server. */
export interface ApiMeasured extends LoadResult {
  server: 'product' | 'bare';
  endpoint: ApiEndpoint['key'];
  round: number;
  /** The server process's CPU share of its core while loaded. */
  serverCpu: number;
}

/** Where the product's main thread spent its time (profile-areas.ts, the top entries). */
export interface ApiProfile {
  busyMs: number;
  windowMs: number;
  areas: Array<{ area: string; share: number }>;
  functions: Array<{ name: string; share: number }>;
}

/** What the api benchmark measured, and with which settings. */
export interface ApiSectionData {
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  machine: Machine;
  users: number;
  calls: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  pages: number;
  /** Target: ours' p99 at most this many times the bare route's. */
  target: number;
  serverCore: number;
  clientCore: number;
  /** Whether processes were pinned to cores (`taskset` found). */
  canPin: boolean;
  endpoints: ApiEndpoint[];
  /** The JSON bodies' sizes (bytes). */
  sizes: { pageBytes: number; userBytes: number };
  measured: ApiMeasured[];
  profile: ApiProfile;
}

/** One server's figures on one endpoint: medians over the rounds, max over all. */
export interface ApiFigures {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  rps: number;
  serverCpu: number;
  clientCpu: number;
  failures: number;
}

/** One endpoint's figures, ours and the bare route's. */
export interface ApiSummary {
  endpoint: ApiEndpoint;
  ours: ApiFigures;
  bare: ApiFigures;
  p99Ratio: number;
  p50Ratio: number;
}

/** Median over rounds of a figure. */
const median = (values: number[]): number => quantile(values, 0.5);

/** Each endpoint's figures over the rounds. */
export function apiSummary(measured: ApiMeasured[], endpoints: ApiEndpoint[]): ApiSummary[] {
  const pick = (endpoint: ApiEndpoint['key'], server: 'product' | 'bare') =>
    measured.filter((m) => m.endpoint === endpoint && m.server === server);
  return endpoints.map((endpoint) => {
    const ours = pick(endpoint.key, 'product');
    const ref = pick(endpoint.key, 'bare');
    const fig = (runs: ApiMeasured[]): ApiFigures => ({
      p50: median(runs.map((m) => m.p50)),
      p90: median(runs.map((m) => m.p90)),
      p99: median(runs.map((m) => m.p99)),
      max: Math.max(...runs.map((m) => m.max)),
      rps: median(runs.map((m) => m.requestsPerSecond)),
      serverCpu: median(runs.map((m) => m.serverCpu)),
      clientCpu: median(runs.map((m) => m.clientCpu)),
      failures: runs.reduce((n, m) => n + m.non2xx + m.errors, 0),
    });
    const o = fig(ours);
    const b = fig(ref);
    return { endpoint, ours: o, bare: b, p99Ratio: o.p99 / b.p99, p50Ratio: o.p50 / b.p50 };
  });
}

/** Our server's CPU per request on an endpoint (ms). */
export const perRequestMs = (s: ApiSummary): number => (s.ours.serverCpu * 1000) / s.ours.rps;

/** The section's markdown. */
export function renderApiSection(data: ApiSectionData): string {
  const { machine: m, measured, sizes, profile: areas } = data;
  const { connections, target } = data;
  const summary = apiSummary(measured, data.endpoints);
  const topAreas = areas.areas.slice(0, 8);
  const topFunctions = areas.functions.slice(0, 12);
  const lines = [
    '## API over HTTP at fixed concurrency, next to a bare Fastify route',
    '',
    `Measured ${data.date} on ${m.cores} cores (${m.cpuModel}), Node ${m.node}, with \`npm run bench -- api\` (\`npx tsx bench/api/autocannon.ts\`).`,
    '',
    `**Set-up.** *Ours*: the product started by \`startLeadline\` as \`npm start\` starts it (bench/api/api-host.ts: HTTP API, PGlite on disk, the voice engine, the call flows; \`LOG_LEVEL=warn\`), its demo account seeded with ${data.users.toLocaleString('en-US')} agents and ${data.calls.toLocaleString('en-US')} finished calls (apps/server/src/test-support/scale-seed.ts), requests sent with the supervisor's session cookie. *Reference*: a bare Fastify server (bench/api/bare-host.ts: the same Fastify, no plugins) whose two routes return, from memory, the JSON bodies the product returned for the same requests (${sizes.userBytes} bytes for the user, ${sizes.pageBytes.toLocaleString('en-US')} for a page of users), serialised per request as the product's are. Both servers run at once on core ${data.serverCore}${data.canPin ? '' : ' (not pinned: taskset missing)'}; autocannon 9 in a process of its own on core ${data.clientCore} (bench/api/load.ts) keeps ${connections} connections busy against one of them for ${data.warmupSeconds} s of warm-up and ${data.seconds} s measured; ${data.rounds} rounds, each endpoint against ours then the bare route. Latency is each response's own time (autocannon's \`response\` event, in fractions of a millisecond: its histogram keeps whole milliseconds); figures are the median over the rounds, max over all. *users/paginated* cycles through \`status=all&page=1…${data.pages}\` (the bare route answers page n with the product's page n).`,
    '',
    '| Endpoint | Server | p50 ms | p90 ms | p99 ms | max ms | requests/s | server CPU (1 core) | failed | p99 / bare | target p99 ≤ 3× |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const s of summary) {
    for (const [label, f] of [
      ['Leadline', s.ours],
      ['bare Fastify (reference)', s.bare],
    ] as const) {
      const isOurs = label === 'Leadline';
      lines.push(
        `| ${s.endpoint.name} | ${label} | ${round(f.p50)} | ${round(f.p90)} | ${round(f.p99)} | ${round(f.max, 1)} | ${Math.round(f.rps).toLocaleString('en-US')} | ${Math.round(f.serverCpu * 100)} % | ${f.failures} | ${isOurs ? formatRatio(s.p99Ratio) : '1×'} | ${isOurs ? (s.p99Ratio <= target ? 'yes' : `**no**, ${formatRatio(s.p99Ratio / target)} over`) : ''} |`,
      );
    }
  }
  lines.push(
    '',
    `Per round: ${measured.map((x) => `${x.endpoint}/${x.server} r${x.round} p99 ${round(x.p99)} ms`).join('; ')}.`,
    '',
    '**Where the time goes.** At a fixed concurrency the latency is the queue: with ' +
      `${connections} requests always in flight on a saturated core, each waits for the ones ahead, so p50 ≈ ${connections} × the server's CPU per request. ` +
      summary
        .map(
          (s) =>
            `${s.endpoint.key === 'user' ? '`GET /api/v1/user`' : '`users/paginated`'}: ${round(perRequestMs(s), 2)} ms of server CPU per request for ours against ${round((s.bare.serverCpu * 1000) / s.bare.rps, 3)} ms for the bare route`,
        )
        .join('; ') +
      `. A CPU profile of the product's main thread under the paginated load (${round(areas.busyMs / 1000, 1)} s busy in ${round(areas.windowMs / 1000, 1)} s; SIGUSR2 to bench/api/api-host.ts, node:inspector, after the measured rounds) puts its self time in:`,
    '',
    '| Area | share of busy time |',
    '|---|---:|',
    ...topAreas.map((a) => `| ${a.area} | ${Math.round(a.share * 100)} % |`),
    '',
    'Busiest functions (self time):',
    '',
    '| Function | share |',
    '|---|---:|',
    ...topFunctions.map(
      (f) => `| \`${f.name.replace(/\|/g, '\\|')}\` | ${round(f.share * 100, 1)} % |`,
    ),
  );
  return lines.join('\n');
}
