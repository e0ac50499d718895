/**
 * The product as the soak runs it (`taskset -c 0 node --import tsx soak/soak-host.ts`): the whole
 * of Leadline in one process, started by `startLeadline` from the environment as `npm start`
 * does, on a fresh database with the demo and `AGENTS` agents (bench/routing/seed-agents.ts).
 * The media engine is built here with the options `startLeadline` would give it and handed in
 * (`overrides.media`), so that its workers' loop statistics can be read.
 *
 * Prints JSON lines:
 * - `{"ready":true,"url":…,"agents":[e-mails]}` once it listens;
 * - `{"sample":HostSample}` every `SAMPLE_MS` (default 10,000): RSS and heap, the main thread's
 *   event-loop delay since the previous sample (`monitorEventLoopDelay`: how much later than due
 *   its 10 ms timer ran), and the media workers'
 *   frame counters and lateness since the previous sample (`WorkerMediaEngine.stats`);
 * - `{"verify":Verification}` on SIGUSR2: every call of the account with its end, disposition
 *   and notes, and where the bench's agents are (the runner's check that nothing was lost).
 *
 * `HEAP_SNAPSHOT_DIR=<dir>`: writes heap snapshots of the main thread and of each media worker
 * there at SIGHUP (the runner sends it at the warm-up's end) and at SIGUSR2 (after the drain), to
 * compare in DevTools.
 * SIGTERM stops it as `npm start` does.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import type { Worker } from 'node:worker_threads';
import { writeHeapSnapshot } from 'node:v8';
import { sql } from 'drizzle-orm';
import { WorkerMediaEngine, type WorkerStats } from '@leadline/voice';
import { loadConfig } from '../../apps/server/src/config';
import { openDatabase, queryRows } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';
import { startLeadline } from '../../apps/server/src/leadline';
import { closeOnSignals } from '../lib/processes';
import { seedAgents } from '../routing/seed-agents';

/** One sample of the product process (sizes in MB, delays in ms, times since ready). */
export interface HostSample {
  atMs: number;
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
  /** PGlite's WebAssembly memory (in the RSS; it grows and is never given back), if PGlite. */
  pgliteMb: number | null;
  /** Main thread's event-loop delay since the previous sample. */
  eld: { p50: number; p99: number; max: number };
  media: MediaSample;
}

/** The media workers since the previous sample, summed (counts) or worst (lateness). */
export interface MediaSample {
  rooms: number;
  participants: number;
  /** Frames mixed since the previous sample. */
  framesRun: number;
  /** Frames the pacers skipped since the previous sample (more than 2 frames behind: dropped). */
  framesSkipped: number;
  /** Frame start lateness (the tick against its 20 ms grid), worst worker's p99 and max. */
  startLateP99: number;
  startLateMax: number;
  /** Frame end lateness (mixed and sent), worst worker's p99 and max. */
  endLateP99: number;
  endLateMax: number;
  /** The workers' GC pauses since the previous sample. */
  gcMs: number;
}

/** One call of the account, as the database holds it. */
export interface StoredCall {
  id: number;
  status: string;
  answered: boolean;
  ended: boolean;
  disposition: string | null;
  stageKey: string | null;
  notes: number;
  /** Agents who accepted it. */
  accepted: number;
}

/** What SIGUSR2 prints: the account's calls, and the bench agents still busy. */
export interface Verification {
  calls: StoredCall[];
  agents: { wrappingUp: number; onCall: number; ringing: number; offline: number };
}

const config = loadConfig();
const agentCount = Number(process.env.AGENTS ?? 100);
const sampleMs = Number(process.env.SAMPLE_MS ?? 10_000);
const snapshotDir = process.env.HEAP_SNAPSHOT_DIR;
const MB = 1024 * 1024;
/** Collections at start, and the pause after each (the buffers go after a few seconds). */
const START_GC_ROUNDS = 4;
const START_GC_PAUSE_MS = 2_000;

const database = await openDatabase(
  config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
);
await seedDemo(database.db);
const agents = await seedAgents(database.db, agentCount);
// As startLeadline builds it (apps/server/src/leadline.ts), kept here to read its statistics.
const media = new WorkerMediaEngine({
  iceAddresses: config.iceAddresses,
  sandboxDir: join(config.dataDir, 'sandbox'),
  answerDelayMs: config.sandboxAnswerMs,
});
const leadline = await startLeadline(config, { database, media });
await collectStartGarbage();
const readyAt = performance.now();
console.log(JSON.stringify({ ready: true, url: leadline.url, agents }));

/** The delay monitor's timer period; Node counts it in every value, so it is taken off. */
const LOOP_RESOLUTION_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loop.enable();
let previous = { framesRun: 0, framesSkipped: 0 };

function mediaSample(stats: WorkerStats[]): MediaSample {
  const sum = (pick: (s: WorkerStats) => number): number =>
    stats.reduce((total, s) => total + pick(s), 0);
  const worst = (pick: (s: WorkerStats) => number): number => Math.max(0, ...stats.map(pick));
  const totals = { framesRun: sum((s) => s.framesRun), framesSkipped: sum((s) => s.framesSkipped) };
  const sample = {
    rooms: sum((s) => s.rooms),
    participants: sum((s) => s.participants),
    framesRun: totals.framesRun - previous.framesRun,
    framesSkipped: totals.framesSkipped - previous.framesSkipped,
    startLateP99: worst((s) => s.frameLateness.p99),
    startLateMax: worst((s) => s.frameLateness.max),
    endLateP99: worst((s) => s.frameEndLateness.p99),
    endLateMax: worst((s) => s.frameEndLateness.max),
    gcMs: sum((s) => s.gc.totalMs),
  };
  previous = totals;
  return sample;
}

