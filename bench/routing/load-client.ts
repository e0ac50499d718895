/**
 * The routing bench's load generator, in its own process (run.ts pins it to core 1, the server
 * to core 0). It plays the agents and the lead source against either server:
 *
 * - `MODE=product` (product-host.ts): `AGENTS` agents each log in over HTTP
 *   (`POST /api/v1/user/login`), fetch a token (`GET /api/v1/twilio/token2`), open a PStream
 *   socket at `/signal` and `listen` + `register` (`PStreamTestClient.login`). After a warm-up
 *   (`WARMUP_LEADS` leads posted one after the other, each rejected by every agent until it ends
 *   missed), `LEADS` leads are posted evenly within `SPREAD_MS` (`POST /api/v1/leads`, Bearer
 *   API key, `{fname, phone_number}`), and each lead's first `invite` frame is timed from its
 *   POST. Agents do not answer. Leads the POST answered `ringing` were offered at once; those
 *   answered `queued` wait. Then the rung agents reject their lead (`reject {callsid}`) one after
 *   another, each as soon as the agent before was offered its next lead, until every queued lead
 *   rings: POST → `invite` of a queued lead is its queue wait, and each agent's reject → its next
 *   `invite` is how fast a freed agent gets a waiting lead. (Rejected all at once, the rejected
 *   leads move on to the other agents just freed, ahead of the queue: routing offers a rejected
 *   lead to the next idle agent, so the queue waits while the first wave goes round.)
 * - `MODE=bare` (bare-push-server.ts): the same sockets, warm-up and posting schedule against the
 *   bare push server, timing each POST to its pushed frame.
 *
 * Arrival times are taken in the socket's first `message` listener, before any other work.
 * Prints JSON lines; the last is `{"phase":"result",…}` (`LoadResult`).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { DEMO_PASSWORD } from '../../apps/server/src/db/seed';
import { PStreamTestClient, type ReceivedFrame } from '@leadline/voice/testing';
import { quantile } from '../lib/stats';
import { AGENT_NAME_PREFIX, agentEmail } from './seed-agents';

/** What one run of the client measured (all times in ms). */
export interface LoadResult {
  mode: 'product' | 'bare';
  agents: number;
  leads: number;
  /** From the first POST sent to the last. */
  postSpanMs: number;
  /** POST → first invite of the leads offered at once (POST answered `ringing`). */
  offeredMs: number[];
  /** POST → first invite of the queued leads (their queue wait). */
  queuedMs: number[];
  /** An agent's reject → its next invite (a queued lead), agent by agent. */
  freedToInviteMs: number[];
  /** Next invites after a reject that were not a queued lead (a rejected lead moving on). */
  bounced: number;
  /** POST → its HTTP answer. */
  httpMs: number[];
  /** How many POSTs were answered with each call status (or HTTP status when not 201). */
  statuses: Record<string, number>;
  /** Leads whose invite never came (within the waits below). */
  missing: { offered: number; queued: number };
  /** Reject frames the agents sent after the burst. */
  rejects: number;
  /** How late the client's own event loop ran during the burst (it timestamps arrivals). */
  loopDelayMs: { p99: number; max: number };
}

const mode = process.env.MODE === 'bare' ? 'bare' : 'product';
/**
 * The servers' base URLs (`BASES`, comma-separated; `BASE` for one): with several instances, the
 * agents log in and open their sockets round-robin over them, and the leads are posted
 * round-robin over them (warm-up and burst alike).
 */
const bases = (process.env.BASES ?? process.env.BASE ?? 'http://127.0.0.1:3000').split(',');
const base = bases[0]!;
/** The `n`-th instance's base URL, round-robin. */
const baseOf = (n: number): string => bases[n % bases.length]!;
const agentCount = Number(process.env.AGENTS ?? 50);
const leadCount = Number(process.env.LEADS ?? 100);
const spreadMs = Number(process.env.SPREAD_MS ?? 1000);
const warmupLeads = Number(process.env.WARMUP_LEADS ?? 20);
const API_KEY = process.env.API_KEY ?? 'demo-api-key';
/** Longest wait for the leads offered at once to ring, and for the queue to be offered. */
const OFFER_WAIT_MS = 15_000;
const QUEUE_WAIT_MS = 30_000;
/** Logins at a time (each costs the server a scrypt). */
const LOGIN_CONCURRENCY = 5;
/** Pause between the warm-up and the burst (the server's CPU time is read meanwhile). */
const BURST_DELAY_MS = Number(process.env.BURST_DELAY_MS ?? 1000);
/** Bare-push warm-up: requests before the timed burst. */
const BARE_WARMUP_REQUESTS = 50;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const say = (message: object): void => console.log(JSON.stringify(message));

