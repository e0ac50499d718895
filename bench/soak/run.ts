/**
 * The soak (`npm run soak`, not part of `npm test` nor `npm run bench`): the product under a
 * steady call load for `SOAK_MINUTES`, checked for lost calls, memory growth and stalls. Writes
 * the "Soak" section of docs/reliability.md.
 *
 * - The product (soak-host.ts: `startLeadline` on a fresh PGlite with the demo and the agents) on
 *   core 0; it prints its RSS, heap, event-loop delay and media workers' frame counters every
 *   `SOAK_SAMPLE_S`.
 * - The agents (soak-agents.ts: `SOAK_AGENTS` headless agents over real WebRTC legs) on core 1, a
 *   separate process: each takes the leads it is rung for, talks `SOAK_TALK_MIN_S`–`SOAK_TALK_MAX_S`,
 *   hangs up, stores a disposition and a note and ends its wrap-up.
 * - This process posts leads (`POST /api/v1/leads`, the demo API key, the test leads
 *   `+15550100001`–`+15550100099`, which answer and play 440 Hz) one every
 *   (mean talk + `CALL_SETUP_S`) / `SOAK_CALLS` seconds, so that about `SOAK_CALLS` calls are up.
 *   After `SOAK_MINUTES` it stops posting, lets every call end and every wrap-up be stored, and
 *   asks the product (SIGUSR2) for its calls: every posted lead must have been answered, ended,
 *   and have a disposition and a note, and every agent must be free again; anything else is lost.
 *
 * Environment: `SOAK_MINUTES` (10), `SOAK_AGENTS` (100), `SOAK_CALLS` (20), `SOAK_TALK_MIN_S`
 * (20), `SOAK_TALK_MAX_S` (40), `SOAK_SAMPLE_S` (10), `SOAK_WARMUP_MINUTES` (the RSS slope is
 * fitted after it: 2, or a third of a shorter run), `SOAK_HEAP_SNAPSHOTS=<dir>` (heap snapshots
 * of the product's main thread and media workers at the warm-up's end and after the drain; they
 * stop the product for seconds, so the figures of such a run are not the soak's),
 * `SOAK_RAW=<file>` (every sample, lead and call report as JSON), `SOAK_WRITE=0` to print the
 * section instead of writing it. Exits 1 when a call was lost.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { canPin, startOnCore, stopChild } from '../lib/processes';
import { round } from '../lib/stats';
import type { AgentCallReport, LoadSample } from './soak-agents';
import { lostBecause, type PostedLead } from './soak-figures';
import type { HostSample, StoredCall, Verification } from './soak-host';
import { writeSoakSection } from './soak-section';
import { ONE_ADDRESS_LOAD } from '../lib/one-address-load';

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const agentCount = Number(process.env.SOAK_AGENTS ?? 100);
const targetCalls = Number(process.env.SOAK_CALLS ?? 20);
const talkMinS = Number(process.env.SOAK_TALK_MIN_S ?? 20);
const talkMaxS = Number(process.env.SOAK_TALK_MAX_S ?? 40);
const sampleS = Number(process.env.SOAK_SAMPLE_S ?? 10);
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(2, minutes / 3));
const snapshotDir = process.env.SOAK_HEAP_SNAPSHOTS;
const writeDoc = process.env.SOAK_WRITE !== '0';
const rawFile = process.env.SOAK_RAW;

/** A call lasts its talk time plus about this (the `invite` until the agent's media is up). */
const CALL_SETUP_S = 0.5;
/** The test leads (docs/sandbox-numbers.md): each answers and plays 440 Hz. */
const TEST_LEADS = Array.from(
  { length: 99 },
  (_, i) => `+155501000${String(i + 1).padStart(2, '0')}`,
);
/** After posting stops: the longest call, a ring timeout and the wrap-up, with room to spare. */
const DRAIN_EXTRA_MS = 90_000;
const SERVER_CORE = 0;
const AGENTS_CORE = 1;
const API_KEY = 'demo-api-key';

const meanTalkS = (talkMinS + talkMaxS) / 2;
const intervalMs = ((meanTalkS + CALL_SETUP_S) / targetCalls) * 1000;
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

if (targetCalls > TEST_LEADS.length / 2) {
  throw new Error(
    `SOAK_CALLS ${targetCalls}: at most ${TEST_LEADS.length / 2} (test lead numbers)`,
  );
}

/**
 * Reads `child`'s JSON lines into `onLine`; other lines (the product's log) go to `onOther`.
 * Resolves once a line has `ready`, rejects if the child ends first.
 */
