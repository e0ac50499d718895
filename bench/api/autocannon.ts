/**
 * API over HTTP at a fixed concurrency (`npm run bench -- api`, or
 * `npx tsx bench/api/autocannon.ts`): `GET /api/v1/user` and `GET /api/v1/users/paginated`
 * of the built-from-source product (api-host.ts: `startLeadline`, PGlite, 10,000 agents and
 * 100,000 calls in the demo account) next to a bare Fastify route returning the same JSON from
 * memory (bare-host.ts), both on core 0, each loaded in turn by autocannon in a process of its
 * own on core 1 (load.ts). Two rounds, endpoint by endpoint, ours then the bare route, so drift
 * hits both; then a CPU profile of the product's main thread under the same load, summarised by
 * where its time goes. Writes the `api` section of docs/benchmarks.md and the `api-user` and
 * `api-paginated` rows of the summary.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canPin, cpuMs, ready, startOnCore, stopChild } from '../lib/processes';
import { writeSection } from '../lib/report';
import { formatRatio, machine, recordRow } from '../lib/results';
import { quantile, round } from '../lib/stats';
import { summariseByArea, type Profile } from './profile-areas';
import type { LoadResult, LoadSpec } from './load';

const SERVER_CORE = 0;
const CLIENT_CORE = 1;
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 2);
const PAGES = 50;
const USERS = 10_000;
const CALLS = 100_000;
const TARGET = 3;
const SUPERVISOR = 'supervisor@example.com';
const DEMO_PASSWORD = 'leadline-demo';

const work = mkdtempSync(join(tmpdir(), 'leadline-bench-api-'));
const started = new Date();

/** Runs load.ts on the client core against `url` + `paths`; resolves with its result. */
async function load(spec: LoadSpec): Promise<LoadResult> {
  const child = startOnCore(CLIENT_CORE, ['--import', 'tsx', 'api/load.ts'], {
    LOAD: JSON.stringify(spec),
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`load generator failed (${code}): ${err}`);
  return JSON.parse(out.trim().split('\n').pop()!) as LoadResult;
}

async function login(base: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: SUPERVISOR, password: DEMO_PASSWORD }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (!response.ok || !cookie) throw new Error(`login failed: ${response.status}`);
  return cookie;
}

