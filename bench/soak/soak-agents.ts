/**
 * The soak's agents, in their own process (run.ts pins it to core 1, the product to core 0):
 * `AGENTS` headless agents (`AgentClient`, apps/server/src/test-support/agent-client.ts), each
 * logged in over HTTP with its softphone token and PStream socket registered, taking the leads
 * they are rung for as the console and its SDK would, over a real WebRTC leg (werift) that sends
 * the agent's tone and records what it hears:
 *
 * 1. `invite` arrives (its arrival time taken in the socket's first listener); the call user is
 *    loaded (`GET /api/v1/callusers/{id}`, the call's id and profile), as the console does first;
 * 2. accept (`answer` with the leg's SDP), until ICE and DTLS are up; the agent listens until it
 *    hears the lead (the test leads' 440 Hz) or 5 s have passed;
 * 3. talks for a random `TALK_MIN_MS`–`TALK_MAX_MS` (the lead stays on the line), then hangs up
 *    (`hangup`); if the call ends first, that is noted;
 * 4. wraps up after `WRAP_UP_MIN_MS`–`WRAP_UP_MAX_MS`: Call Result `contacted`
 *    (`POST /apps/webrtc/{id}/disposition`), Tags & Stages (`disposition2`, the profile's first
 *    tag: the demo profile asks for it), a note (`POST /api/v1/notes`), each with an
 *    `Idempotency-Key` as the console's outbox sends, then Done (`POST /api/v1/user/wrap-up/done`).
 *
 * The browser SDK has no Node platform, so this is the SDK's wire logic over real WebRTC legs,
 * not the SDK itself.
 *
 * Prints JSON lines: `{"ready":true,…}` once every agent is registered and available,
 * `{"call":AgentCallReport}` per invite handled, `{"sample":LoadSample}` every `SAMPLE_MS`;
 * SIGTERM closes every agent and exits.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { CallUserResponse } from '@leadline/contracts';
import { AgentClient, type Invite } from '../../apps/server/src/test-support/agent-client';
import { requestJson } from '../../apps/server/src/test-support/http-json';
import { HttpSession } from '../../apps/server/src/test-support/http-session';
import { agentProductOf } from '../../apps/server/src/test-support/remote-agent-product';
import { WaitTimeoutError } from '../../apps/server/src/test-support/wait-until';
import { agentEmail } from '../routing/seed-agents';

/** What became of one invite an agent got (times are epoch ms, durations ms). */
export interface AgentCallReport {
  agent: number;
  /** The lead's number (the invite's `To`). */
  phone: string;
  callSid: string;
  /** The call's id (from the call user), if it was loaded. */
  callId?: number;
  /** When the invite frame arrived (`performance.timeOrigin + performance.now()`). */
  inviteAt: number;
  /** Invite → the leg's media connected. */
  acceptMs?: number;
  /** Whether the agent heard the lead's tone. */
  heardLead: boolean;
  talkMs?: number;
  /** Who ended the call: the agent's hangup, or the server's `hangup` frame first. */
  endedBy?: 'agent' | 'server';
  /** HTTP statuses of the wrap-up's writes. */
  writes: { disposition?: number; disposition2?: number; note?: number; done?: number };
  /** What went wrong, if anything. */
  error?: string;
}

/** The load process's own health since the previous sample. */
export interface LoadSample {
  rssMb: number;
  eld: { p99: number; max: number };
  callsUp: number;
  /** Frames the agents' sockets received and nobody took, by type (should not grow). */
  unread: Record<string, number>;
}

