/**
 * The routing benchmark (`npm run bench -- routing`, alone `npx tsx bench/routing/run.ts`): 100
 * leads posted within one second to 50 registered agents, p50/p99 from `POST /api/v1/leads` to
 * the agent's `invite` frame, and the servers' CPU per lead, in three set-ups (issue 38, item 4):
 *
 * | set-up       | database                          | instances                        | target                                   |
 * | ------------ | --------------------------------- | -------------------------------- | ---------------------------------------- |
 * | `pglite-1`   | PGlite in the process             | 1                                | p99 < 150 ms                             |
 * | `postgres-1` | a fresh PostgreSQL database       | 1                                | p99 < 100 ms, ≤ 5 ms of server CPU/lead  |
 * | `postgres-3` | a fresh PostgreSQL database       | 3: the media leader, 2 followers | p99 < 100 ms, ≤ 5 ms of server CPU/lead  |
 *
 * Each set-up's figure stands next to a bare WebSocket push measured just before it in the same
 * round (bare-push-server.ts: HTTP in, one `ws` frame out, no database, no routing). Rounds
 * (default 3) go through every set-up, the order turning by one each round, so a drift in the
 * machine's load falls on all of them alike; the section gives each set-up's median over the
 * rounds with its spread, the pooled figures, and every round.
 *
 * Each measurement: the server(s) on core 0, the load client (load-client.ts) on core 1;
 * PostgreSQL (a system service) is not pinned. With three instances, the first one started on
 * the database takes the media lease and runs the routing; the other two follow
 * (apps/server/src/cluster/start-instance.ts): the agents log in and open their sockets
 * round-robin over the three, and the leads are posted round-robin over them (a follower relays
 * its POSTs and sockets to the leader). Server CPU per lead: the CPU time of every Leadline
 * process and of the PostgreSQL backends serving the round's database (from `/proc`), from just
 * before the burst until every POST was answered and the first wave rang, over the leads posted.
 * Other work on the machine in that window (all CPU less the bench's own processes) is measured
 * too, and a round where it passed 15 % of a core is marked.
 *
 * The leads the product offers at once are the measured figure; the ones it queues (every agent
 * ringing) are offered after the rung agents reject, and reported apart as queue wait. A set-up
 * that misses its target gets a profile round after the measured ones (not counted;
 * `BENCH_PROFILE=0` skips it, `BENCH_PROFILE=1` profiles every set-up): each instance's main
 * thread profiled over the burst, summed by area, rendered in the section beside the measured
 * rounds' CPU per thread.
 *
 * Environment: `BENCH_SETUPS` (comma-separated, default all three), `BENCH_ROUNDS` (3),
 * `BENCH_AGENTS` (50), `BENCH_LEADS` (100), `BENCH_SPREAD_MS` (1000), `WARMUP_LEADS` (20),
 * `BURST_DELAY_MS` (1000: quiet between the warm-up and the burst), `BENCH_POSTGRES_URL` (the
 * server the scratch databases are made on), `BENCH_REFUSE_BUSY=1` (exit instead of marking a
 * run started on a busy machine), `BENCH_PROFILE=0`, `BENCH_CPU_PROF=<dir>` (the leader runs with
 * `node --cpu-prof`, its profiles written there), `BENCH_SQL_STATS=<file>` and
 * `BENCH_BURST_PROF=<file>` (the leader's statements and main thread during the burst only:
 * burst-probes.ts), `BENCH_BURST_WINDOW=<file>` (when the burst began and ended, to cut the
 * `BENCH_CPU_PROF` profiles of every thread with bench/lib/profile-window.ts), `BENCH_WRITE=0` to
 * print instead of writing the doc and the results, `BENCH_SERVER_NODE_ARGS` (e.g.
 * `--trace-gc`) and `BENCH_SERVER_STDOUT=<file>` (each instance's output after it is ready),
 * `BENCH_TRACE=1` (each offered lead's time, in posting order).
 *
 * Writes its section of docs/benchmarks.md, bench/results/routing.json (every round's figures)
 * and a row per set-up in bench/results/latest.json (the summary table).
 */