function follow(
  child: ChildProcess,
  what: string,
  onLine: (message: Record<string, unknown>) => void,
  onOther: (line: string) => void,
): Promise<Record<string, unknown>> {
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => {
    errors += d.toString();
    process.stderr.write(`  [${what}] ${d.toString()}`);
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        onOther(line);
        return;
      }
      if (message.ready === true) resolve(message);
      else onLine(message);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) early: ${errors}`)));
  });
}

// --- The run's record --------------------------------------------------------------------------

const posted: PostedLead[] = [];
const hostSamples: HostSample[] = [];
const loadSamples: LoadSample[] = [];
const reports: AgentCallReport[] = [];
const productWarnings: string[] = [];
let verification: Verification | undefined;
let onVerify: () => void = () => undefined;
let onSnapshot: () => void = () => undefined;
/** Numbers of leads posted and not yet reported done, by phone. */
const busyPhones = new Set<string>();

function onHostLine(message: Record<string, unknown>): void {
  if (message.sample) hostSamples.push(message.sample as HostSample);
  else if (message.verify) {
    verification = message.verify as Verification;
    onVerify();
  } else if (message.heapSnapshot) {
    console.log(`  heap snapshots: ${message.heapSnapshot as string}`);
    onSnapshot();
  } else if (typeof message.level === 'number' && message.level >= 40) {
    productWarnings.push(String(message.msg));
    if (productWarnings.length <= 20) console.error(`  [product] ${String(message.msg)}`);
  }
}

function onAgentsLine(message: Record<string, unknown>): void {
  if (message.sample) loadSamples.push(message.sample as LoadSample);
  else if (message.call) {
    const report = message.call as AgentCallReport;
    reports.push(report);
    busyPhones.delete(report.phone);
    if (report.error) console.error(`  agent ${report.agent}: ${report.error}`);
  }
}

/** The free test lead number used longest ago. */
const phoneQueue = [...TEST_LEADS];
function nextPhone(): string {
  for (let i = 0; i < phoneQueue.length; i++) {
    const phone = phoneQueue.shift()!;
    phoneQueue.push(phone);
    if (!busyPhones.has(phone)) return phone;
  }
  throw new Error('every test lead number is on a call');
}

async function postLead(base: string, n: number): Promise<void> {
  const phone = nextPhone();
  busyPhones.add(phone);
  const lead: PostedLead = { phone, sentAt: now(), httpStatus: 0 };
  posted.push(lead);
  try {
    const response = await fetch(`${base}/api/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ fname: 'Soak', lname: `Lead ${n}`, phone_number: phone }),
    });
    lead.httpStatus = response.status;
    const body = (await response.json()) as { call?: { id: number; status: string } };
    lead.callId = body.call?.id;
    lead.callStatus = body.call?.status;
  } catch (error) {
    console.error(`  lead ${n}: ${String(error)}`);
  }
  if (lead.callId === undefined) busyPhones.delete(phone);
}

/**
 * Whether an agent has reported every posted lead done. A failed attempt does not count: the
 * lead may ring another agent; the drain's deadline ends the wait for one that never does.
 */
function drained(): boolean {
  const reported = new Set(reports.filter((r) => !r.error).map((r) => r.callId));
  return posted.every((lead) => lead.callId === undefined || reported.has(lead.callId));
}

/** Throws if the product or the agents' process has exited. */
function stillRunning(...children: ChildProcess[]): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`a process of the soak exited (${child.spawnargs.at(-1)}): see above`);
    }
  }
}

// --- The run ---------------------------------------------------------------------------------

