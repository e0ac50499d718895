/**
 * The engine benchmark (`npx tsx bench/engine/run.ts`): how the media engine paces frames as legs grow, and
 * whether API load on the same process bends it. Writes its section of docs/benchmarks.md.
 *
 * For each N: the engine (bench/engine/engine-host.ts: VoiceEngine + WorkerMediaEngine, no
 * database) runs pinned to core 0; N werift client legs (bench-client.ts) run pinned to core 1,
 * each placing a two-party call (the leg and a virtual lead the engine dials), at most
 * `BENCH_SETUP_CONCURRENCY` setting up at a time (a leg that is not up within 15 s counts as
 * failed; the run goes on). Then the
 * built product (`node apps/server/dist/main.js`) is pinned to core 0 with 50 legs, measured
 * without and with 500 requests/s of API load (autocannon, on core 1).
 *
 * Environment: `BENCH_LEGS` (default 25,50,100,150,200), `BENCH_WINDOW_MS` (20000),
 * `BENCH_WORKERS` (media workers of the engine host; default the engine's default),
 * `BENCH_THREAD_NICE` (their threads' nice value, `none` to leave it; default the engine's),
 * `BENCH_SETUP_CONCURRENCY` (legs setting up at a time; default 25, 0 = all at once),
 * `BENCH_API=0` to skip the product run, `BENCH_WRITE=0` to print instead of writing the doc.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { defaultMediaWorkers, type WorkerStats } from '@leadline/voice';
import { startBuiltProduct } from '../lib/built-product';
import { startOnCore, stopChild } from '../lib/processes';
import { publishSection, renderSection } from '../lib/sections';
import type {
  EngineClientResult as ClientResult,
  EngineRun as Run,
  EngineSectionData,
} from './engine-section';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const legCounts = (process.env.BENCH_LEGS ?? '25,50,100,150,200').split(',').map(Number);
const windowMs = Number(process.env.BENCH_WINDOW_MS ?? 20_000);
const warmupMs = 3000;
const workers = process.env.BENCH_WORKERS;
const threadNice = process.env.BENCH_THREAD_NICE;
const setupConcurrency = Number(process.env.BENCH_SETUP_CONCURRENCY ?? 25);
const SETUP_TIMEOUT_MS = 15_000;
const runApi = process.env.BENCH_API !== '0';
const writeDoc = process.env.BENCH_WRITE !== '0';
const LEAD = '+15550100042';
const API_RATE = 500;
const CLK_TCK = 100;
/** Nice value of the bench client (see `drive`). */
const CLIENT_NICE = -10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of /proc/pid/stat; index 11 and 12 after the name.
  return Number(fields[11]) + Number(fields[12]);
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = cpuTicks(pid);
  await sleep(ms);
  return ((cpuTicks(pid) - before) / CLK_TCK / (ms / 1000)) * 100;
}

/** Starts the engine host on core 0; resolves with it and its port. */
async function startHost(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = startOnCore(0, ['--import', 'tsx', 'engine/engine-host.ts'], {
    PORT: '0',
    DATA_DIR: dataDir,
    ...(workers ? { WORKERS: workers } : {}),
    ...(threadNice ? { THREAD_NICE: threadNice } : {}),
  });
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const parsed = JSON.parse(line) as { ready?: boolean; port?: number };
    if (parsed.ready) return { child, port: parsed.port! };
  }
  throw new Error(`the engine host did not start: ${errors}`);
}

/**
 * Runs the client with `legs` legs against `url`, measuring the engine process `pid` over the
 * client's window; `onConnected` runs when every leg is up (to start API load).
 */
