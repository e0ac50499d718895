/**
 * Routing and the call lifecycle on the real voice engine: the whole product in this process
 * (worker media threads, werift legs standing in for browsers, the sandbox phone network), with
 * headless agents on the real wire. Each agent's "microphone" plays its own tone and the test
 * leads (+1555010000x) play 440 Hz, so every "who is connected to whom" is checked by listening.
 *
 * Demo account: agent1 (Alex), agent2 (Blake) and the supervisor (Sam) all take leads; the
 * profile 'Solar leads' routes to everyone (no team).
 */
import type { CallUserResponse } from '@leadline/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { between, soundsLikeSpeech, tonesIn } from '@leadline/voice/testing';
import { callUsers, calls, profiles, users, type WeeklySchedule } from '../db/schema';
import { routingChanged } from '../db/routing-changes';
import { AgentClient, type Invite } from '../test-support/agent-client';
import { leadHeard } from '../test-support/lead-heard';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { waitUntil } from '../test-support/wait-until';

const TONES = { agent1: 1000, agent2: 700, supervisor: 1500, lead: 440 } as const;
const EMAILS = {
  agent1: 'agent1@example.com',
  agent2: 'agent2@example.com',
  supervisor: 'supervisor@example.com',
} as const;
type Who = keyof typeof EMAILS;

let product: RealLeadline;
let open: AgentClient[] = [];
let leadNumber = 10;
/** A test lead (440 Hz) nobody called yet in this file. */
const nextLead = () => `+155501000${String(leadNumber++).padStart(2, '0')}`;

beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterAll(() => product?.close());

afterEach(async () => {
  // Agents hang up and log out; every call ends through the flows; the profile and the agents
  // are as the seed made them.
  for (const agent of open) if (agent.call) await agent.hangup().catch(() => undefined);
  await Promise.all(open.map((agent) => agent.close()));
  open = [];
  let live: string[] = [];
  await waitUntil(
    async () => {
      const rows = await product.db.select().from(calls);
      live = rows
        .filter((r) => r.status === 'ringing' || r.status === 'in-progress')
        .map((r) => r.sid);
      const online = await product.db.select().from(users).where(eq(users.isOnlineApp, true));
      return live.length === 0 && online.length === 0 ? true : undefined;
    },
    'every call to end and every agent to be offline',
    30_000,
    () => `still live: ${live.join(', ')}`,
  );
  await product.flows.idle();
  await product.db.update(calls).set({ status: 'completed' }).where(eq(calls.status, 'queued'));
  await product.db.update(users).set({ wrapUpUntil: null, isAvailable: true });
  routingChanged();
  await product.db
    .update(profiles)
    .set({ ringTimeoutMs: null, availability: null, wrapUpSeconds: 60, teamId: null });
  product.flows.settings.forget();
});

/** Logs an agent in (their tone as microphone); they are idle from now, after those before. */
async function login(who: Who): Promise<AgentClient> {
  const agent = await AgentClient.login(product, EMAILS[who], { toneHz: TONES[who] });
  open.push(agent);
  return agent;
}

/** Logs agents in one after another: the first is the longest idle. */
async function loginInOrder<T extends Who[]>(
  ...order: T
): Promise<{ [K in keyof T]: AgentClient }> {
  const agents: AgentClient[] = [];
  for (const who of order) agents.push(await login(who));
  return agents as { [K in keyof T]: AgentClient };
}

/** Changes the demo profile's settings, as a settings page would (the server re-reads them). */
async function setProfile(values: Partial<typeof profiles.$inferInsert>): Promise<void> {
  await product.db.update(profiles).set(values).where(eq(profiles.accountId, 1));
  product.flows.settings.forget();
}