import type { ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { summariseByArea, type Profile } from '../api/profile-areas';
import { foreignCpuWindow, loadNow, refuseIfBusy } from '../lib/machine-load';
import { ONE_ADDRESS_LOAD } from '../lib/one-address-load';
import { canPin, cpuMs, ready, startOnCore, stopChild } from '../lib/processes';
import { recordRow, RESULTS_DIR } from '../lib/results';
import {
  CLUSTER_SECRETS,
  cpuBetween,
  cpuByPid,
  createScratchPostgres,
  postgresAnswers,
  type ScratchPostgres,
} from '../lib/scratch-postgres';
import { publishSection, renderSection } from '../lib/sections';
import { sourceState } from '../lib/source-state';
import { round } from '../lib/stats';
import type { LoadResult } from './load-client';
import {
  median,
  ms,
  routingFigures,
  targetText,
  type BurstCpu,
  type ProfileSummary,
  type RoutingFigures,
  type RoutingMeasured as Measured,
  type RoutingPair as Pair,
  type RoutingProfile,
  type RoutingSectionData,
  type RoutingSetup as Setup,
} from './routing-section';

const SETUPS: readonly Setup[] = [
  {
    id: 'pglite-1',
    title: 'PGlite, 1 instance',
    database: 'pglite',
    instances: 1,
    targetP99Ms: 150,
  },
  {
    id: 'postgres-1',
    title: 'PostgreSQL, 1 instance',
    database: 'postgres',
    instances: 1,
    targetP99Ms: 100,
    targetCpuMs: 5,
  },
  {
    id: 'postgres-3',
    title: 'PostgreSQL, 3 instances',
    database: 'postgres',
    instances: 3,
    targetP99Ms: 100,
    targetCpuMs: 5,
  },
];

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const agents = Number(process.env.BENCH_AGENTS ?? 50);
const leadCount = Number(process.env.BENCH_LEADS ?? 100);
const spreadMs = Number(process.env.BENCH_SPREAD_MS ?? 1000);
/** Warm-up leads of the product (each rejected by every agent). */
const warmupLeads = Number(process.env.WARMUP_LEADS ?? 20);
const cpuProfDir = process.env.BENCH_CPU_PROF;
const writeResults = process.env.BENCH_WRITE !== '0';
/** Profile rounds: for the set-ups that missed a target (default), every set-up (`1`), none (`0`). */
const profileWhich = process.env.BENCH_PROFILE ?? 'missed';
const chosenIds = (process.env.BENCH_SETUPS ?? SETUPS.map((s) => s.id).join(','))
  .split(',')
  .map((id) => id.trim())
  .filter(Boolean);
/** The leader is told when the burst starts and ends (burst-probes.ts). */
const probing = Boolean(
  process.env.BENCH_SQL_STATS ||
  process.env.BENCH_BURST_PROF ||
  process.env.BENCH_STALLS ||
  process.env.BENCH_BURST_WINDOW,
);
/** Rings outlast the run: no ring times out and moves on while the bench waits. */
const RING_TIMEOUT_MS = 120_000;
const CLK_TCK = 100;
/** Cores: the servers on one, the load client on the other. */
const SERVER_CORE = 0;
const CLIENT_CORE = 1;
const COMMAND = 'npm run bench -- routing';

// The orchestrator decides each set-up's database; one in this shell's environment would turn
// the PGlite set-up into a PostgreSQL one.
delete process.env.DATABASE_URL;

const unknown = chosenIds.filter((id) => !SETUPS.some((s) => s.id === id));
if (unknown.length > 0) {
  console.error(
    `Unknown set-up ${unknown.join(', ')}; one of ${SETUPS.map((s) => s.id).join(', ')}`,
  );
  process.exit(2);
}
let setups = SETUPS.filter((s) => chosenIds.includes(s.id));
if (setups.some((s) => s.database === 'postgres') && !(await postgresAnswers())) {
  console.error(
    'PostgreSQL does not answer at BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres): measuring PGlite only.',
  );
  setups = setups.filter((s) => s.database === 'pglite');
}

/** CPU time per thread of `pid` (ms), keyed `tid name`. */
function threadCpuMs(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const kind = tid === String(pid) ? 'main thread' : name;
      threads.set(`${tid} ${kind}`, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

/** The running servers of one measurement. */
interface Servers {
  /** Base URL of each instance (the leader first). */
  bases: string[];
  /** Pid of each instance (the leader first). */
  pids: number[];
  /** The round's database, for a PostgreSQL set-up. */
  postgres?: ScratchPostgres;
  stop(): Promise<void>;
}

/** Runs the load client against `servers`; resolves with its result and the CPU it cost. */
async function drive(mode: 'product' | 'bare', servers: Servers): Promise<Measured> {
  const client = startOnCore(CLIENT_CORE, ['--import', 'tsx', 'routing/load-client.ts'], {
    MODE: mode,
    BASES: servers.bases.join(','),
    AGENTS: String(agents),
    LEADS: String(leadCount),
    SPREAD_MS: String(spreadMs),
    WARMUP_LEADS: String(warmupLeads),
  });
  let errors = '';
  client.stderr?.on('data', (d: Buffer) => {
    errors += d.toString();
    process.stderr.write(`  ${d.toString()}`);
  });
  const [leader, ...followers] = servers.pids as [number, ...number[]];
  let result: LoadResult | undefined;
  let at: {
    leader: number;
    followers: Map<number, number>;
    client: number;
    postgres: Map<number, number>;
    threads: Map<string, number>;
    window: ReturnType<typeof foreignCpuWindow>;
  } | null = null;
  let cpu: BurstCpu | undefined;
  let foreign = { foreignShare: NaN, windowMs: NaN };
  for await (const line of createInterface({ input: client.stdout! })) {
    const message = JSON.parse(line) as { phase: string };
    if (message.phase === 'warm') {
      const postgresPids = servers.postgres ? await servers.postgres.backendPids() : [];
      at = {
        window: foreignCpuWindow(),
        leader: cpuMs(leader),
        followers: cpuByPid(followers),
        client: cpuMs(client.pid!),
        postgres: cpuByPid(postgresPids),
        threads: threadCpuMs(leader),
      };
      if (probing && mode === 'product') process.kill(leader, 'SIGUSR2');
    }
    if (message.phase === 'offered' && at) {
      const leaderMs = cpuMs(leader) - at.leader;
      const followersMs = cpuBetween(at.followers, cpuByPid(followers));
      const clientMs = cpuMs(client.pid!) - at.client;
      let postgresMs = cpuBetween(at.postgres, cpuByPid([...at.postgres.keys()]));
      if (probing && mode === 'product') process.kill(leader, 'SIGUSR2');
      const threads = threadCpuMs(leader);
      if (servers.postgres) {
        // Connections opened in the burst: all their CPU is the burst's.
        const opened = (await servers.postgres.backendPids()).filter((p) => !at!.postgres.has(p));
        postgresMs += cpuBetween(new Map(), cpuByPid(opened));
      }
      foreign = at.window.end(leaderMs + followersMs + clientMs + postgresMs);
      cpu = {
        leaderMs,
        followersMs,
        postgresMs,
        clientMs,
        leaderThreads: [...threads]
          .map(([key, used]): [string, number] => [key, used - (at!.threads.get(key) ?? 0)])
          .filter(([, used]) => used > 0)
          .sort((a, b) => b[1] - a[1]),
      };
    }
    if (message.phase === 'result') result = message as unknown as LoadResult;
  }
  if (!result || !cpu) throw new Error(`the load client failed: ${errors}`);
  console.log(
    `  ${mode} CPU in the burst: leader ${cpu.leaderMs} ms, followers ${cpu.followersMs} ms, PostgreSQL ${cpu.postgresMs} ms; other work ${Math.round(foreign.foreignShare * 100)} % of a core (leader's threads: ${cpu.leaderThreads.map(([k, v]) => `${k}: ${v}`).join(', ')})`,
  );
  return { ...result, cpu, ...foreign };
}

async function startBare(): Promise<Servers> {
  const server = startOnCore(SERVER_CORE, ['--import', 'tsx', 'routing/bare-push-server.ts'], {
    PORT: '0',
  });
  const { port } = await ready<{ port: number }>(server, 'the bare push server');
  return {
    bases: [`http://127.0.0.1:${port}`],
    pids: [server.pid!],
    stop: () => stopChild(server),
  };
}

/** The product's instances of `setup` (the leader first), each ready; `label` names its files. */
async function startProduct(setup: Setup, label: string, profileDir?: string): Promise<Servers> {
  const postgres =
    setup.database === 'postgres' ? await createScratchPostgres('routing') : undefined;
  const children: ChildProcess[] = [];
  const dataDirs: string[] = [];
  const stop = async (): Promise<void> => {
    // Followers first: the leader's stop would otherwise hand its lease to one of them.
    for (const child of [...children].reverse()) await stopChild(child);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
    await postgres?.drop();
  };
  try {
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const bases: string[] = [];
    for (let i = 0; i < setup.instances; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'leadline-bench-routing-'));
      dataDirs.push(dataDir);
      // One profile per thread (main, media workers, tsx's loader), named by pid and thread.
      const prof =
        cpuProfDir && i === 0 ? ['--cpu-prof', `--cpu-prof-dir=${join(cpuProfDir, label)}`] : [];
      const child = startOnCore(
        SERVER_CORE,
        [...prof, ...nodeArgs, '--import', 'tsx', 'routing/product-host.ts'],
        {
          PORT: '0',
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          VOICE_ICE_ADDRESSES: '127.0.0.1',
          AGENT_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS),
          AGENTS: String(agents),
          ...ONE_ADDRESS_LOAD,
          ...(postgres
            ? { DATABASE_URL: postgres.url, ...CLUSTER_SECRETS, SEED: i === 0 ? '1' : '0' }
            : {}),
          // Only the leader routes: the probes go there.
          ...(i === 0
            ? {}
            : {
                BENCH_SQL_STATS: '',
                BENCH_BURST_PROF: '',
                BENCH_STALLS: '',
                BENCH_BURST_WINDOW: '',
              }),
          ...(profileDir
            ? { BENCH_BURST_PROF: join(profileDir, `instance-${i + 1}.cpuprofile`) }
            : {}),
        },
      );
      children.push(child);
      const { url, role } = await ready<{ url: string; role: string }>(
        child,
        `instance ${i + 1} of ${setup.title}`,
      );
      if (role !== (i === 0 ? 'leader' : 'follower')) {
        throw new Error(`instance ${i + 1} of ${setup.title} started as the ${role}`);
      }
      // Past its ready line an instance's output is kept (BENCH_SERVER_STDOUT) or dropped, never
      // left unread: a full pipe would stop it at its next log line.
      const keep = process.env.BENCH_SERVER_STDOUT;
      if (keep) child.stdout?.pipe(createWriteStream(`${keep}.${label}.instance-${i + 1}`));
      else child.stdout?.resume();
      bases.push(url);
    }
    return { bases, pids: children.map((c) => c.pid!), ...(postgres ? { postgres } : {}), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts the servers, drives them once, stops them. */
async function measure(mode: 'product' | 'bare', start: () => Promise<Servers>): Promise<Measured> {
  const servers = await start();
  try {
    return await drive(mode, servers);
  } finally {
    await servers.stop();
  }
}

/**
 * Runs `task`; if it fails (a login timing out on a loaded machine), says so and runs it once
 * more from the start (fresh servers and database).
 */
async function twice<T>(what: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    console.error(`${what} failed, trying it once more:`, error);
    return task();
  }
}

// ---------------------------------------------------------------- the run

const startedAt = Date.now();
const loadAtStart = refuseIfBusy('routing').values;
/** The sources the instances run (tsx, from the working tree). */
const source = sourceState();
const pairs: Pair[] = [];
for (let r = 1; r <= rounds; r++) {
  // The order turns by one each round.
  const order = setups.map((_, i) => setups[(i + r - 1) % setups.length]!);
  for (const setup of order) {
    const load = loadNow().values[0]!;
    console.log(`round ${r}/${rounds}, ${setup.title}: bare push…`);
    const bare = await measure('bare', startBare);
    console.log(`round ${r}/${rounds}, ${setup.title}: product…`);
    const product = await twice(`${setup.title}, round ${r}`, () =>
      measure('product', () => startProduct(setup, `${setup.id}-round-${r}`)),
    );
    pairs.push({ setup: setup.id, round: r, loadAtStart: load, bare, product });
  }
}

// ---------------------------------------------------------------- figures

const figures: RoutingFigures[] = setups.map((setup) => routingFigures(setup, pairs));

// ---------------------------------------------------------------- profile of a missed target

/**
 * One more round of `setup`, not counted, with each instance's main thread profiled in the
 * burst: the leader's summary, and the first follower's.
 */
async function profileRound(setup: Setup): Promise<RoutingProfile | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-routing-profile-'));
  try {
    console.log(`profile round, ${setup.title} (not counted)…`);
    const servers = await startProduct(setup, `${setup.id}-profile`, dir);
    let measured: Measured;
    try {
      // The probes start and stop on the signals the bench sends around the burst.
      measured = await driveProbed(servers);
    } finally {
      await servers.stop();
    }
    const summaryOf = (instance: number): ProfileSummary => {
      const file = join(dir, `instance-${instance}.cpuprofile`);
      const summary = summariseByArea(JSON.parse(readFileSync(file, 'utf8')) as Profile);
      return {
        busyMs: summary.busyMs,
        windowMs: summary.windowMs,
        perLeadMs: summary.busyMs / measured.leads,
        areas: summary.areas.slice(0, 8),
        functions: summary.functions.slice(0, 8),
      };
    };
    return {
      leader: summaryOf(1),
      ...(setup.instances > 1 ? { follower: summaryOf(2) } : {}),
    };
  } catch (error) {
    console.error(`the profile round of ${setup.title} failed:`, error);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `drive`, signalling every instance around the burst whatever `probing` says. */
async function driveProbed(servers: Servers): Promise<Measured> {
  const signal = () => {
    for (const pid of servers.pids) process.kill(pid, 'SIGUSR2');
  };
  const client = startOnCore(CLIENT_CORE, ['--import', 'tsx', 'routing/load-client.ts'], {
    MODE: 'product',
    BASES: servers.bases.join(','),
    AGENTS: String(agents),
    LEADS: String(leadCount),
    SPREAD_MS: String(spreadMs),
    WARMUP_LEADS: String(warmupLeads),
  });
  client.stderr?.resume();
  let result: LoadResult | undefined;
  for await (const line of createInterface({ input: client.stdout! })) {
    const message = JSON.parse(line) as { phase: string };
    if (message.phase === 'warm' || message.phase === 'offered') signal();
    if (message.phase === 'result') result = message as unknown as LoadResult;
  }
  if (!result) throw new Error('the load client failed in the profile round');
  // The profile is written once the profiler stops: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const none = { leaderMs: 0, followersMs: 0, postgresMs: 0, clientMs: 0, leaderThreads: [] };
  return { ...result, cpu: none, foreignShare: NaN, windowMs: NaN };
}

if (profileWhich !== '0' && !probing) {
  for (const f of figures) {
    if (!f.met || profileWhich === '1') {
      const profile = await profileRound(f.setup);
      if (profile) f.profile = profile;
    }
  }
}
const loadAtEnd = loadNow().values;

// ---------------------------------------------------------------- the section

const setupsCommand = `${COMMAND}${setups.length < SETUPS.length ? ` (BENCH_SETUPS=${setups.map((s) => s.id).join(',')})` : ''}`;
const data: RoutingSectionData = {
  date: new Date().toISOString(),
  cores: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
  node: process.version,
  command: setupsCommand,
  seconds: Math.round((Date.now() - startedAt) / 1000),
  rounds,
  source,
  loadAtStart,
  loadAtEnd,
  serverCore: SERVER_CORE,
  clientCore: CLIENT_CORE,
  canPin,
  ringTimeoutMs: RING_TIMEOUT_MS,
  agents,
  warmupLeads,
  leadCount,
  spreadMs,
  setups,
  pairs,
  profiles: Object.fromEntries(
    figures.flatMap((f) => (f.profile ? [[f.setup.id, f.profile]] : [])),
  ),
};

if (writeResults) {
  publishSection('routing', data);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    join(RESULTS_DIR, 'routing.json'),
    `${JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        command: setupsCommand,
        source,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        settings: { rounds, agents, leads: leadCount, spreadMs, warmupLeads },
        setups: figures.map((f) => ({
          id: f.setup.id,
          title: f.setup.title,
          target: targetText(f.setup),
          met: f.met,
          missedBy: f.missedBy ?? null,
          p50Ms: f.p50,
          p99Ms: f.p99,
          pooledP99Ms: f.pooledP99,
          bareP50Ms: f.bareP50,
          bareP99Ms: f.bareP99,
          cpuPerLeadMs: { leadline: f.cpuLeadline, postgres: f.cpuPostgres, total: f.cpuTotal },
          leaderThreadsPerLeadMs: Object.fromEntries(f.threads),
          profile: f.profile ?? null,
        })),
        rounds: pairs.map((p) => ({
          setup: p.setup,
          round: p.round,
          loadAtStart: p.loadAtStart,
          foreignShare: p.product.foreignShare,
          bare: { offeredMs: p.bare.offeredMs, cpu: p.bare.cpu },
          product: {
            offeredMs: p.product.offeredMs,
            httpMs: p.product.httpMs,
            queuedMs: p.product.queuedMs,
            freedToInviteMs: p.product.freedToInviteMs,
            statuses: p.product.statuses,
            missing: p.product.missing,
            cpu: p.product.cpu,
            windowMs: p.product.windowMs,
          },
        })),
      },
      null,
      2,
    )}\n`,
  );
  for (const f of figures) {
    recordRow({
      name: `routing-${f.setup.id}`,
      title: `routing, ${f.setup.title}`,
      statistic: `p99 POST → invite, median of ${f.pairs.length} rounds (100 leads/s, 50 agents); server CPU ${ms(f.medianCpu)} ms/lead`,
      ours: { label: 'POST /api/v1/leads → invite', value: round(f.medianP99, 1), unit: 'ms' },
      reference: { label: 'bare ws push', value: round(median(f.bareP99), 1), unit: 'ms' },
      ratio: round(f.medianP99 / median(f.bareP99), 2),
      target: targetText(f.setup),
      met: f.met,
      ...(f.missedBy ? { missedBy: f.missedBy } : {}),
      command: COMMAND,
      details: {
        setup: f.setup.id,
        cpuPerLeadMs: f.medianCpu,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
      },
    });
  }
  console.log('wrote the routing section of docs/benchmarks.md and bench/results/routing.json');
} else {
  console.log(renderSection('routing', data));
}
