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
import { formatRatio, machine, recordRow } from '../lib/results';
import { publishSection } from '../lib/sections';
import { round } from '../lib/stats';
import {
  apiSummary,
  perRequestMs,
  type ApiEndpoint,
  type ApiMeasured,
  type ApiProfile,
} from './api-section';
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
] as const satisfies ReadonlyArray<ApiEndpoint & { paths: readonly string[] }>;

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

  const measured: ApiMeasured[] = [];
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

function report(
  measured: ApiMeasured[],
  areas: ReturnType<typeof summariseByArea>,
  sizes: { pageBytes: number; userBytes: number },
): void {
  const endpoints = ENDPOINTS.map(({ key, name }) => ({ key, name }));
  const summary = apiSummary(measured, endpoints);
  // What the section shows of the profile: its top areas and functions.
  const profile: ApiProfile = {
    busyMs: areas.busyMs,
    windowMs: areas.windowMs,
    areas: areas.areas.slice(0, 8),
    functions: areas.functions.slice(0, 12),
  };
  const topAreas = profile.areas;
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
  publishSection('api', {
    date: started.toISOString().slice(0, 10),
    machine: machine(),
    users: USERS,
    calls: CALLS,
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    rounds: ROUNDS,
    pages: PAGES,
    target: TARGET,
    serverCore: SERVER_CORE,
    clientCore: CLIENT_CORE,
    canPin,
    endpoints,
    sizes,
    measured,
    profile,
  });
  console.log(
    verdicts
      .map((v) => `${v.name}: ${formatRatio(v.ratio)} (${v.met ? 'met' : 'missed'})`)
      .join('\n'),
  );
}