async function drive(
  pid: number,
  url: string,
  token: string,
  legs: number,
  hooks: { statsUrl?: string; onConnected?: () => void } = {},
): Promise<Omit<Run, 'label' | 'idleCpuPercent' | 'idleRssMb' | 'api'>> {
  // The load generator runs ahead of other work on its core (where allowed: `nice` runs it
  // unchanged otherwise), so its timestamps measure the engine, not its own waits for the CPU.
  const client = startOnCore(
    1,
    ['--import', 'tsx', 'engine/bench-client.ts'],
    {
      URL: url,
      TOKEN: token,
      N: String(legs),
      TO: LEAD,
      WARMUP_MS: String(warmupMs),
      WINDOW_MS: String(windowMs),
      SETUP_TIMEOUT_MS: String(SETUP_TIMEOUT_MS),
      ...(setupConcurrency > 0 ? { CONCURRENCY: String(setupConcurrency) } : {}),
    },
    CLIENT_NICE,
  );
  // A last resort: the client bounds every leg's setup, so it ends well before this.
  const waves = Math.ceil(legs / (setupConcurrency > 0 ? setupConcurrency : legs));
  const watchdog = setTimeout(
    () => client.kill('SIGKILL'),
    waves * SETUP_TIMEOUT_MS + warmupMs + windowMs + 120_000,
  );
  let errors = '';
  client.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  let ticksAtStart = 0;
  let startedAt = 0;
  // null until measured: the figures go to the section's JSON, which has no NaN.
  let cpuPercent: number | null = null;
  let rss: number | null = null;
  let loop: Run['loop'];
  let setupTicks = 0;
  let setupCpuMsPerLeg: number | null = null;
  let allUpMs: number | null = null;
  let result: ClientResult | undefined;
  const stats = async (): Promise<WorkerStats[] | undefined> =>
    hooks.statsUrl ? ((await (await fetch(hooks.statsUrl)).json()) as WorkerStats[]) : undefined;
  for await (const line of createInterface({ input: client.stdout! })) {
    const message = JSON.parse(line) as { phase: string } & Partial<ClientResult> & {
        failed?: number;
        firstError?: string;
        allConnectedMs?: number;
        phases?: unknown;
      };
    if (message.phase === 'setup-start') {
      setupTicks = cpuTicks(pid);
    } else if (message.phase === 'connected') {
      setupCpuMsPerLeg = ((cpuTicks(pid) - setupTicks) * (1000 / CLK_TCK)) / legs;
      allUpMs = message.allConnectedMs ?? null;
      if (message.failed) console.error(`  ${message.failed} legs failed: ${message.firstError}`);
      console.log(
        `  set up in ${Math.round(message.allConnectedMs ?? NaN)} ms: ${JSON.stringify(message.phases)}`,
      );
      hooks.onConnected?.();
    } else if (message.phase === 'window-start') {
      await stats();
      ticksAtStart = cpuTicks(pid);
      startedAt = performance.now();
    } else if (message.phase === 'window-end') {
      const seconds = (performance.now() - startedAt) / 1000;
      cpuPercent = ((cpuTicks(pid) - ticksAtStart) / CLK_TCK / seconds) * 100;
      rss = rssMb(pid);
      const windowStats = await stats();
      if (windowStats) {
        loop = {
          p99: Math.max(...windowStats.map((s) => s.frameLateness.p99)),
          max: Math.max(...windowStats.map((s) => s.frameLateness.max)),
          skipped: windowStats.reduce((sum, s) => sum + s.framesSkipped, 0),
          endP99: Math.max(...windowStats.map((s) => s.frameEndLateness.p99)),
          endMax: Math.max(...windowStats.map((s) => s.frameEndLateness.max)),
          gcMaxMs: Math.max(...windowStats.map((s) => s.gc.maxMs)),
          gcMsPerSecond: windowStats.reduce((sum, s) => sum + s.gc.totalMs, 0) / seconds,
        };
      }
    } else if (message.phase === 'result') {
      result = message as unknown as ClientResult;
    }
  }
  await new Promise((resolve) =>
    client.exitCode === null ? client.once('exit', resolve) : resolve(null),
  );
  clearTimeout(watchdog);
  if (!result) throw new Error(`the bench client failed: ${errors}`);
  return {
    legs,
    result,
    cpuPercent,
    rssMb: rss,
    setupCpuMsPerLeg,
    allUpMs,
    ...(loop ? { loop } : {}),
  };
}