/**
 * Opening PGlite leaves about 430 MB of buffers that only major collections some seconds later
 * free; a quiet product may carry them for minutes and drop them at any time. Collected here,
 * before the first sample, so that their going does not pass for a trend of the soak. Needs
 * `--expose-gc` (run.ts passes it); without it, nothing is done.
 */
async function collectStartGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  for (let i = 0; i < START_GC_ROUNDS; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, START_GC_PAUSE_MS));
  }
}

/** PGlite's linear memory, read through its Emscripten module (not public API; bench only). */
function pgliteBytes(): number | null {
  const client = (
    database.db as unknown as { $client?: { mod?: { wasmMemory?: WebAssembly.Memory } } }
  ).$client;
  return client?.mod?.wasmMemory?.buffer.byteLength ?? null;
}

async function sample(): Promise<void> {
  const memory = process.memoryUsage();
  const late = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  const eld = {
    p50: late(loop.percentile(50)),
    p99: late(loop.percentile(99)),
    max: late(loop.max),
  };
  loop.reset();
  const stats = await media.stats();
  const line: HostSample = {
    atMs: Math.round(performance.now() - readyAt),
    rssMb: memory.rss / MB,
    heapUsedMb: memory.heapUsed / MB,
    externalMb: memory.external / MB,
    pgliteMb: database.driver === 'pglite' ? (pgliteBytes() ?? 0) / MB : null,
    eld,
    media: mediaSample(stats),
  };
  console.log(JSON.stringify({ sample: line }));
}

// The first call starts the workers' windows; samples follow every `sampleMs`.
await media.stats().then(mediaSample);
const sampler = setInterval(() => {
  sample().catch((error: unknown) => console.error('sample failed', error));
}, sampleMs);

/** The media workers' threads (private to the engine; bench diagnostics only). */
function mediaThreads(): Worker[] {
  const engine = media as unknown as { workers?: Array<{ worker?: Worker }> };
  return (engine.workers ?? []).flatMap((client) => (client.worker ? [client.worker] : []));
}

/** Heap snapshots of the main thread and of every media worker, named `soak-<name>-…`. */
async function snapshot(name: string): Promise<void> {
  if (!snapshotDir) return;
  const files = [writeHeapSnapshot(join(snapshotDir, `soak-${name}-main.heapsnapshot`))];
  for (const [i, worker] of mediaThreads().entries()) {
    const file = join(snapshotDir, `soak-${name}-media-${i}.heapsnapshot`);
    await pipeline(await worker.getHeapSnapshot(), createWriteStream(file));
    files.push(file);
  }
  console.log(JSON.stringify({ heapSnapshot: files.join(', ') }));
}
// The runner marks the warm-up's end with SIGHUP (only when snapshots are asked for).
process.on('SIGHUP', () => void snapshot('warm').catch(console.error));

async function verification(): Promise<Verification> {
  const { db } = database;
  const calls = await queryRows<{
    id: number;
    status: string;
    answered: boolean;
    ended: boolean;
    disposition: string | null;
    stage_key: string | null;
    notes: number;
    accepted: number;
  }>(
    db,
    sql`select c.id, c.status, c.answered_at is not null as answered,
               c.ended_at is not null as ended, c.disposition, c.stage_key,
               (select count(*)::int from notes n where n.call_id = c.id) as notes,
               (select count(*)::int from call_users u
                 where u.call_id = c.id and u.outcome = 'accepted') as accepted
        from calls c order by c.id`,
  );
  const [busy] = await queryRows<{
    wrapping_up: number;
    on_call: number;
    ringing: number;
    offline: number;
  }>(
    db,
    sql`select
          count(*) filter (where u.wrap_up_until > now())::int as wrapping_up,
          count(*) filter (where exists (select 1 from call_users c where c.user_id = u.id
            and c.outcome = 'accepted' and c.left_at is null))::int as on_call,
          count(*) filter (where exists (select 1 from call_users c where c.user_id = u.id
            and c.outcome = 'ringing'))::int as ringing,
          count(*) filter (where not u.is_online_app)::int as offline
        from users u where u.email like 'routing-agent-%'`,
  );
  return {
    calls: calls.map((c) => ({
      id: c.id,
      status: c.status,
      answered: c.answered,
      ended: c.ended,
      disposition: c.disposition,
      stageKey: c.stage_key,
      notes: c.notes,
      accepted: c.accepted,
    })),
    agents: {
      wrappingUp: busy?.wrapping_up ?? 0,
      onCall: busy?.on_call ?? 0,
      ringing: busy?.ringing ?? 0,
      offline: busy?.offline ?? 0,
    },
  };
}

process.on('SIGUSR2', () => {
  // Everything the drain left is read first; the snapshot (seconds) comes after.
  sample()
    .then(verification)
    .then((verify) => {
      console.log(JSON.stringify({ verify }));
      return snapshot('drained');
    })
    .catch((error: unknown) => console.error('verification failed', error));
});

closeOnSignals({
  close: async () => {
    clearInterval(sampler);
    loop.disable();
    await leadline.close();
  },
});