/** Where the agent is now, as the server answers it (PUT /api/v1/user/status reads it too). */
async function presenceOf(agent: AgentClient): Promise<string> {
  const res = await agent.api<{ data: Array<{ id: number; status: string }> }>(
    'GET',
    '/api/v1/users/paginated?status=all',
  );
  // An agent is not in their own list: ask another open client, or the database.
  const other = res.body.data.find((row) => row.id === agent.userId);
  if (other) return other.status;
  const mine = await open
    .find((a) => a !== agent)
    ?.api<{ data: Array<{ id: number; status: string }> }>(
      'GET',
      '/api/v1/users/paginated?status=all',
    );
  return mine?.body.data.find((row) => row.id === agent.userId)?.status ?? 'unknown';
}

/** Posts a web lead; returns the call the server made for it. */
async function postLead(phone = nextLead()) {
  const posted = await product.postLead({ fname: 'Lee', lname: 'Lead', phone_number: phone });
  expect(posted.status).toBe(201);
  return { ...posted.body.call, phone };
}

/** Accepts the invite and waits until the lead answered and is heard (440 Hz). */
async function takeLeadCall(agent: AgentClient, invite: Invite): Promise<void> {
  await agent.accept(invite);
  await product.waitForEvent('phone.answered', { callSid: invite.callsid });
  expect(await agent.hears(TONES.lead, 1)).toBe(true);
}

/** Asserts no further invite reached `agent` by the time the flows handled everything. */
async function noInvite(agent: AgentClient): Promise<void> {
  await product.flows.idle();
  expect(agent.signal.frames.filter((f) => f.type === 'invite')).toEqual([]);
}