/** A distinct, valid US number per lead: `+1 555 01<prefix> <4 digits>`. */
const phoneOf = (prefix: number, n: number): string =>
  `+155501${prefix}${String(n).padStart(4, '0')}`;

/** One posted lead and what became of it. */
interface Lead {
  phone: string;
  sentAt: number;
  answeredAt?: number;
  status?: string;
  inviteAt?: number;
}

/** An invite an agent holds (rung, not answered). */
interface HeldInvite {
  agent: Agent;
  callsid: string;
  phone: string;
}

/** One agent: its socket, the invites it is rung for, and its latest. */
interface Agent {
  index: number;
  client: PStreamTestClient;
  held: Map<string, HeldInvite>;
  invites: number;
  last?: { at: number; phone: string };
}

/** What the agents do with an invite as it arrives. */
type InvitePolicy = (invite: HeldInvite) => 'hold' | 'reject';

const leads = new Map<string, Lead>();
let policy: InvitePolicy = () => 'hold';
let rejects = 0;
/** Invites seen per phone number (warm-up bookkeeping). */
const invitesByPhone = new Map<string, number>();
let inviteSeen: () => void = () => undefined;

function reject(invite: HeldInvite): void {
  invite.agent.held.delete(invite.callsid);
  invite.agent.client.send('reject', { callsid: invite.callsid });
  rejects++;
}

function onInvite(agent: Agent, payload: Record<string, unknown>, at: number): void {
  const parameters = (payload.parameters ?? {}) as Record<string, string>;
  const phone = parameters.To ?? '';
  const callsid = String(payload.callsid);
  const lead = leads.get(phone);
  if (lead && lead.inviteAt === undefined) lead.inviteAt = at;
  invitesByPhone.set(phone, (invitesByPhone.get(phone) ?? 0) + 1);
  const invite = { agent, callsid, phone };
  agent.invites++;
  agent.last = { at, phone };
  agent.held.set(callsid, invite);
  if (policy(invite) === 'reject') reject(invite);
  inviteSeen();
}

/** Opens an agent's socket; its first `message` listener timestamps invites. */
async function connectAgent(index: number, url: string): Promise<Agent> {
  const client = await PStreamTestClient.connect(url, 10_000);
  const agent: Agent = { index, client, held: new Map(), invites: 0 };
  client.ws.prependListener('message', (data: Buffer) => {
    const at = performance.now();
    const text = data.toString();
    if (text === '\n') return;
    const frame = JSON.parse(text) as ReceivedFrame;
    if (frame.type === 'invite') onInvite(agent, frame.payload, at);
  });
  return agent;
}

/** Resolves when `done()` holds, re-checking at each invite and every 50 ms; false on timeout. */
async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await Promise.race([new Promise<void>((resolve) => (inviteSeen = resolve)), sleep(50)]);
  }
  return true;
}

async function postLead(url: string, lead: Lead, body: object): Promise<void> {
  leads.set(lead.phone, lead);
  lead.sentAt = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  lead.answeredAt = performance.now();
  lead.status =
    response.status === 201
      ? (JSON.parse(text) as { call: { status: string } }).call.status
      : `HTTP ${response.status}`;
}

/**
 * Posts `count` leads evenly over `spreadMs` (the `i`-th to `urlOf(i)`); resolves when every POST
 * has its answer.
 */
