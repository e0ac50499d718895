/**
 * The realtime benchmark (`npx tsx bench/realtime/run.ts`): `BENCH_CLIENTS` (1,000) pusher-js 8
 * clients in Node on one instance of the product, each on its own presence channel and on the
 * demo account's channel; an agent changes status (`PUT /api/v1/user/status`, Away / Available
 * in turn) and every client's receipt of the `agent-status` event is timed from just before the
 * PUT is sent. Reference in the same run: a bare `ws` server (bare-broadcast-server.ts) sending
 * the same event frame to the same number of bare `ws` clients, timed from just before its
 * send loop. Writes its section of docs/benchmarks.md.
 *
 * Processes: both servers (product-host.ts and the bare server) on core 0, each one's clients
 * in a load process of its own (load-clients.ts) on core 1, this process (the agent's HTTP
 * session and PStream socket, the PUTs) unpinned. The changes alternate between the product
 * and the bare server, so both share whatever else the machine is doing. Times are read on
 * `performance.timeOrigin + performance.now()` in every process; the clocks' agreement is
 * measured and reported.
 *
 * Environment: `BENCH_CLIENTS` (1000), `BENCH_CHANGES` (30 measured), `BENCH_WARMUP` (5 changes
 * before them, not counted), `BENCH_GAP_MS` (200: pause after each change has reached every
 * client), `BENCH_CPU_PROF=<dir>` (the product runs with `node --cpu-prof`, its profiles
 * written there; the measured window is written there as window.json for
 * bench/lib/profile-window.ts), `BENCH_LOAD_CPU_PROF=<dir>` (the same for the load processes,
 * in `<dir>/pusher` and `<dir>/bare`; the window goes to `BENCH_CPU_PROF` when both are set,
 * else here), `BENCH_TRACE=1` (each change's first and last receipt and its HTTP answer),
 * `BENCH_WRITE=0` to print instead of writing the doc.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { PStreamTestClient } from '@leadline/voice/testing';
import { SIGNAL_PATH } from '../../apps/server/src/leadline';
import { HttpSession } from '../../apps/server/src/test-support/http-session';
import { canPin, startOnCore, stopChild } from '../lib/processes';
import { publishSection, renderSection } from '../lib/sections';
import { quantile, round } from '../lib/stats';
import { ONE_ADDRESS_LOAD } from '../lib/one-address-load';
import type { RealtimeSectionData, RealtimeStats } from './realtime-section';

const clients = Number(process.env.BENCH_CLIENTS ?? 1000);
const changes = Number(process.env.BENCH_CHANGES ?? 30);
const warmup = Number(process.env.BENCH_WARMUP ?? 5);
const gapMs = Number(process.env.BENCH_GAP_MS ?? 200);
const cpuProfDir = process.env.BENCH_CPU_PROF;
const loadCpuProfDir = process.env.BENCH_LOAD_CPU_PROF;
const writeDoc = process.env.BENCH_WRITE !== '0';
const SERVER_CORE = 0;
const CLIENT_CORE = 1;
const AGENT_EMAIL = 'agent1@example.com';
const EVENT = 'agent-status';
/** Clock samples per process pair (the one with the shortest round trip is kept). */
const CLOCK_SAMPLES = 20;
/** Longest wait for the agent's softphone to make them available. */
const ONLINE_WAIT_MS = 20_000;

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the first JSON line of `child` that has `ready`; then drains its output. */
async function ready<T>(child: ChildProcess, what: string): Promise<T> {
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => {
    errors += d.toString();
    process.stderr.write(`  ${what}: ${d.toString()}`);
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    try {
      const parsed = JSON.parse(line) as { ready?: boolean };
      if (parsed.ready) {
        // Never leave a pipe unread: a full one would stop the child at its next log line.
        lines.close();
        child.stdout?.resume();
        return parsed as T;
      }
    } catch {
      // Not ours (a log line).
    }
  }
  throw new Error(`${what} did not start: ${errors}`);
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/**
 * The offset of `url`'s clock (`GET` → `{now}`) from ours, ms, from the sample with the shortest
 * round trip, and half that round trip (the bound of the estimate's error).
 */
async function clockOffset(url: string): Promise<{ offsetMs: number; errorMs: number }> {
  let best = { offsetMs: NaN, errorMs: Infinity };
  for (let i = 0; i < CLOCK_SAMPLES; i++) {
    const sent = now();
    const { now: theirs } = await json<{ now: number }>(await fetch(url));
    const back = now();
    const half = (back - sent) / 2;
    if (half < best.errorMs) best = { offsetMs: theirs - (sent + half), errorMs: half };
  }
  return best;
}

/** One change: when it was started (shared clock), answered, and each client's receipt. */
interface Change {
  startedAt: number;
  /** The bare server's clock just before its send loop, and the loop's duration (bare only). */
  sentAt?: number;
  loopMs?: number;
  answeredAt: number;
  receipts: Array<number | null>;
}

/** What one server's side of the run measured. */
interface Run {
  changes: Change[];
  loopDelayMs: { p99: number; max: number };
  /** The load process's longest and total garbage-collection pause while measuring. */
  gcMs: { max: number; total: number };
  /** The load process's clock minus the clock the changes were started on. */
  clock: { offsetMs: number; errorMs: number };
}

/** A started child and how to stop it. */
interface Started {
  stop(): Promise<void>;
}

/** One side of the run: a server, its load process, and how it makes one change. */
interface Side extends Started {
  name: 'pusher' | 'bare';
  loadUrl: string;
  userId: number;
  change(status: 'away' | 'available'): Promise<Omit<Change, 'receipts'>>;
  /** The clock the changes start on, when it is not this process's. */
  startClockUrl?: string;
}

/** Starts the load process (`mode`, `env`) on the client core; resolves once all subscribed. */
async function startLoad(
  mode: 'pusher' | 'bare',
  env: Record<string, string>,
): Promise<Started & { url: string }> {
  const prof = loadCpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${loadCpuProfDir}/${mode}`] : [];
  const load = startOnCore(CLIENT_CORE, [...prof, '--import', 'tsx', 'realtime/load-clients.ts'], {
    MODE: mode,
    CLIENTS: String(clients),
    ...env,
  });
  const connectStart = now();
  try {
    const { port } = await ready<{ port: number }>(load, `${mode} clients`);
    console.log(
      `  ${clients} ${mode} clients connected and subscribed in ${round((now() - connectStart) / 1000, 1)} s`,
    );
    return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(load) };
  } catch (error) {
    await stopChild(load);
    throw error;
  }
}

/** The product run's measured window on the monotonic clock in µs (as `--cpu-prof` counts). */
const measuredWindow = { startUs: 0, endUs: 0 };
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The reference: the bare `ws` broadcast server and its bare clients. */
async function startBare(userId: number, channel: string): Promise<Side> {
  const server = startOnCore(
    SERVER_CORE,
    ['--import', 'tsx', 'realtime/bare-broadcast-server.ts'],
    { PORT: '0' },
  );
  try {
    const { port } = await ready<{ port: number }>(server, 'the bare server');
    const base = `http://127.0.0.1:${port}`;
    const load = await startLoad('bare', { WS_PORT: String(port) });
    return {
      name: 'bare',
      loadUrl: load.url,
      userId,
      startClockUrl: `${base}/clock`,
      change: async (status) => {
        const startedAt = now();
        const response = await post(`${base}/broadcast`, {
          event: EVENT,
          channel,
          data: {
            user_id: userId,
            status,
            is_available: status === 'available',
            at: new Date().toISOString(),
          },
        });
        const { sentAt, loopMs } = await json<{ sentAt: number; loopMs: number }>(response);
        return { startedAt, sentAt, loopMs, answeredAt: now() };
      },
      stop: async () => {
        await load.stop();
        await stopChild(server);
      },
    };
  } catch (error) {
    await stopChild(server);
    throw error;
  }
}