async function getJson(url: string, cookie: string): Promise<unknown> {
  const response = await fetch(url, { headers: { cookie } });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

const ENDPOINTS = [
  { key: 'user', name: 'GET /api/v1/user', paths: ['/api/v1/user'] },
  {
    key: 'paginated',
    name: 'GET /api/v1/users/paginated (status=all, pages 1–50)',
    paths: Array.from(
      { length: PAGES },
      (_, i) => `/api/v1/users/paginated?status=all&page=${i + 1}`,
    ),
  },
] as const;
type EndpointKey = (typeof ENDPOINTS)[number]['key'];

interface Measured extends LoadResult {
  server: 'product' | 'bare';
  endpoint: EndpointKey;
  round: number;
  /** The server process's CPU share of its core while loaded. */
  serverCpu: number;
}

const product = startOnCore(SERVER_CORE, ['--import', 'tsx', 'api/api-host.ts'], {
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: join(work, 'data'),
  LOG_LEVEL: 'warn',
  VOICE_ICE_ADDRESSES: '127.0.0.1',
  USERS: String(USERS),
  CALLS: String(CALLS),
  PROFILE_OUT: join(work, 'product.cpuprofile'),
});
let bare: ReturnType<typeof startOnCore> | undefined;
try {
  const seedStarted = performance.now();
  const { url: productUrl } = await ready<{ url: string }>(product, 'the product');
  console.log(`product up, seeded, in ${round((performance.now() - seedStarted) / 1000, 1)} s`);
  let productOut = '';
  product.stdout?.on('data', (d: Buffer) => (productOut += d.toString()));
  product.stderr?.resume();
  const cookie = await login(productUrl);

  // The same bodies, from the product, for the bare route.
  const pages: Record<string, unknown> = {};
  for (let page = 1; page <= PAGES; page++) {
    pages[String(page)] = await getJson(
      `${productUrl}/api/v1/users/paginated?status=all&page=${page}`,
      cookie,
    );
  }
  const userBody = await getJson(`${productUrl}/api/v1/user`, cookie);
  const bodiesFile = join(work, 'bodies.json');
  writeFileSync(bodiesFile, JSON.stringify({ user: userBody, pages }));
  const pageBytes = JSON.stringify(pages['1']).length;
  const userBytes = JSON.stringify(userBody).length;

  bare = startOnCore(SERVER_CORE, ['--import', 'tsx', 'api/bare-host.ts'], {
    BODIES: bodiesFile,
  });
  const { url: bareUrl } = await ready<{ url: string }>(bare, 'the bare Fastify server');
  bare.stdout?.resume();
  bare.stderr?.resume();

  const measured: Measured[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const endpoint of ENDPOINTS) {
      for (const [server, url, pid] of [
        ['product', productUrl, product.pid!],
        ['bare', bareUrl, bare.pid!],
      ] as const) {
        const cpuBefore = cpuMs(pid);
        const wallBefore = performance.now();
        const result = await load({
          url,
          paths: [...endpoint.paths],
          cookie: server === 'product' ? cookie : undefined,
          connections: CONNECTIONS,
          warmupSeconds: WARMUP_SECONDS,
          seconds: SECONDS,
        });
        const serverCpu = (cpuMs(pid) - cpuBefore) / (performance.now() - wallBefore);
        measured.push({ ...result, server, endpoint: endpoint.key, round: r, serverCpu });
        console.log(
          `round ${r} ${endpoint.name} ${server}: p50 ${round(result.p50)} ms, p99 ${round(result.p99)} ms, ${Math.round(result.requestsPerSecond)} req/s, non-2xx ${result.non2xx}, errors ${result.errors}`,
        );
      }
    }
  }

  // Where the product's main thread spends its time under the paginated load.
  product.kill('SIGUSR2');
  await load({
    url: productUrl,
    paths: [...ENDPOINTS[1].paths],
    cookie,
    connections: CONNECTIONS,
    warmupSeconds: 0,
    seconds: 5,
  });
  product.kill('SIGUSR2');
  const profileDeadline = performance.now() + 30_000;
  while (!productOut.includes('"profiled"')) {
    if (performance.now() > profileDeadline) throw new Error('the profile was not written');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const profile = JSON.parse(readFileSync(join(work, 'product.cpuprofile'), 'utf8')) as Profile;
  const areas = summariseByArea(profile);

  report(measured, areas, { pageBytes, userBytes });
} finally {
  if (bare) await stopChild(bare);
  await stopChild(product);
  rmSync(work, { recursive: true, force: true });
}

/** Median over rounds of a figure. */
function median(values: number[]): number {
  return quantile(values, 0.5);
}

function report(
  measured: Measured[],
  areas: ReturnType<typeof summariseByArea>,
  sizes: { pageBytes: number; userBytes: number },
): void {
  const pick = (endpoint: EndpointKey, server: 'product' | 'bare') =>
    measured.filter((m) => m.endpoint === endpoint && m.server === server);
  const summary = ENDPOINTS.map((endpoint) => {
    const ours = pick(endpoint.key, 'product');
    const ref = pick(endpoint.key, 'bare');
    const fig = (runs: Measured[]) => ({
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
  const m = machine();
  const topAreas = areas.areas.slice(0, 8);
  const topFunctions = areas.functions.slice(0, 12);
  const perRequestMs = (s: (typeof summary)[number]) => (s.ours.serverCpu * 1000) / s.ours.rps;
  const lines = [
    '## API over HTTP at fixed concurrency, next to a bare Fastify route',
    '',
    `Measured ${started.toISOString().slice(0, 10)} on ${m.cores} cores (${m.cpuModel}), Node ${m.node}, with \`npm run bench -- api\` (\`npx tsx bench/api/autocannon.ts\`).`,
    '',
    `**Set-up.** *Ours*: the product started by \`startLeadline\` as \`npm start\` starts it (bench/api/api-host.ts: HTTP API, PGlite on disk, the voice engine, the call flows; \`LOG_LEVEL=warn\`), its demo account seeded with ${USERS.toLocaleString('en-US')} agents and ${CALLS.toLocaleString('en-US')} finished calls (apps/server/src/test-support/scale-seed.ts), requests sent with the supervisor's session cookie. *Reference*: a bare Fastify server (bench/api/bare-host.ts: the same Fastify, no plugins) whose two routes return, from memory, the JSON bodies the product returned for the same requests (${sizes.userBytes} bytes for the user, ${sizes.pageBytes.toLocaleString('en-US')} for a page of users), serialised per request as the product's are. Both servers run at once on core ${SERVER_CORE}${canPin ? '' : ' (not pinned: taskset missing)'}; autocannon 9 in a process of its own on core ${CLIENT_CORE} (bench/api/load.ts) keeps ${CONNECTIONS} connections busy against one of them for ${WARMUP_SECONDS} s of warm-up and ${SECONDS} s measured; ${ROUNDS} rounds, each endpoint against ours then the bare route. Latency is each response's own time (autocannon's \`response\` event, in fractions of a millisecond: its histogram keeps whole milliseconds); figures are the median over the rounds, max over all. *users/paginated* cycles through \`status=all&page=1…${PAGES}\` (the bare route answers page n with the product's page n).`,
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
        `| ${s.endpoint.name} | ${label} | ${round(f.p50)} | ${round(f.p90)} | ${round(f.p99)} | ${round(f.max, 1)} | ${Math.round(f.rps).toLocaleString('en-US')} | ${Math.round(f.serverCpu * 100)} % | ${f.failures} | ${isOurs ? formatRatio(s.p99Ratio) : '1×'} | ${isOurs ? (s.p99Ratio <= TARGET ? 'yes' : `**no**, ${formatRatio(s.p99Ratio / TARGET)} over`) : ''} |`,
      );
    }
  }
  lines.push(
    '',
    `Per round: ${measured.map((x) => `${x.endpoint}/${x.server} r${x.round} p99 ${round(x.p99)} ms`).join('; ')}.`,
    '',
    '**Where the time goes.** At a fixed concurrency the latency is the queue: with ' +
      `${CONNECTIONS} requests always in flight on a saturated core, each waits for the ones ahead, so p50 ≈ ${CONNECTIONS} × the server's CPU per request. ` +
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
  const sections = lines.join('\n');
  const verdicts = summary.map((s) => {
    const met = s.p99Ratio <= TARGET;
    return recordRow({
      name: `api-${s.endpoint.key}`,
      title: `API: ${s.endpoint.key === 'user' ? '`GET /api/v1/user`' : '`GET /api/v1/users/paginated` (10,000 users)'}`,
      statistic: `p99 at ${CONNECTIONS} connections (autocannon)`,
      ours: { label: 'Leadline', value: s.ours.p99, unit: 'ms' },
      reference: {
        label: 'bare Fastify route, same JSON from memory',
        value: s.bare.p99,
        unit: 'ms',
      },
      ratio: s.p99Ratio,
      target: '≤ 3×',
      met,
      ...(met
        ? {}
        : {
            missedBy: `${formatRatio(s.p99Ratio / TARGET)} over the target; ${round(perRequestMs(s), 2)} ms of server CPU per request, mostly ${topAreas
              .slice(0, 2)
              .map((a) => a.area)
              .join(' and ')} (see the api section)`,
          }),
      command: 'npm run bench -- api',
      details: { ours: s.ours, bare: s.bare, p50Ratio: s.p50Ratio, connections: CONNECTIONS },
    });
  });
  writeSection('api', sections);
  console.log(
    verdicts
      .map((v) => `${v.name}: ${formatRatio(v.ratio)} (${v.met ? 'met' : 'missed'})`)
      .join('\n'),
  );
}