async function engineRun(legs: number): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
  const host = await startHost(dataDir);
  try {
    const pid = host.child.pid!;
    await sleep(2000);
    const idleCpuPercent = await cpuOver(pid, 3000);
    const idleRssMb = rssMb(pid);
    const measured = await drive(pid, `ws://127.0.0.1:${host.port}/signal`, 'bench', legs, {
      statsUrl: `http://127.0.0.1:${host.port}/stats`,
    });
    return { label: `engine, ${legs} legs`, idleCpuPercent, idleRssMb, ...measured };
  } finally {
    await stopChild(host.child, 10_000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Cookie, CSRF token and access token of the demo agent on the product at `base`. */
async function demoAgent(base: string): Promise<{ cookie: string; token: string }> {
  const login = await fetch(`${base}/api/v1/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'agent1@example.com', password: 'leadline-demo' }),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (!login.ok || !cookie) throw new Error(`demo login failed: ${login.status}`);
  const tokenResponse = await fetch(`${base}/api/v1/twilio/token2?time=1`, { headers: { cookie } });
  const { token } = (await tokenResponse.json()) as { token: string };
  return { cookie, token };
}

/** autocannon on core 1 at `rate` requests/s for `seconds`; resolves with its JSON summary. */
function loadApi(
  url: string,
  rate: number,
  seconds: number,
  cookie?: string,
): Promise<{
  requests: { total: number; average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}> {
  const args = [
    join(repoRoot, 'node_modules/autocannon/autocannon.js'),
    '-c',
    '10',
    '-R',
    String(rate),
    '-d',
    String(seconds),
    '--json',
    ...(cookie ? ['-H', `cookie=${cookie}`] : []),
    url,
  ];
  const child = startOnCore(1, args, {});
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', () => {
      try {
        resolve(JSON.parse(out) as never);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

async function productRuns(legs: number): Promise<Run[]> {
  const main = join(repoRoot, 'apps/server/dist/main.js');
  if (!existsSync(main)) {
    console.log('building the product (npm run build)…');
    spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  }
  const product = await startBuiltProduct({}, { core: 0 });
  const base = product.url;
  const port = new URL(base).port;
  try {
    const pid = product.pid;
    const { cookie, token } = await demoAgent(base);
    await sleep(2000);
    const idleCpuPercent = await cpuOver(pid, 3000);
    const idleRssMb = rssMb(pid);
    const url = `ws://127.0.0.1:${port}/signal`;
    const quiet = await drive(pid, url, token, legs);
    await sleep(3000);
    let load:
      | Promise<[Awaited<ReturnType<typeof loadApi>>, Awaited<ReturnType<typeof loadApi>>]>
      | undefined;
    const seconds = Math.ceil((warmupMs + windowMs) / 1000) + 2;
    const loaded = await drive(pid, url, token, legs, {
      onConnected: () => {
        load = Promise.all([
          loadApi(`${base}/healthz`, API_RATE / 2, seconds),
          loadApi(`${base}/api/v1/user`, API_RATE / 2, seconds, cookie),
        ]);
      },
    });
    const [health, user] = await load!;
    const requests = health.requests.total + user.requests.total;
    return [
      { label: `product, ${legs} legs, no API load`, idleCpuPercent, idleRssMb, ...quiet },
      {
        label: `product, ${legs} legs, ${API_RATE} req/s API load`,
        idleCpuPercent,
        idleRssMb,
        ...loaded,
        api: {
          requests,
          rps: health.requests.average + user.requests.average,
          p99Ms: Math.max(health.latency.p99, user.latency.p99),
          errors: health.non2xx + user.non2xx + health.errors + user.errors,
        },
      },
    ];
  } finally {
    await product.stop();
  }
}

const engineRuns: Run[] = [];
for (const legs of legCounts) {
  console.log(`engine, ${legs} legs…`);
  const run = await engineRun(legs);
  console.log(JSON.stringify(run));
  engineRuns.push(run);
}
const products = runApi ? await productRuns(50) : [];
for (const run of products) console.log(JSON.stringify(run));
const data: EngineSectionData = {
  date: new Date().toISOString().slice(0, 10),
  cores: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown CPU',
  node: process.version,
  // The host is pinned to one core (`startOnCore(0, …)`): the engine's default for one core.
  mediaWorkers: workers ?? String(defaultMediaWorkers(1)),
  lead: LEAD,
  setupConcurrency,
  warmupMs,
  windowMs,
  setupTimeoutMs: SETUP_TIMEOUT_MS,
  apiRate: API_RATE,
  engineRuns,
  products,
};
if (writeDoc) {
  publishSection('engine', data);
  console.log('wrote the engine section of docs/benchmarks.md');
} else {
  console.log(renderSection('engine', data));
}