/** The product and its pusher-js clients; agent1's status changes. */
async function startProduct(): Promise<Side & { account: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-bench-realtime-'));
  const secret = randomBytes(24).toString('hex');
  const prof = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  const server = startOnCore(
    SERVER_CORE,
    [...prof, '--import', 'tsx', 'realtime/product-host.ts'],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOICE_ICE_ADDRESSES: '127.0.0.1',
      PUSHER_SECRET: secret,
      ...ONE_ADDRESS_LOAD,
    },
  );
  let phone: PStreamTestClient | undefined;
  const stopServer = async () => {
    phone?.close();
    await stopChild(server);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { url } = await ready<{ url: string }>(server, 'the product');
    const agent = await HttpSession.login(url, AGENT_EMAIL);
    // Only an agent whose softphone is registered is available or away: before, a change of
    // their choice is no change of status and nothing is published.
    const { token } = (
      await agent.api<{ token: string }>('GET', `/api/v1/twilio/token2?time=${Date.now()}`)
    ).body;
    phone = await PStreamTestClient.connect(`${url.replace(/^http/, 'ws')}${SIGNAL_PATH}`, 10_000);
    await phone.login(token);
    type Me = {
      user: { status: string };
      realtime: { key: string; options: { wsPort: number }; channels: { account: string } };
    };
    const online = performance.now() + ONLINE_WAIT_MS;
    let me = (await agent.api<Me>('GET', '/api/v1/user')).body;
    while (me.user.status !== 'available') {
      if (performance.now() > online) throw new Error(`${AGENT_EMAIL} is ${me.user.status}`);
      await sleep(50);
      me = (await agent.api<Me>('GET', '/api/v1/user')).body;
    }
    const load = await startLoad('pusher', {
      WS_PORT: String(me.realtime.options.wsPort),
      PUSHER_KEY: me.realtime.key,
      PUSHER_SECRET: secret,
      ACCOUNT_CHANNEL: me.realtime.channels.account,
    });
    return {
      name: 'pusher',
      loadUrl: load.url,
      userId: agent.userId,
      account: me.realtime.channels.account,
      change: async (status) => {
        const startedAt = now();
        const response = await fetch(`${url}/api/v1/user/status`, {
          method: 'PUT',
          headers: {
            'content-type': 'application/json',
            cookie: agent.cookie,
            'x-csrf-token': agent.csrf,
          },
          body: JSON.stringify({ status }),
        });
        await json(response);
        return { startedAt, answeredAt: now() };
      },
      stop: async () => {
        await load.stop();
        await stopServer();
      },
    };
  } catch (error) {
    await stopServer();
    throw error;
  }
}

