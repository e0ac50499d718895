/**
 * The `routing` section of docs/benchmarks.md (100 leads to 50 agents, POST to `invite`, on PGlite
 * and PostgreSQL, 1 and 3 instances, next to a bare push), rendered from the rounds
 * bench/routing/run.ts measured (stored in bench/results/sections/routing.json), and the figures
 * the bench reads of them for its rows. Pure: no clock, no machine, no files.
 */
import { BUSY_FOREIGN_SHARE, loadSentence } from '../lib/machine-load';
import { formatRatio } from '../lib/results';
import { sourceSentence, type SourceState } from '../lib/source-state';
import { quantile, round } from '../lib/stats';
import type { LoadResult } from './load-client';

/** One way of running the product. */
export interface RoutingSetup {
  id: 'pglite-1' | 'postgres-1' | 'postgres-3';
  title: string;
  database: 'pglite' | 'postgres';
  instances: number;
  /** Issue 38, item 4: POST → invite p99 under this. */
  targetP99Ms: number;
  /** Issue 38, item 4: server CPU per lead at most this (PostgreSQL set-ups). */
  targetCpuMs?: number;
}

/** Where the servers' CPU went in the burst (ms). */
export interface BurstCpu {
  /** The leader (or the one instance). */
  leaderMs: number;
  /** The followers together. */
  followersMs: number;
  /** The PostgreSQL backends of the round's database. */
  postgresMs: number;
  /** The load client (not server CPU; for the machine's other work). */
  clientMs: number;
  /** The leader's threads, the busiest first: [`tid kind`, ms]. */
  leaderThreads: Array<[string, number]>;
}

/** What one measurement gave: the client's result and the servers' CPU in the burst. */
export interface RoutingMeasured extends LoadResult {
  cpu: BurstCpu;
  /** Other work on the machine in the burst, as a share of one core. */
  foreignShare: number;
  /** The burst window the CPU was read over (ms). */
  windowMs: number;
}

/** One set-up in one round, with its reference measured just before. */
export interface RoutingPair {
  setup: RoutingSetup['id'];
  round: number;
  /** The 1-minute load average when this pair began. */
  loadAtStart: number;
  bare: RoutingMeasured;
  product: RoutingMeasured;
}

/** What the routing benchmark measured, and with which settings. */
export interface RoutingSectionData {
  /** ISO time the section was made (the run's end). */
  date: string;
  cores: number;
  cpuModel: string;
  node: string;
  /** The command as run (with `BENCH_SETUPS` when not every set-up was measured). */
  command: string;
  /** How long the run took (s). */
  seconds: number;
  rounds: number;
  source: SourceState;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  serverCore: number;
  clientCore: number;
  /** Whether processes were pinned to cores (`taskset` found). */
  canPin: boolean;
  ringTimeoutMs: number;
  agents: number;
  warmupLeads: number;
  leadCount: number;
  spreadMs: number;
  /** The set-ups measured. */
  setups: RoutingSetup[];
  pairs: RoutingPair[];
  /** The profile round of a set-up, when one ran (by set-up id). */
  profiles: Partial<Record<RoutingSetup['id'], RoutingProfile>>;
}

/** A profile round's summaries: the leader's main thread, and a follower's. */
export interface RoutingProfile {
  leader: ProfileSummary;
  follower?: ProfileSummary;
}

const p50Of = (values: number[]) => quantile(values, 0.5);
const p99Of = (values: number[]) => quantile(values, 0.99);
/** The median of some values (nearest rank). */
export const median = (values: number[]) => quantile(values, 0.5);
/** Milliseconds for the section: whole from 10 up, else one decimal; '–' for none. */
export const ms = (value: number): string =>
  Number.isFinite(value) ? (value >= 10 ? round(value, 0) : round(value, 1)).toString() : '–';
const triple = (values: number[]): string =>
  values.length ? `${ms(p50Of(values))} / ${ms(p99Of(values))} / ${ms(Math.max(...values))}` : '–';
/** `median (min–max)` of per-round values. */
const spreadText = (values: number[]): string =>
  values.length > 1
    ? `${ms(median(values))} (${ms(Math.min(...values))}–${ms(Math.max(...values))})`
    : ms(values[0] ?? NaN);