async function burst(urlOf: (i: number) => string, count: number, prefix: number): Promise<Lead[]> {
  const posted: Lead[] = [];
  const start = performance.now() + 20;
  const requests: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const lead: Lead = { phone: phoneOf(prefix, i), sentAt: 0 };
    posted.push(lead);
    requests.push(
      new Promise<void>((resolve, fail) =>
        setTimeout(
          () =>
            postLead(urlOf(i), lead, { fname: `Burst ${i}`, phone_number: lead.phone }).then(
              resolve,
              fail,
            ),
          Math.max(0, start + (i * spreadMs) / count - performance.now()),
        ),
      ),
    );
  }
  await Promise.all(requests);
  return posted;
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Logs `email` in at `at`; resolves with its session cookie. */
async function login(email: string, at = base): Promise<string> {
  const response = await fetch(`${at}/api/v1/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (!response.ok || !cookie) throw new Error(`login of ${email} failed: ${response.status}`);
  return cookie;
}

/** How many of the bench's agents the product reports available (seen by the supervisor). */
async function availableAgents(supervisor: string): Promise<number> {
  const page = await json<{ meta: { total: number } }>(
    await fetch(
      `${base}/api/v1/users/paginated?status=available&search=${encodeURIComponent(AGENT_NAME_PREFIX)}`,
      { headers: { cookie: supervisor } },
    ),
  );
  return page.meta.total;
}

async function waitAllAvailable(supervisor: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while ((await availableAgents(supervisor)) < agentCount) {
    if (performance.now() > deadline) throw new Error('the agents did not all become available');
    await sleep(100);
  }
}

async function connectProductAgents(): Promise<Agent[]> {
  const tokens: string[] = new Array<string>(agentCount);
  let nextLogin = 0;
  await Promise.all(
    Array.from({ length: LOGIN_CONCURRENCY }, async () => {
      for (let i = nextLogin++; i < agentCount; i = nextLogin++) {
        const cookie = await login(agentEmail(i + 1), baseOf(i));
        const { token } = await json<{ token: string }>(
          await fetch(`${baseOf(i)}/api/v1/twilio/token2?time=${Date.now()}`, {
            headers: { cookie },
          }),
        );
        tokens[i] = token;
      }
    }),
  );
  return Promise.all(
    tokens.map(async (token, i) => {
      const agent = await connectAgent(i, `${baseOf(i).replace(/^http/, 'ws')}/signal`);
      await agent.client.login(token);
      return agent;
    }),
  );
}

/** Warm-up: each lead is rejected by every agent in turn (ends missed), one lead after another. */
async function warmUpProduct(leadsUrlOf: (i: number) => string): Promise<void> {
  policy = () => 'reject';
  for (let i = 0; i < warmupLeads; i++) {
    const phone = phoneOf(8, i);
    await postLead(
      leadsUrlOf(i),
      { phone, sentAt: 0 },
      { fname: `Warm-up ${i}`, phone_number: phone },
    );
    if (!(await until(() => (invitesByPhone.get(phone) ?? 0) >= agentCount, OFFER_WAIT_MS))) {
      throw new Error(`warm-up lead ${i} reached ${invitesByPhone.get(phone) ?? 0} agents`);
    }
  }
  leads.clear();
}

function summarise(posted: Lead[], offered: Lead[], queued: Lead[]) {
  const statuses: Record<string, number> = {};
  for (const lead of posted) statuses[lead.status!] = (statuses[lead.status!] ?? 0) + 1;
  const sent = posted.map((l) => l.sentAt);
  return {
    postSpanMs: Math.max(...sent) - Math.min(...sent),
    offeredMs: offered.filter((l) => l.inviteAt !== undefined).map((l) => l.inviteAt! - l.sentAt),
    queuedMs: queued.filter((l) => l.inviteAt !== undefined).map((l) => l.inviteAt! - l.sentAt),
    httpMs: posted.map((l) => l.answeredAt! - l.sentAt),
    statuses,
    missing: {
      offered: offered.filter((l) => l.inviteAt === undefined).length,
      queued: queued.filter((l) => l.inviteAt === undefined).length,
    },
  };
}

async function runProduct(): Promise<LoadResult> {
  const supervisor = await login('supervisor@example.com');
  const agents = await connectProductAgents();
  say({ phase: 'connected', agents: agents.length });
  await waitAllAvailable(supervisor);
  const leadsUrl = (i: number) => `${baseOf(i)}/api/v1/leads`;
  await warmUpProduct(leadsUrl);
  await waitAllAvailable(supervisor);
  say({ phase: 'warm' });
  // The orchestrator reads the server's CPU time at 'warm' and at 'offered'.
  await sleep(BURST_DELAY_MS);

  policy = () => 'hold';
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const posted = await burst(leadsUrl, leadCount, 9);
  const offered = posted.filter((l) => l.status === 'ringing');
  const queued = posted.filter((l) => l.status === 'queued');
  await until(() => offered.every((l) => l.inviteAt !== undefined), OFFER_WAIT_MS);
  say({ phase: 'offered' });
  loop.disable();

  // The rung agents reject their lead one after another, each once the one before has its next
  // lead, until every queued lead rings someone.
  const firstWave = new Set(offered.map((l) => l.phone));
  const queuedPhones = new Set(queued.map((l) => l.phone));
  const freedToInviteMs: number[] = [];
  let bounced = 0;
  const deadline = performance.now() + QUEUE_WAIT_MS;
  for (const agent of agents) {
    if (queued.every((l) => l.inviteAt !== undefined) || performance.now() > deadline) break;
    const invite = [...agent.held.values()].find((i) => firstWave.has(i.phone));
    if (!invite) continue;
    const before = agent.invites;
    const rejectedAt = performance.now();
    reject(invite);
    if (!(await until(() => agent.invites > before, OFFER_WAIT_MS))) continue;
    freedToInviteMs.push(agent.last!.at - rejectedAt);
    if (!queuedPhones.has(agent.last!.phone)) bounced++;
  }
  for (const agent of agents) agent.client.close();
  return {
    mode,
    agents: agents.length,
    leads: leadCount,
    ...summarise(posted, offered, queued),
    freedToInviteMs,
    bounced,
    rejects,
    loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
  };
}

async function runBare(): Promise<LoadResult> {
  const url = `${base.replace(/^http/, 'ws')}/`;
  const agents = await Promise.all(
    Array.from({ length: agentCount }, (_, i) => connectAgent(i, url)),
  );
  say({ phase: 'connected', agents: agents.length });
  const pushUrl = `${base}/push`;
  const pushUrlOf = () => pushUrl;
  for (let i = 0; i < BARE_WARMUP_REQUESTS; i++) {
    const phone = phoneOf(8, i);
    await postLead(pushUrl, { phone, sentAt: 0 }, { fname: `Warm-up ${i}`, phone_number: phone });
  }
  await until(() => [...leads.values()].every((l) => l.inviteAt !== undefined), OFFER_WAIT_MS);
  leads.clear();
  say({ phase: 'warm' });
  // The orchestrator reads the server's CPU time at 'warm' and at 'offered'.
  await sleep(BURST_DELAY_MS);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const posted = await burst(pushUrlOf, leadCount, 9);
  await until(() => posted.every((l) => l.inviteAt !== undefined), OFFER_WAIT_MS);
  say({ phase: 'offered' });
  loop.disable();
  for (const agent of agents) agent.client.close();
  return {
    mode,
    agents: agents.length,
    leads: leadCount,
    ...summarise(posted, posted, []),
    freedToInviteMs: [],
    bounced: 0,
    rejects,
    loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
  };
}

const result = mode === 'bare' ? await runBare() : await runProduct();
say({ phase: 'result', ...result });
const p = (values: number[], q: number) => Math.round(quantile(values, q) * 10) / 10;
console.error(
  `${mode}: POST→invite p50 ${p(result.offeredMs, 0.5)} p99 ${p(result.offeredMs, 0.99)} ms (${result.offeredMs.length})` +
    (mode === 'product'
      ? `; queue wait p50 ${p(result.queuedMs, 0.5)} max ${p(result.queuedMs, 1)} ms (${result.queuedMs.length})`
      : ''),
);
// BENCH_TRACE=1: each offered lead's POST → invite in the order they were posted.
if (process.env.BENCH_TRACE === '1') {
  console.error(`${mode} in order: ${result.offeredMs.map((ms) => Math.round(ms)).join(' ')}`);
}
process.exit(0);