/**
 * `warmup + changes` changes on each side, interleaved (product, then bare, and again), each
 * once the one before has reached every client, so that both sides share whatever else the
 * machine does meanwhile.
 */
async function measure(sides: [Side, Side]): Promise<[Run, Run]> {
  const clocks = await Promise.all(
    sides.map(async (side) => {
      const load = await clockOffset(`${side.loadUrl}/clock`);
      const start = side.startClockUrl
        ? await clockOffset(side.startClockUrl)
        : { offsetMs: 0, errorMs: 0 };
      return { offsetMs: load.offsetMs - start.offsetMs, errorMs: load.errorMs + start.errorMs };
    }),
  );
  const measured: Change[][] = sides.map(() => []);
  for (let seq = 0; seq < warmup + changes; seq++) {
    const status = seq % 2 === 0 ? 'away' : 'available';
    for (const [i, side] of sides.entries()) {
      await json(await post(`${side.loadUrl}/expect`, { seq, userId: side.userId, status }));
      if (seq === warmup && i === 0) measuredWindow.startUs = monotonicUs();
      const done = await side.change(status);
      const { received } = await json<{ received: number }>(
        await fetch(`${side.loadUrl}/wait?seq=${seq}`),
      );
      if (received < clients) {
        console.warn(`  ${side.name} change ${seq}: ${received}/${clients} received`);
      }
      if (seq >= warmup) measured[i]!.push({ ...done, receipts: [] });
      await sleep(gapMs);
    }
  }
  measuredWindow.endUs = monotonicUs();
  const [first, second] = await Promise.all(
    sides.map(async (side, i): Promise<Run> => {
      const result = await json<{
        receipts: Array<Array<number | null>>;
        loopDelayMs: Run['loopDelayMs'];
        gcMs: Run['gcMs'];
      }>(await fetch(`${side.loadUrl}/result`));
      const ofSide = measured[i]!;
      ofSide.forEach((c, k) => (c.receipts = result.receipts[warmup + k]!));
      return {
        changes: ofSide,
        loopDelayMs: result.loopDelayMs,
        gcMs: result.gcMs,
        clock: clocks[i]!,
      };
    }),
  );
  return [first!, second!];
}