const base = process.env.BASE ?? 'http://127.0.0.1:3000';
const agentCount = Number(process.env.AGENTS ?? 100);
const talkMinMs = Number(process.env.TALK_MIN_MS ?? 20_000);
const talkMaxMs = Number(process.env.TALK_MAX_MS ?? 40_000);
const wrapUpMinMs = Number(process.env.WRAP_UP_MIN_MS ?? 1_000);
const wrapUpMaxMs = Number(process.env.WRAP_UP_MAX_MS ?? 3_000);
const sampleMs = Number(process.env.SAMPLE_MS ?? 10_000);
/** The test leads' tone (`+15550100001`–`+15550100099`, docs/sandbox-numbers.md). */
const LEAD_TONE_HZ = 440;
/** How long an agent listens for the lead before talking on regardless. */
const HEAR_LEAD_MS = 5_000;
const LISTEN_CHUNK_S = 0.5;
/** Logins at a time (each costs the server a scrypt). */
const LOGIN_CONCURRENCY = 5;
/** An idle agent's wait for an invite is renewed this often (the wait itself is bounded). */
const IDLE_WAIT_MS = 60_000;
const MB = 1024 * 1024;

const say = (message: object): void => console.log(JSON.stringify(message));
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number): number => min + Math.random() * (max - min);

let stopping = false;
let callsUp = 0;
const cleanups: Array<() => Promise<void> | void> = [];
const signalUrl = `${base.replace(/^http/, 'ws')}/signal`;

/** Logs every agent in, a few at a time; resolves with them in order. */
async function loginAll(observer: HttpSession): Promise<AgentClient[]> {
  const product = agentProductOf(
    { url: base, signalUrl, addCleanup: (cleanup) => cleanups.push(cleanup) },
    observer,
  );
  const agents = new Array<AgentClient>(agentCount);
  let next = 0;
  await Promise.all(
    Array.from({ length: LOGIN_CONCURRENCY }, async () => {
      for (let i = next++; i < agentCount; i = next++) {
        agents[i] = await AgentClient.login(product, agentEmail(i + 1), { timeoutMs: 30_000 });
      }
    }),
  );
  return agents;
}

/** Waits until the product lists every agent as available (as the supervisor sees them). */
async function allAvailable(observer: HttpSession): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const page = await observer.api<{ meta: { total: number } }>(
      'GET',
      `/api/v1/users/paginated?status=available&search=${encodeURIComponent('Routing agent')}`,
    );
    if (page.status === 200 && page.body.meta.total >= agentCount) return;
    if (performance.now() > deadline) throw new Error('the agents did not all become available');
    await sleep(200);
  }
}

/** A console write of the wrap-up, with an `Idempotency-Key` as the outbox sends it. */
async function write(agent: AgentClient, path: string, body?: unknown): Promise<number> {
  const headers = {
    cookie: agent.cookie,
    'x-csrf-token': agent.csrf,
    'idempotency-key': randomUUID(),
  };
  const result = await requestJson('POST', `${agent.product.url}${path}`, headers, body);
  if (result.status >= 300) {
    throw new Error(`POST ${path}: ${result.status} ${JSON.stringify(result.body)}`);
  }
  return result.status;
}

/** Listens in short chunks until the lead's tone is heard, at most `HEAR_LEAD_MS`. */
async function hearLead(agent: AgentClient): Promise<boolean> {
  const deadline = performance.now() + HEAR_LEAD_MS;
  while (performance.now() < deadline) {
    const tones = await agent.tonesHeard([LEAD_TONE_HZ], LISTEN_CHUNK_S, 0.5);
    if (tones.includes(LEAD_TONE_HZ)) return true;
  }
  return false;
}