/** Server CPU per lead of one measurement (ms): Leadline, PostgreSQL, both. */
export function cpuPerLead(m: RoutingMeasured) {
  const leadline = (m.cpu.leaderMs + m.cpu.followersMs) / m.leads;
  const postgres = m.cpu.postgresMs / m.leads;
  return {
    leader: m.cpu.leaderMs / m.leads,
    followers: m.cpu.followersMs / m.leads,
    leadline,
    postgres,
    total: leadline + postgres,
  };
}

/** Thread kinds of the leader, for "where the CPU goes". */
const threadKind = (key: string): string => {
  const name = key.slice(key.indexOf(' ') + 1);
  if (name === 'main thread') return 'main thread';
  if (/^V8 /.test(name)) return "V8's helper threads (GC, compiling)";
  if (/libuv|worker/i.test(name) && !/^node$/.test(name)) return 'libuv and other helper threads';
  return 'worker threads (the media engine)';
};

/** One set-up's figures over its rounds. */
export interface RoutingFigures {
  setup: RoutingSetup;
  pairs: RoutingPair[];
  p50: number[];
  p99: number[];
  bareP50: number[];
  bareP99: number[];
  pooledP99: number;
  pooledBareP99: number;
  cpuTotal: number[];
  cpuLeadline: number[];
  cpuPostgres: number[];
  never: number;
  medianP99: number;
  medianCpu: number;
  p99Met: boolean;
  cpuMet: boolean;
  met: boolean;
  missedBy?: string;
  /** The leader's CPU per lead by thread kind, median over the rounds. */
  threads: Array<[string, number]>;
  profile?: RoutingProfile;
}

/** Where an instance's main thread spent the burst (profile-areas.ts, the top entries). */
export interface ProfileSummary {
  busyMs: number;
  windowMs: number;
  perLeadMs: number;
  areas: Array<{ area: string; share: number }>;
  functions: Array<{ name: string; share: number }>;
}

/** One set-up's figures over its rounds (of `pairs`, the run's measurements). */
export function routingFigures(setup: RoutingSetup, pairs: RoutingPair[]): RoutingFigures {
  const of = pairs.filter((p) => p.setup === setup.id);
  const p50 = of.map((p) => p50Of(p.product.offeredMs));
  const p99 = of.map((p) => p99Of(p.product.offeredMs));
  const cpu = of.map((p) => cpuPerLead(p.product));
  const cpuTotal = cpu.map((c) => c.total);
  const never = of.reduce((n, p) => n + p.product.missing.offered, 0);
  const medianP99 = median(p99);
  const medianCpu = median(cpuTotal);
  const p99Met = medianP99 < setup.targetP99Ms;
  const cpuMet = setup.targetCpuMs === undefined || medianCpu <= setup.targetCpuMs;
  const kinds = new Map<string, number[]>();
  for (const p of of) {
    const byKind = new Map<string, number>();
    for (const [key, used] of p.product.cpu.leaderThreads) {
      byKind.set(threadKind(key), (byKind.get(threadKind(key)) ?? 0) + used / p.product.leads);
    }
    for (const [kind, perLead] of byKind) kinds.set(kind, [...(kinds.get(kind) ?? []), perLead]);
  }
  const threads = [...kinds]
    .map(([kind, values]): [string, number] => [
      kind,
      median([...values, ...Array<number>(of.length - values.length).fill(0)]),
    ])
    .sort((a, b) => b[1] - a[1]);
  const misses = [
    p99Met
      ? ''
      : `p99 ${ms(medianP99)} ms, ${ms(medianP99 - setup.targetP99Ms)} ms over ${setup.targetP99Ms} ms`,
    cpuMet
      ? ''
      : `${ms(medianCpu)} ms of server CPU per lead, ${ms(medianCpu - setup.targetCpuMs!)} ms over ${setup.targetCpuMs} ms`,
    never ? `${never} leads offered at once never rang` : '',
  ].filter(Boolean);
  return {
    setup,
    pairs: of,
    p50,
    p99,
    bareP50: of.map((p) => p50Of(p.bare.offeredMs)),
    bareP99: of.map((p) => p99Of(p.bare.offeredMs)),
    pooledP99: p99Of(of.flatMap((p) => p.product.offeredMs)),
    pooledBareP99: p99Of(of.flatMap((p) => p.bare.offeredMs)),
    cpuTotal,
    cpuLeadline: cpu.map((c) => c.leadline),
    cpuPostgres: cpu.map((c) => c.postgres),
    never,
    medianP99,
    medianCpu,
    p99Met,
    cpuMet,
    met: misses.length === 0,
    ...(misses.length ? { missedBy: misses.join('; ') } : {}),
    threads,
  };
}