/** Latency statistics of one run. */
function statsOf(run: Run, from: (c: Change) => number): RealtimeStats {
  const pooled: number[] = [];
  const last: number[] = [];
  const first: number[] = [];
  let missing = 0;
  for (const c of run.changes) {
    const got = c.receipts.filter((r): r is number => r !== null).map((r) => r - from(c));
    missing += c.receipts.length - got.length;
    pooled.push(...got);
    last.push(Math.max(...got));
    first.push(Math.min(...got));
  }
  const answered = run.changes.map((c) => c.answeredAt - c.startedAt);
  return {
    p50: quantile(pooled, 0.5),
    p99: quantile(pooled, 0.99),
    max: Math.max(...pooled),
    n: pooled.length,
    firstP50: quantile(first, 0.5),
    lastP50: quantile(last, 0.5),
    lastP99: quantile(last, 0.99),
    answeredP50: quantile(answered, 0.5),
    spreadP50: quantile(
      last.map((l, k) => l - first[k]!),
      0.5,
    ),
    missing,
  };
}

console.log('starting the product and its pusher-js clients…');
const productSide = await startProduct();
console.log('starting the bare ws server and its clients…');
const bareSide = await startBare(productSide.userId, productSide.account).catch(
  async (error: unknown) => {
    await productSide.stop();
    throw error;
  },
);
const loadAtStart = loadavg();
console.log(`${warmup + changes} changes on each side, interleaved…`);
const [product, bare] = await measure([productSide, bareSide]).finally(async () => {
  await productSide.stop();
  await bareSide.stop();
});
const account = productSide.account;
const loadAtEnd = loadavg();
const profDir = cpuProfDir ?? loadCpuProfDir;
if (profDir) {
  writeFileSync(join(profDir, 'window.json'), JSON.stringify(measuredWindow));
  console.log(`measured window (for bench/lib/profile-window.ts): ${join(profDir, 'window.json')}`);
}

// BENCH_TRACE=1: each measured change's first and last receipt, in order.
if (process.env.BENCH_TRACE === '1') {
  for (const [name, run, from] of [
    ['product', product, (c: Change) => c.startedAt],
    ['bare', bare, (c: Change) => c.sentAt!],
  ] as const) {
    const each = run.changes.map((c) => {
      const got = c.receipts.filter((r): r is number => r !== null).map((r) => r - from(c));
      const answered = Math.round(c.answeredAt - c.startedAt);
      return `${Math.round(Math.min(...got))}–${Math.round(Math.max(...got))}(${answered})`;
    });
    console.error(`${name} first–last (answered) per change, ms: ${each.join(' ')}`);
  }
}
const ours = statsOf(product, (c) => c.startedAt);
const ref = statsOf(bare, (c) => c.sentAt!);
const refHttp = statsOf(bare, (c) => c.startedAt);
const data: RealtimeSectionData = {
  date: new Date().toISOString().slice(0, 10),
  cores: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
  node: process.version,
  loadAtStart,
  loadAtEnd,
  clients,
  changes,
  warmup,
  gapMs,
  serverCore: SERVER_CORE,
  clientCore: CLIENT_CORE,
  canPin,
  account,
  agentEmail: AGENT_EMAIL,
  event: EVENT,
  clockSamples: CLOCK_SAMPLES,
  product: { clock: product.clock, loopDelayMs: product.loopDelayMs, gcMs: product.gcMs },
  bare: { clock: bare.clock, loopDelayMs: bare.loopDelayMs, gcMs: bare.gcMs },
  ours,
  ref,
  refHttp,
  bareLoopP50Ms: quantile(
    bare.changes.map((c) => c.loopMs!),
    0.5,
  ),
};

if (writeDoc) {
  publishSection('realtime', data);
  console.log('wrote the realtime section of docs/benchmarks.md');
} else {
  console.log(renderSection('realtime', data));
}
process.exit(0);