const startedAt = new Date();
const loadAtStart = loadavg();
const wallStart = performance.now();
const dataDir = mkdtempSync(join(tmpdir(), 'leadline-soak-'));
console.log(
  `soak: ${minutes} min, ${agentCount} agents, ~${targetCalls} calls up (a lead every ${round(intervalMs / 1000, 2)} s, talk ${talkMinS}–${talkMaxS} s)`,
);
// `--expose-gc`: the host collects PGlite's start-up garbage once before it samples.
const host = startOnCore(SERVER_CORE, ['--expose-gc', '--import', 'tsx', 'soak/soak-host.ts'], {
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  VOICE_ICE_ADDRESSES: '127.0.0.1',
  WEB_DIST_DIR: join(dataDir, 'no-web'),
  AGENTS: String(agentCount),
  SAMPLE_MS: String(sampleS * 1000),
  ...ONE_ADDRESS_LOAD,
  ...(snapshotDir ? { HEAP_SNAPSHOT_DIR: snapshotDir } : {}),
});
let agents: ChildProcess | undefined;
let lost: number | undefined;
try {
  const ready = await follow(host, 'product', onHostLine, () => undefined);
  const hostReadyAt = performance.now();
  const hostReadyEpoch = now();
  const base = String(ready.url);
  console.log(
    `product ready at ${base} after ${round((performance.now() - wallStart) / 1000, 1)} s`,
  );
  agents = startOnCore(AGENTS_CORE, ['--import', 'tsx', 'soak/soak-agents.ts'], {
    BASE: base,
    AGENTS: String(agentCount),
    TALK_MIN_MS: String(talkMinS * 1000),
    TALK_MAX_MS: String(talkMaxS * 1000),
    SAMPLE_MS: String(sampleS * 1000),
  });
  await follow(agents, 'agents', onAgentsLine, (line) => console.error(`  [agents] ${line}`));
  console.log(
    `${agentCount} agents registered after ${round((performance.now() - wallStart) / 1000, 1)} s`,
  );

  // The host's samples are timed from its ready line (`atMs`); posting is placed on that time.
  const postingFrom = performance.now();
  const postingStartMs = postingFrom - hostReadyAt;
  const postingMs = minutes * 60_000;
  const requests: Promise<void>[] = [];
  const warmSnapshot = snapshotDir
    ? setTimeout(() => process.kill(host.pid!, 'SIGHUP'), warmupMinutes * 60_000)
    : undefined;
  let lastPostAt = postingFrom;
  for (let n = 1; performance.now() - postingFrom < postingMs; n++) {
    stillRunning(host, agents);
    lastPostAt = performance.now();
    requests.push(postLead(base, n));
    const due = postingFrom + n * intervalMs;
    await sleep(Math.max(0, due - performance.now()));
    if (n % Math.max(1, Math.round(60_000 / intervalMs)) === 0) {
      const up = loadSamples.at(-1)?.callsUp ?? 0;
      console.log(
        `  ${round((performance.now() - postingFrom) / 60_000, 1)} min: ${n} leads posted, ${reports.length} calls done, ${up} up`,
      );
    }
  }
  await Promise.all(requests);
  clearTimeout(warmSnapshot);
  const postingEndMs = lastPostAt - hostReadyAt;
  console.log(`posting stopped: ${posted.length} leads; draining…`);

  const drainDeadline = performance.now() + talkMaxS * 1000 + DRAIN_EXTRA_MS;
  while (!drained() && performance.now() < drainDeadline) {
    stillRunning(host, agents);
    await sleep(500);
  }
  const verified = new Promise<void>((resolve) => (onVerify = resolve));
  const snapshotted = new Promise<void>((resolve) => (onSnapshot = resolve));
  process.kill(host.pid!, 'SIGUSR2');
  await Promise.race([verified, sleep(60_000)]);
  if (!verification) throw new Error('the product did not answer the verification');
  if (snapshotDir) await Promise.race([snapshotted, sleep(120_000)]);

  const stored = new Map<number, StoredCall>(verification.calls.map((c) => [c.id, c]));
  const taken = new Map<number, AgentCallReport>();
  for (const report of reports) {
    // The report of the agent who took the call wins over one whose accept failed.
    if (report.callId !== undefined && (!taken.has(report.callId) || !report.error)) {
      taken.set(report.callId, report);
    }
  }
  const lostLeads = posted
    .map((lead) => ({
      lead,
      why: lostBecause(
        lead,
        lead.callId === undefined ? undefined : stored.get(lead.callId),
        lead.callId === undefined ? undefined : taken.get(lead.callId),
      ),
    }))
    .filter((l) => l.why !== undefined);
  lost = lostLeads.length;
  const markdown = await writeSoakSection(
    {
      startedAt,
      loadAtStart,
      loadAtEnd: loadavg(),
      wallMs: performance.now() - wallStart,
      machine: {
        cores: cpus().length,
        cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
        memoryGb: round(totalmem() / 1024 ** 3, 1),
        pinned: canPin,
      },
      settings: {
        minutes,
        agents: agentCount,
        targetCalls,
        talkMinS,
        talkMaxS,
        intervalMs,
        sampleS,
        warmupMinutes,
      },
      hostReadyEpoch,
      postingStartMs,
      postingEndMs,
      posted,
      reports,
      firstReports: taken,
      stored,
      agentsAfter: verification.agents,
      lost: lostLeads.map((l) => `${l.lead.phone} (call ${l.lead.callId ?? '–'}): ${l.why}`),
      hostSamples,
      loadSamples,
      productWarnings,
    },
    writeDoc,
  );
  if (!writeDoc) console.log(markdown);
  if (rawFile) {
    const raw = { posted, reports, hostSamples, loadSamples, verification, productWarnings };
    writeFileSync(rawFile, JSON.stringify(raw));
    console.log(`raw figures: ${rawFile}`);
  }
  console.log(
    `soak done in ${round((performance.now() - wallStart) / 60_000, 1)} min: ${posted.length} leads, ${lost} lost`,
  );
} finally {
  if (agents) await stopChild(agents);
  await stopChild(host, 60_000);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(lost === 0 ? 0 : 1);