/** A set-up's target, as the section and the summary row say it. */
export const targetText = (s: RoutingSetup) =>
  `p99 < ${s.targetP99Ms} ms${s.targetCpuMs === undefined ? '' : `, ≤ ${s.targetCpuMs} ms CPU/lead`}`;

/** The section's markdown. */
export function renderRoutingSection(data: RoutingSectionData): string {
  const { pairs, setups, rounds, agents, warmupLeads, leadCount, spreadMs } = data;
  const figures = setups.map((setup) => {
    const profile = data.profiles[setup.id];
    return { ...routingFigures(setup, pairs), ...(profile ? { profile } : {}) };
  });
  const date = data.date.slice(0, 16).replace('T', ' ');
  const busyPairs = pairs.filter((p) => p.product.foreignShare > BUSY_FOREIGN_SHARE);
  const pct = (share: number) => (Number.isFinite(share) ? `${Math.round(share * 100)} %` : '–');
  const metText = (f: RoutingFigures) => (f.met ? 'yes' : `**no**: ${f.missedBy}`);

  const headline = figures.map(
    (f) =>
      `| ${f.setup.title} | ${f.pairs.length} | ${spreadText(f.p50)} | ${spreadText(f.p99)} | ${ms(f.pooledP99)} | ${spreadText(f.bareP50)} / ${spreadText(f.bareP99)} | ${formatRatio(median(f.p99) / median(f.bareP99))} | ${spreadText(f.cpuLeadline)} + ${spreadText(f.cpuPostgres)} = ${spreadText(f.cpuTotal)} | ${f.never} | ${targetText(f.setup)} | ${metText(f)} |`,
  );

  const roundRows = pairs.map((p) => {
    const setup = setups.find((s) => s.id === p.setup)!;
    const c = cpuPerLead(p.product);
    const b = cpuPerLead(p.bare);
    const marked = p.product.foreignShare > BUSY_FOREIGN_SHARE ? ' (busy)' : '';
    return `| ${setup.title} | ${p.round} | ${round(p.loadAtStart, 2)} | ${pct(p.product.foreignShare)}${marked} | ${triple(p.bare.offeredMs)} | ${p.product.offeredMs.length} | ${triple(p.product.offeredMs)} | ${formatRatio(p99Of(p.product.offeredMs) / p99Of(p.bare.offeredMs))} | ${ms(p50Of(p.product.httpMs))} / ${ms(p99Of(p.product.httpMs))} | ${ms(c.leader)}${setup.instances > 1 ? ` + ${ms(c.followers)}` : ''} + ${ms(c.postgres)} = ${ms(c.total)} (bare ${ms(b.total)}) | ${p.product.missing.offered} |`;
  });

  const queueRows = figures.map((f) => {
    const q = f.pairs.flatMap((p) => p.product.queuedMs);
    const freed = f.pairs.flatMap((p) => p.product.freedToInviteMs);
    const missing = f.pairs.reduce((n, p) => n + p.product.missing.queued, 0);
    const bounced = f.pairs.reduce((n, p) => n + p.product.bounced, 0);
    return `| ${f.setup.title} | ${q.length + missing} | ${triple(q)} | ${triple(freed)} | ${bounced} | ${missing} |`;
  });

  const whereCpuGoes = figures.map((f) => {
    const threads = f.threads
      .filter(([, v]) => v >= 0.05)
      .map(([kind, v]) => `${kind} ${ms(v)}`)
      .join(', ');
    const parts = [
      `*${f.setup.title}*: per lead (medians of the rounds) the ${f.setup.instances > 1 ? 'leader' : 'instance'} ${ms(median(f.pairs.map((p) => cpuPerLead(p.product).leader)))} ms (${threads || 'no thread above 0.05 ms'})`,
      f.setup.instances > 1
        ? `the ${f.setup.instances - 1} followers ${ms(median(f.pairs.map((p) => cpuPerLead(p.product).followers)))} ms together`
        : '',
      f.setup.database === 'postgres'
        ? `PostgreSQL's backends ${ms(median(f.cpuPostgres))} ms`
        : '',
    ].filter(Boolean);
    const described = (who: string, summary: ProfileSummary) =>
      `${who}'s main thread ${ms(summary.busyMs)} ms busy in the ${ms(summary.windowMs)} ms window (${ms(summary.perLeadMs)} ms per lead posted): ${summary.areas
        .map((a) => `${a.area} ${pct(a.share)}`)
        .join(', ')}; busiest functions (self time): ${summary.functions
        .slice(0, 5)
        .map((fn) => `\`${fn.name}\` ${pct(fn.share)}`)
        .join(', ')}`;
    const leaderName = f.setup.instances > 1 ? 'the leader' : 'the instance';
    const profile = f.profile
      ? ` Profile round (not counted, the same load, each instance's main thread profiled over the burst): ${described(leaderName, f.profile.leader)}${f.profile.follower ? `; ${described('a follower', f.profile.follower)}` : ''}.`
      : '';
    return `- ${parts.join('; ')}.${profile}`;
  });

  return `## Routing: 100 leads to 50 agents, POST to \`invite\`, on PGlite and PostgreSQL, 1 and 3 instances

Run ${date} UTC on ${data.cores} cores (${data.cpuModel}), Node ${data.node}; command \`${data.command}\` (alone: \`npx tsx bench/routing/run.ts\`; ${data.seconds} s), ${rounds} rounds, each set-up with its own reference measured just before it. ${sourceSentence(data.source)} ${loadSentence(data.loadAtStart, data.loadAtEnd)} Other work on the machine during the bursts (all CPU less the bench's own processes): ${busyPairs.length === 0 ? `under ${pct(BUSY_FOREIGN_SHARE)} of a core in every round` : `**above ${pct(BUSY_FOREIGN_SHARE)} of a core in ${busyPairs.length} of ${pairs.length} measurements** (marked busy below: their figures include others' work)`}.

**Set-up.** Three set-ups (issue 38, item 4), every round in turn (the order turning by one each round), each as \`npm start\` starts it (bench/routing/product-host.ts): *PGlite, 1 instance*: the whole product in one process (HTTP API, PGlite, the voice engine with its media workers, call flows). *PostgreSQL, 1 instance*: the same on a fresh PostgreSQL database (created for the round on the local server, dropped after). *PostgreSQL, 3 instances*: three instances started the same way on one fresh database, with the same \`TOKEN_SECRET\` and \`PUSHER_SECRET\`: the first takes the media lease and routes; the other two follow and relay to it (apps/server/src/cluster/start-instance.ts). The instances on core ${data.serverCore}${data.canPin ? '' : ' (not pinned: `taskset` missing)'}, the load generator (bench/routing/load-client.ts) on core ${data.clientCore}, PostgreSQL (the system's service) not pinned; \`LOG_LEVEL=warn\`, \`AGENT_RING_TIMEOUT_MS=${data.ringTimeoutMs}\` so that no ring times out during the run; the demo account and ${agents} agents. Each agent logs in over HTTP, fetches a token (\`GET /api/v1/twilio/token2\`) and opens its own PStream socket (\`PStreamTestClient\`: \`listen\`, \`register\`; signalling only, no media; nobody answers), with three instances round-robin over them (agent *i* through instance *i* mod 3). Warm-up: ${warmupLeads} leads, one after the other, each rejected by every agent until it ends missed (the intake's code has run ${warmupLeads} times and the ring's ${warmupLeads * agents} times before the burst, as on a server that has been up a while; the bare server gets 50 requests). One second after the warm-up (\`BURST_DELAY_MS\`, in which the media workers make the ready offers the warm-up used up), ${leadCount} leads are posted evenly within ${spreadMs} ms (\`POST /api/v1/leads\`, \`Authorization: Bearer demo-api-key\`, \`{fname, phone_number}\`, each its own number; with three instances round-robin over them, a follower relaying its POSTs to the leader). *Bare push (reference)*: a plain Node HTTP server with a \`ws\` server (bench/routing/bare-push-server.ts) that pushes one invite-shaped frame to the next of ${agents} connected sockets for each POST, then answers; the same client, sockets, warm-up (50 requests) and posting schedule, on core ${data.serverCore}, measured just before each set-up.

- *POST → invite*: from just before the client sends the POST to the agent's socket receiving the lead's \`invite\` frame (timestamped in the socket's first listener), for the leads offered at once (POST answered \`ringing\`): with ${agents} agents, the first ${agents} leads ring at once and the rest wait. For the bare push, every POST. A round's p99 (nearest rank) of 50 samples is its largest; the headline is the median over the rounds of each round's p99, with the lowest and highest, and the p99 of all rounds pooled.
- *Server CPU per lead*: the CPU time (from \`/proc\`, 10 ms ticks) of every Leadline process (all threads) and of the PostgreSQL backends serving the round's database, from just before the burst (one second before its first POST) until every POST was answered and the first wave rang, over the ${leadCount} leads (queued ones included). Posting one lead every ${spreadMs / leadCount} ms, servers needing more than that per lead on their one core fall behind.
- Targets (issue 38, item 4): PostgreSQL, 1 and 3 instances: p99 POST → invite under 100 ms and at most 5 ms of server CPU per lead; PGlite, 1 instance: p99 under 150 ms. Judged on the medians over the rounds; every lead offered at once must ring.

| Set-up | Rounds | POST → invite p50 (ms), median (min–max) | p99 (ms), median (min–max) | p99 pooled (ms) | Bare push p50 / p99 (ms), median (min–max) | p99 / bare | Server CPU per lead (ms): Leadline + PostgreSQL = total, median (min–max) | Never rung | Target | Met |
|---|---:|---|---|---:|---|---:|---|---:|---|---|
${headline.join('\n')}

Where the CPU goes:

${whereCpuGoes.join('\n')}

Every round (*load*: the 1-minute load average as the pair began, mostly the run's own earlier work; *other work*: CPU of other processes on the machine during the burst, as a share of one core):

| Set-up | Round | Load | Other work | Bare push p50 / p99 / max (ms) | Offered at once | POST → invite p50 / p99 / max (ms) | p99 / bare | POST answered p50 / p99 (ms) | CPU per lead (ms): leader [+ followers] + PostgreSQL = total | Never rung |
|---|---:|---:|---|---|---:|---|---:|---|---|---:|
${roundRows.join('\n')}

**Queue wait** (not part of the target), all rounds pooled. The leads whose POST answered \`queued\` (every agent ringing). Once the first wave rings, the rung agents reject their lead (\`reject {callsid}\`) one after another, each as soon as the agent before was offered its next lead: the rejected lead finds every other agent ringing and goes back to the queue, and the freed agent is offered the oldest waiting lead. *Queue wait*: POST → the queued lead's \`invite\` (mostly how long the bench kept every agent busy). *Reject → next invite*: from an agent's \`reject\` to its next \`invite\`, how fast a freed agent gets a waiting lead. *Moved on*: next invites that were not a queued lead.

| Set-up | Queued | Queue wait p50 / p99 / max (ms) | Reject → next invite p50 / p99 / max (ms) | Moved on | Never rung |
|---|---:|---|---|---:|---:|
${queueRows.join('\n')}

POST answers per measurement: ${pairs
    .map(
      (p) =>
        `${p.setup} round ${p.round}: ${Object.entries(p.product.statuses)
          .map(([status, n]) => `${n} ${status}`)
          .join(', ')}`,
    )
    .join(
      '; ',
    )}. The client's own event loop ran at most ${ms(Math.max(...pairs.flatMap((p) => [p.bare.loopDelayMs.max, p.product.loopDelayMs.max])))} ms late. Every round's figures: bench/results/routing.json.

Reproduce: \`npx tsx bench/routing/run.ts\` on an otherwise idle machine with PostgreSQL on 127.0.0.1:5432 (\`BENCH_POSTGRES_URL\`); \`BENCH_SETUPS=pglite-1,postgres-1,postgres-3\`, \`BENCH_ROUNDS\`, \`BENCH_REFUSE_BUSY=1\`, \`BENCH_PROFILE=0\` and the probes are described in the script's header.
`;
}