describe('routing', () => {
  it('offers a lead to the longest idle agent first; Ignore, reject and the ring timeout move it on; nobody left: missed', async () => {
    await setProfile({ ringTimeoutMs: 1500 });
    // Logged in: the supervisor first, then agent2, then agent1: the idle order.
    const [supervisor, agent2, agent1] = await loginInOrder('supervisor', 'agent2', 'agent1');
    const call = await postLead();
    expect(call).toMatchObject({ status: 'ringing', agent_id: supervisor.userId, reason: null });

    // The supervisor clicks Ignore in the console: agent2 rings next.
    const first = await supervisor.nextInvite();
    expect(first.parameters).toMatchObject({ To: call.phone });
    expect((await supervisor.ignore(first)).body).toEqual({
      success: true,
      call: { id: call.id, status: 'ringing' },
    });
    // Agent2 rejects on the wire: agent1 rings next.
    const second = await agent2.nextInvite();
    agent2.reject(second);
    // Agent1 lets it ring: after the profile's ring time the ring moves on, and the ringing
    // device is told (`cancel`).
    const third = await agent1.nextInvite();
    await agent1.nextFrame(
      (f) => f.type === 'cancel' && f.payload.callsid === third.callsid,
      'the cancel of the timed-out ring',
    );
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'missed', reason: 'no-agent-answered', seconds: 0 });
    const rings = await product.db.select().from(callUsers).where(eq(callUsers.callId, call.id));
    expect(rings.map((r) => [r.userId, r.outcome])).toEqual([
      [supervisor.userId, 'rejected'],
      [agent2.userId, 'rejected'],
      [agent1.userId, 'missed'],
    ]);
    // The lead was never dialled, and the history says why.
    expect(product.events.some((e) => e.type === 'phone.ringing' && e.callSid === ended.sid)).toBe(
      false,
    );
    const history = await agent1.api<{ data: Array<Record<string, unknown>> }>(
      'GET',
      '/api/v1/mycalls?limit=5&page=1',
    );
    expect(history.body.data.find((row) => row.id === call.id)).toMatchObject({
      status_display: 'missed',
      reason: 'No agents answered',
    });
    await noInvite(supervisor);
  });

  it('the agent who accepts is connected to the lead: both hear each other', async () => {
    const [agent1] = await loginInOrder('agent1');
    const call = await postLead();
    const invite = await agent1.nextInvite();
    await takeLeadCall(agent1, invite);
    await agent1.hangup();
    const lead = await leadHeard(product, invite.callsid);
    const heard = between(lead.samples, 0.2, lead.seconds, lead.sampleRateHz);
    expect(tonesIn(heard, [TONES.agent1, TONES.lead], 0.1, lead.sampleRateHz)).toEqual([
      TONES.agent1,
    ]);
    expect(await product.waitForCall(call.id)).toMatchObject({ status: 'completed' });
  });

  it('away and wrapping-up agents are skipped; a lead waits until one of them is free', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    // Agent1 (the longest idle) is Away: the lead goes to agent2.
    expect((await agent1.api('PUT', '/api/v1/user/status', { status: 'away' })).body).toEqual({
      success: true,
      status: 'away',
      is_available: false,
      wrap_up_until: null,
    });
    const first = await postLead();
    expect(first).toMatchObject({ status: 'ringing', agent_id: agent2.userId });
    const invite = await agent2.nextInvite();
    await takeLeadCall(agent2, invite);
    await agent2.hangup();
    await product.waitForCall(first.id);
    // Agent2 wraps up after the call; agent1 is away: the next web lead waits.
    expect(await presenceOf(agent2)).toBe('wrap_up');
    const waiting = await postLead();
    expect(waiting).toMatchObject({ status: 'queued', agent_id: null, reason: 'all-agents-busy' });
    await noInvite(agent1);
    await noInvite(agent2);
    // Agent1 becomes Available: the waiting lead is offered to them at once.
    const back = await agent1.api<{ status: string }>('PUT', '/api/v1/user/status', {
      status: 'available',
    });
    expect(back.body.status).toBe('available');
    const offered = await agent1.nextInvite();
    expect(offered.parameters.To).toBe(waiting.phone);
    await takeLeadCall(agent1, offered);
    expect(await product.callRow(waiting.id)).toMatchObject({
      status: 'in-progress',
      userId: agent1.userId,
    });
  });

  it('all agents on calls: a caller gets busy; a web lead waits and is offered when an agent is done', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const firstLead = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    const secondLead = await postLead();
    await takeLeadCall(agent2, await agent2.nextInvite());

    // A caller rings in while everyone talks: busy, and the caller is let go.
    const inbound = await product.leadline.app.inject({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${product.config.leadApiKey}` },
      payload: { from: '+15550107001', to: '+15550142000' },
    });
    expect(inbound.json()).toMatchObject({
      call: { status: 'busy', agent_id: null, reason: 'all-agents-busy' },
    });
    // A web lead waits in the queue.
    const waiting = await postLead();
    expect(waiting).toMatchObject({ status: 'queued', reason: 'all-agents-busy' });
    const history = await agent1.api<{ data: Array<Record<string, unknown>> }>(
      'GET',
      '/api/v1/mycalls?limit=5&page=1',
    );
    expect(history.body.data[0]).toMatchObject({ id: firstLead.id, status: 'in-progress' });

    // Agent1 hangs up: they wrap up, the lead still waits; Done offers it to them.
    await agent1.hangup();
    await product.waitForCall(firstLead.id);
    expect(await product.callRow(waiting.id)).toMatchObject({ status: 'queued' });
    const done = await agent1.api<{ status: string }>('POST', '/api/v1/user/wrap-up/done');
    expect(done.body.status).toBe('available');
    const offered = await agent1.nextInvite();
    expect(offered.parameters.To).toBe(waiting.phone);
    await takeLeadCall(agent1, offered);
    await noInvite(agent2);
    expect(await product.callRow(secondLead.id)).toMatchObject({ status: 'in-progress' });
  });

  it('a wrap-up ends by itself after the profile’s time, and the waiting lead is offered', async () => {
    await setProfile({ wrapUpSeconds: 1 });
    const [agent1] = await loginInOrder('agent1');
    const first = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    const waiting = await postLead();
    expect(waiting).toMatchObject({ status: 'queued' });
    await agent1.hangup();
    await product.waitForCall(first.id);
    // No Done: the wrap-up of 1 s runs out and the lead is offered.
    const offered = await agent1.nextInvite();
    expect(offered.parameters.To).toBe(waiting.phone);
  });

  it('outside the profile’s availability hours a lead is offline and rings nobody', async () => {
    const closed: WeeklySchedule = { timeZone: 'UTC', days: {} };
    await setProfile({ availability: closed });
    const [agent1] = await loginInOrder('agent1');
    const call = await postLead();
    expect(call).toMatchObject({ status: 'offline', agent_id: null, reason: 'outside-hours' });
    await noInvite(agent1);
    const history = await agent1.api<{ data: Array<Record<string, unknown>> }>(
      'GET',
      '/api/v1/mycalls?limit=5&page=1',
    );
    // Not the agent's call: the history of the account's agents does not list it for them.
    expect(history.body.data.some((row) => row.id === call.id)).toBe(false);
    expect(await product.callRow(call.id)).toMatchObject({ status: 'offline' });
  });

  it('nobody online: a web lead waits, and rings the first agent who comes online', async () => {
    const waiting = await postLead();
    expect(waiting).toMatchObject({ status: 'queued', reason: 'no-agents-online' });
    const [agent2] = await loginInOrder('agent2');
    const offered = await agent2.nextInvite();
    expect(offered.parameters.To).toBe(waiting.phone);
    await takeLeadCall(agent2, offered);
  });

  it('Check for lead rings the caller with the oldest waiting lead, and says when none waits', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const first = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    const second = await postLead();
    await takeLeadCall(agent2, await agent2.nextInvite());
    const oldest = await postLead();
    const newer = await postLead();
    await agent1.hangup();
    await agent2.hangup();
    // The console shows the wrap-up once the call has ended on the server.
    await product.waitForCall(first.id);
    await product.waitForCall(second.id);
    // Both wrap up; agent2 checks for a lead: the oldest rings them.
    const check = await agent2.api<Record<string, unknown>>('POST', '/apps/webrtc/check');
    expect(check.body).toEqual({ success: true, call: { id: oldest.id, status: 'ringing' } });
    const offered = await agent2.nextInvite();
    expect(offered.parameters.To).toBe(oldest.phone);
    agent2.reject(offered);
    // Agent2 is free (they refused it): the other waiting lead is offered to them; the refused
    // one waits again, still the oldest (agent1 wraps up).
    expect((await agent2.nextInvite()).parameters.To).toBe(newer.phone);
    await waitUntil(
      async () => ((await product.callRow(oldest.id))?.status === 'queued' ? true : undefined),
      'the refused lead to wait again',
    );
    // The supervisor comes online: the waiting lead is offered to them at once.
    const supervisor = await login('supervisor');
    expect((await supervisor.nextInvite()).parameters.To).toBe(oldest.phone);
    // Agent1, still wrapping up, checks: nothing waits any more.
    expect((await agent1.api('POST', '/apps/webrtc/check')).body).toEqual({
      success: false,
      error: 'No leads waiting.',
    });
  });
});

/** Rings a sandbox caller in (inbound) from `from`; returns the call. */
async function callIn(from: string): Promise<{ id: number; sid: string; status: string }> {
  const res = await product.leadline.app.inject({
    method: 'POST',
    url: '/api/v1/sandbox/inbound',
    headers: { authorization: `Bearer ${product.config.leadApiKey}` },
    payload: { from, to: '+15550142000' },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ call: { id: number; sid: string; status: string } }>().call;
}

/** The person on the call's line (lead or caller) hangs up (the sandbox's own endpoint). */
async function lineHangsUp(callId: number): Promise<void> {
  const res = await product.leadline.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/calls/${callId}/hangup`,
    headers: { authorization: `Bearer ${product.config.leadApiKey}` },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('the caller hangs up first', () => {
  it('while an agent is rung: the ring is cancelled and the call is missed, the caller hung up', async () => {
    const [agent1] = await loginInOrder('agent1');
    const call = await callIn('+15550107003');
    expect(call.status).toBe('ringing');
    const invite = await agent1.nextInvite();
    await lineHangsUp(call.id);
    await agent1.nextFrame(
      (f) => f.type === 'cancel' && f.payload.callsid === invite.callsid,
      'the cancel of the ring',
    );
    expect(await product.waitForCall(call.id)).toMatchObject({
      status: 'missed',
      reason: 'caller-hung-up',
    });
    // The agent is free again at once (they never took the call: no wrap-up).
    const next = await postLead();
    expect(next).toMatchObject({ status: 'ringing', agent_id: agent1.userId });
  });
});

describe('caller ID', () => {
  it('the lead sees the caller number the agent chose, else the account’s default', async () => {
    const [agent1] = await loginInOrder('agent1');
    const ids = await agent1.api<{ data: Array<{ id: number; name: string }> }>(
      'GET',
      '/api/v1/callerids',
    );
    const spring = ids.body.data.find((n) => n.name === 'Acme Solar spring campaign')!;
    const placed = await agent1.placeOutbound({
      fname: 'Cal',
      lname: 'Ler',
      phone_number: '+15550100091',
      caller_id: spring.id,
    });
    expect(await agent1.hears(TONES.lead, 1)).toBe(true);
    await agent1.hangup();
    await product.waitForCall(placed.response.call.id);
    // Done with the call (else the next lead would wait for the end of the wrap-up).
    await agent1.api('POST', '/api/v1/user/wrap-up/done');
    const lead = await postLead('+15550100092');
    await takeLeadCall(agent1, await agent1.nextInvite());
    await agent1.hangup();
    await product.waitForCall(lead.id);

    const log = await agent1.api<{ data: Array<{ call_id: number; to: string; from: string }> }>(
      'GET',
      '/api/v1/sandbox/calls',
    );
    expect(log.body.data.find((c) => c.call_id === placed.response.call.id)).toMatchObject({
      to: '+15550100091',
      from: '+15550142010',
    });
    expect(log.body.data.find((c) => c.call_id === lead.id)).toMatchObject({
      to: '+15550100092',
      from: '+15550142000',
    });
  });
});

describe('calls with more than two parties', () => {
  it('adding a busy number leaves the call as it was: the caller is still heard', async () => {
    const [agent1] = await loginInOrder('agent1');
    const inbound = await product.leadline.app.inject({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${product.config.leadApiKey}` },
      payload: { from: '+15550107002', to: '+15550142000' },
    });
    const { call } = inbound.json<{ call: { id: number; sid: string } }>();
    await agent1.accept(await agent1.nextInvite());
    expect(soundsLikeSpeech(await agent1.listen(3))).toBe(true);
    const added = await agent1.api<Record<string, unknown>>(
      'POST',
      '/api/v1/calls/conferencelead',
      {
        call_id: call.id,
        fname: 'Busy',
        lname: 'Line',
        phone_number: '+15550199001',
      },
    );
    expect(added.body).toMatchObject({
      success: false,
      outcome: 'busy',
      error: "The lead's phone is busy.",
      call: { id: call.id, lead: null },
    });
    expect(await product.callRow(call.id)).toMatchObject({ status: 'in-progress', leadId: null });
    expect(soundsLikeSpeech(await agent1.listen(3))).toBe(true);
  });

  it('an agent who leaves a three-party call leaves the other agent and the lead connected', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const call = await postLead();
    const invite = await agent1.nextInvite();
    await takeLeadCall(agent1, invite);
    const conference = await agent1.api('POST', '/api/v1/calls/conference', {
      user_id: agent2.userId,
    });
    expect(conference.body).toEqual({ success: true });
    const joining = await agent2.nextInvite();
    await agent2.accept(joining);
    // All three hear each other.
    await waitUntil(
      async () =>
        (await agent2.tonesHeard([TONES.lead, TONES.agent1], 1)).length === 2 ? true : undefined,
      'agent2 to hear the lead and agent1',
    );
    expect(await agent1.tonesHeard([TONES.lead, TONES.agent2], 1)).toEqual([
      TONES.lead,
      TONES.agent2,
    ]);
    // Agent1 leaves: agent2 and the lead go on.
    await agent1.hangup();
    await waitUntil(
      async () =>
        (await agent2.tonesHeard([TONES.lead, TONES.agent1], 1)).join() === String(TONES.lead)
          ? true
          : undefined,
      'agent2 to hear the lead only',
    );
    // Labelled a conference once the second agent joined (banner and history).
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: agent2.userId,
      type: 'conference',
    });
    const history = await agent2.api<{ data: Array<{ id: number; type: string }> }>(
      'GET',
      '/api/v1/mycalls?limit=5&page=1',
    );
    expect(history.body.data.find((r) => r.id === call.id)?.type).toBe('conference');
    const leftAt = Date.now();
    await agent2.hangup();
    const lead = await leadHeard(product, invite.callsid);
    const tail = between(lead.samples, lead.seconds - 1, lead.seconds, lead.sampleRateHz);
    expect(tonesIn(tail, [TONES.agent1, TONES.agent2], 0.1, lead.sampleRateHz)).toEqual([
      TONES.agent2,
    ]);
    expect(leftAt).toBeGreaterThan(0);
    expect(await product.waitForCall(call.id)).toMatchObject({ status: 'completed' });
  });
});

describe('the lead leaves a three-party call', () => {
  it('the call ends for both agents', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const call = await postLead();
    const invite = await agent1.nextInvite();
    await takeLeadCall(agent1, invite);
    await agent1.api('POST', '/api/v1/calls/conference', { user_id: agent2.userId });
    await agent2.accept(await agent2.nextInvite());
    await waitUntil(
      async () => ((await agent2.hears(TONES.lead, 1)) ? true : undefined),
      'agent2 to hear the lead',
    );
    await lineHangsUp(call.id);
    await Promise.all([agent1.waitForHangup(), agent2.waitForHangup()]);
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'completed' });
    expect(ended.seconds).toBeGreaterThanOrEqual(1);
    const open = await product.db.select().from(callUsers).where(eq(callUsers.callId, call.id));
    expect(open.filter((cu) => cu.outcome === 'accepted' && cu.leftAt === null)).toEqual([]);
  });
});

describe('transfers', () => {
  it('to a team: its agents are offered the call one at a time; the one who answers takes the lead, the agent who asked leaves', async () => {
    // Sales: agent1 and the supervisor. Agent2 (Support) asks to transfer to Sales.
    const [agent2, agent1, supervisor] = await loginInOrder('agent2', 'agent1', 'supervisor');
    const call = await postLead();
    const invite = await agent2.nextInvite();
    await takeLeadCall(agent2, invite);
    const teams = await agent2.api<{ data: Array<{ id: number; name: string }> }>(
      'GET',
      '/api/v1/teams',
    );
    const sales = teams.body.data.find((t) => t.name === 'Sales')!;
    const asked = await agent2.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      team_id: sales.id,
      call_user_id: invite.callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    // Agent1 (longer idle) first: they ignore it; the supervisor is offered it next, and takes it.
    const first = await agent1.nextInvite();
    expect(first.parameters.From).toMatch(/^client:\d+$/);
    await agent1.ignore(first);
    const second = await supervisor.nextInvite();
    await supervisor.accept(second);
    // The agent who asked is hung up; the lead talks to the supervisor.
    await agent2.waitForHangup();
    expect(await supervisor.hears(TONES.lead, 1)).toBe(true);
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: supervisor.userId,
    });
    expect(await presenceOf(agent2)).toBe('wrap_up');
    await supervisor.hangup();
    const lead = await leadHeard(product, invite.callsid);
    const tail = between(lead.samples, lead.seconds - 0.8, lead.seconds, lead.sampleRateHz);
    expect(tonesIn(tail, [TONES.agent2, TONES.supervisor], 0.1, lead.sampleRateHz)).toEqual([
      TONES.supervisor,
    ]);
  });

  it('the agent who asked hangs up while the transfer rings: the lead waits on hold, then talks to the target', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const call = await postLead();
    const invite = await agent1.nextInvite();
    await takeLeadCall(agent1, invite);
    await agent1.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent2.userId,
      call_user_id: invite.callUserId,
    });
    const offered = await agent2.nextInvite();
    await agent1.hangup();
    await waitUntil(
      async () => ((await product.callRow(call.id))?.held ? true : undefined),
      'the lead to be put on hold',
    );
    expect(await product.callRow(call.id)).toMatchObject({ status: 'in-progress' });
    await agent2.accept(offered);
    expect(await agent2.hears(TONES.lead, 1)).toBe(true);
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      held: false,
      userId: agent2.userId,
    });
  });

  it('a transfer its target ignores leaves the lead with the agent who asked', async () => {
    const [agent1, agent2] = await loginInOrder('agent1', 'agent2');
    const call = await postLead();
    const invite = await agent1.nextInvite();
    await takeLeadCall(agent1, invite);
    const asked = await agent1.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent2.userId,
      call_user_id: invite.callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    const offered = await agent2.nextInvite();
    expect((await agent2.ignore(offered)).status).toBe(200);
    await product.flows.idle();
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: agent1.userId,
      held: false,
    });
    expect(await agent1.hears(TONES.lead, 1)).toBe(true);
  });

  it("Auto Accept covers a transfer and a conference invitation: each is rung with the target's setting", async () => {
    const [agent2, agent1, supervisor] = await loginInOrder('agent2', 'agent1', 'supervisor');
    const call = await postLead();
    const invite = await agent2.nextInvite();
    await takeLeadCall(agent2, invite);
    const callUserOf = async (agent: AgentClient, offered: Invite) =>
      (await agent.api<CallUserResponse>('GET', `/api/v1/callusers/${offered.callUserId}`)).body;

    // The supervisor's Auto Accept is off: a conference invitation waits for them.
    await agent2.api('POST', '/api/v1/calls/conference', { user_id: supervisor.userId });
    const invited = await supervisor.nextInvite();
    expect(await callUserOf(supervisor, invited)).toMatchObject({
      type: 'conference',
      autoaccept: false,
    });
    await supervisor.ignore(invited);
    await product.flows.idle();

    // Agent1's is on: a transfer and a conference invitation are answered without a click.
    const set = await agent1.api('PUT', '/api/v1/user/settings', { autoaccept: true });
    expect(set.body).toEqual({ success: true, autoaccept: true });
    const asked = await agent2.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent1.userId,
      call_user_id: invite.callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    const transferred = await agent1.nextInvite();
    expect(await callUserOf(agent1, transferred)).toMatchObject({
      type: 'transfer',
      autoaccept: true,
    });
    await agent1.ignore(transferred);
    await product.flows.idle();
    await agent2.api('POST', '/api/v1/calls/conference', { user_id: agent1.userId });
    const conference = await agent1.nextInvite();
    expect(await callUserOf(agent1, conference)).toMatchObject({
      type: 'conference',
      autoaccept: true,
    });
    await agent1.ignore(conference);
  });

  it('listen and whisper calls cannot transfer', async () => {
    const [agent1, supervisor, agent2] = await loginInOrder('agent1', 'supervisor', 'agent2');
    const call = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    await supervisor.api('POST', `/api/v1/calls/${call.id}/listen`);
    const listening = await supervisor.nextInvite();
    await supervisor.accept(listening);
    const refused = await supervisor.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent2.userId,
      call_user_id: listening.callUserId,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      success: false,
      error: 'Listen and whisper calls cannot transfer.',
    });
    await noInvite(agent2);
  });
});

describe('supervision', () => {
  it('a supervisor listens, whispers and barges on one call: each step stored and shown in the history of who may supervise, not of the agent', async () => {
    const [agent1, supervisor] = await loginInOrder('agent1', 'supervisor');
    const call = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    expect((await supervisor.api('POST', `/api/v1/calls/${call.id}/listen`)).status).toBe(200);
    await supervisor.accept(await supervisor.nextInvite());
    for (const mode of ['whisper', 'whisper', 'barge']) {
      expect((await supervisor.api('POST', `/api/v1/calls/${call.id}/${mode}`)).status).toBe(200);
    }
    // The supervisor joined once and barged: the agent hears them with the lead.
    await waitUntil(
      async () =>
        (await agent1.tonesHeard([TONES.lead, TONES.supervisor], 1)).length === 2
          ? true
          : undefined,
      'the agent to hear the barging supervisor and the lead',
    );
    await supervisor.hangup();
    // Leaving disturbs nobody: the agent hears the lead, and the supervisor no more.
    await waitUntil(
      async () =>
        (await agent1.tonesHeard([TONES.lead, TONES.supervisor], 1)).join() === String(TONES.lead)
          ? true
          : undefined,
      'the agent to hear only the lead',
    );
    await agent1.hangup();
    await product.waitForCall(call.id);

    type History = { data: Array<{ id: number; supervision?: unknown }> };
    const seen = await supervisor.api<History>('GET', '/api/v1/mycalls?limit=10&page=1');
    const row = seen.body.data.find((r) => r.id === call.id);
    // A repeated whisper changes nothing and is not stored twice.
    const entries = (row?.supervision ?? []) as Array<{ name: string; role: string; at: string }>;
    expect(entries.map((e) => `${e.name}: ${e.role}`)).toEqual([
      'Sam Okafor: listen',
      'Sam Okafor: whisper',
      'Sam Okafor: barge',
    ]);
    // When, in order.
    const times = entries.map((e) => Date.parse(e.at));
    expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!))).toBe(true);
    const own = await agent1.api<History>('GET', '/api/v1/mycalls?limit=10&page=1');
    const agentRow = own.body.data.find((r) => r.id === call.id);
    expect(agentRow).toBeDefined();
    expect(agentRow).not.toHaveProperty('supervision');
  });
});

describe('SMS', () => {
  it('a follow-up text lands in the sandbox outbox; a number that cannot take texts is refused', async () => {
    const [agent1] = await loginInOrder('agent1');
    const call = await postLead();
    await takeLeadCall(agent1, await agent1.nextInvite());
    await agent1.hangup();
    await product.waitForCall(call.id);
    const sent = await agent1.api('POST', `/apps/webrtc/${call.id}/sms`, {
      smsbody: "Sorry we couldn't reach you!",
    });
    expect(sent.body).toEqual({ success: true });
    const outbox = await agent1.api<{ data: Array<Record<string, unknown>> }>(
      'GET',
      '/api/v1/sandbox/sms',
    );
    expect(outbox.body.data[0]).toMatchObject({
      call_id: call.id,
      to: call.phone,
      from: '+15550142000',
      body: "Sorry we couldn't reach you!",
      status: 'sent',
    });
    // A call to a number outside the sandbox: the sender refuses, the console is told why.
    await product.db
      .update(calls)
      .set({ phoneNumber: '+442071234567' })
      .where(eq(calls.id, call.id));
    const refused = await agent1.api('POST', `/apps/webrtc/${call.id}/sms`, { smsbody: 'Hi' });
    expect(refused.body).toEqual({
      success: false,
      error: '+442071234567 cannot receive text messages.',
    });
  });
});