/** One invite, from ring to Done. */
async function takeCall(
  index: number,
  agent: AgentClient,
  invite: Invite,
  inviteAt: number,
): Promise<AgentCallReport> {
  const report: AgentCallReport = {
    agent: index,
    phone: invite.parameters.To ?? '',
    callSid: invite.callsid,
    inviteAt,
    heardLead: false,
    writes: {},
  };
  try {
    if (invite.callUserId === undefined) throw new Error('the invite names no call user');
    const callUser = await agent.api<CallUserResponse>(
      'GET',
      `/api/v1/callusers/${invite.callUserId}`,
    );
    if (callUser.status !== 200) throw new Error(`GET callusers: ${callUser.status}`);
    const { call } = callUser.body;
    report.callId = call.id;
    await agent.accept(invite);
    callsUp++;
    try {
      const acceptedAt = now();
      report.acceptMs = acceptedAt - inviteAt;
      report.heardLead = await hearLead(agent);
      const talkMs = between(talkMinMs, talkMaxMs);
      const left = Math.max(1, acceptedAt + talkMs - now());
      // The call goes on until the agent hangs up, unless the server ends it first.
      const ended = await agent.waitForHangup(left).then(
        () => true,
        (error: unknown) => {
          if (error instanceof WaitTimeoutError) return false;
          throw error;
        },
      );
      if (!ended) await agent.hangup();
      report.endedBy = ended ? 'server' : 'agent';
      report.talkMs = now() - acceptedAt;
    } finally {
      callsUp--;
    }
    await sleep(between(wrapUpMinMs, wrapUpMaxMs));
    report.writes.disposition = await write(agent, `/apps/webrtc/${call.id}/disposition`, {
      status: 'contacted',
    });
    const tag = call.profile?.tags[0]?.key;
    if (call.profile?.is_deal_whispertext && tag) {
      report.writes.disposition2 = await write(agent, `/apps/webrtc/${call.id}/disposition2`, {
        key: tag,
      });
    }
    report.writes.note = await write(agent, '/api/v1/notes', {
      call_id: call.id,
      content: `Soak call ${call.id}: talked ${Math.round((report.talkMs ?? 0) / 1000)} s.`,
    });
    report.writes.done = await write(agent, '/api/v1/user/wrap-up/done');
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
    if (agent.call) await agent.hangup().catch(() => undefined);
  }
  return report;
}

/** An agent's day: wait for an invite, take the call, again, until the process stops. */
async function work(index: number, agent: AgentClient): Promise<void> {
  // Invite arrival times by call sid, taken before any other listener runs.
  const arrivals = new Map<string, number>();
  agent.signal.ws.prependListener('message', (data: Buffer) => {
    const at = now();
    const text = data.toString();
    if (text === '\n') return;
    const frame = JSON.parse(text) as { type: string; payload: { callsid?: unknown } };
    if (frame.type === 'invite') arrivals.set(String(frame.payload.callsid), at);
  });
  while (!stopping) {
    let invite: Invite;
    try {
      invite = await agent.nextInvite(IDLE_WAIT_MS);
    } catch (error) {
      if (error instanceof WaitTimeoutError) continue;
      if (stopping) return;
      throw error;
    }
    const inviteAt = arrivals.get(invite.callsid) ?? now();
    arrivals.delete(invite.callsid);
    say({ call: await takeCall(index, agent, invite, inviteAt) });
  }
}

function unreadFrames(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const agent of agents) {
    for (const frame of agent.signal.frames) counts[frame.type] = (counts[frame.type] ?? 0) + 1;
  }
  return counts;
}

const observer = await HttpSession.login(base, 'supervisor@example.com');
const agents = await loginAll(observer);
await allAvailable(observer);
say({ ready: true, agents: agents.length });

/** The delay monitor's timer period; Node counts it in every value, so it is taken off. */
const LOOP_RESOLUTION_MS = 10;
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loop.enable();
const sampler = setInterval(() => {
  const sample: LoadSample = {
    rssMb: process.memoryUsage().rss / MB,
    eld: {
      p99: Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
      max: Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS),
    },
    callsUp,
    unread: unreadFrames(),
  };
  loop.reset();
  say({ sample });
}, sampleMs);

const working = agents.map((agent, i) =>
  work(i + 1, agent).catch((error: unknown) => {
    if (!stopping) console.error(`agent ${i + 1} stopped: ${String(error)}`);
  }),
);

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(sampler);
  for (const cleanup of cleanups.splice(0).reverse()) {
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
  }
  await Promise.allSettled(working);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
