/**
 * Floor changes (issue 39) through the flows on the fake telephony: each move of a call on the
 * floor (queued, rung, a ring ended, answered, ended) is announced as a `floor.changed` event,
 * once it is stored, so a floor read on the event (`GET /api/v1/floor`, as a supervisor's console
 * reads it) already shows it. On PGlite and, with `DATABASE_URL`, PostgreSQL.
 */
import { eq } from 'drizzle-orm';
import type { Floor, FloorChangeReason } from '@leadline/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calls } from '../db/schema';
import { ManualClock } from '../test-support/manual-clock';
import {
  login,
  nothingLive,
  startTestApp,
  TEST_API_KEY,
  type Agent,
  type TestApp,
} from '../test-support/test-app';

/** A `floor.changed` event and the floor a console read on it. */
interface Seen {
  reason: FloorChangeReason;
  callId: number;
  accountId: number;
  floor: Floor | undefined;
}

let t: TestApp;
let clock: ManualClock;
let agent: Agent;
let supervisor: Agent;
let seen: Seen[] = [];
const reads: Array<Promise<void>> = [];

beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock });
  agent = await login(t.app);
  supervisor = await login(t.app, 'supervisor@example.com');
  t.events.subscribe((event) => {
    if (event.type !== 'floor.changed') return;
    const entry: Seen = { ...event, floor: undefined };
    seen.push(entry);
    // What a console does on the event: read the floor.
    reads.push(
      t.app
        .inject({ method: 'GET', url: '/api/v1/floor', headers: { cookie: supervisor.cookie } })
        .then((res) => {
          entry.floor = res.json<Floor>();
        }),
    );
  });
});
afterAll(() => t.close());
beforeEach(async () => {
  // Nobody is online until a test says so; no call is live, nothing rung.
  await nothingLive(t);
  await settled();
});

/**
 * Waits for the flows and the reads the events started; resolves with the events since the last
 * call, each with the floor read on it.
 */
async function settled(): Promise<Seen[]> {
  await t.flows.idle();
  while (reads.length > 0) await Promise.all(reads.splice(0));
  const step = seen;
  seen = [];
  return step;
}

const online = async (userId: number) => {
  t.telephony.emit({ type: 'device.online', identity: String(userId) });
};

async function postLead(fname: string, phone: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
    payload: { fname, phone_number: phone },
  });
  expect(res.statusCode).toBe(201);
  const { id } = res.json<{ call: { id: number } }>().call;
  return { id, sid: await sidOf(id) };
}

async function sidOf(callId: number): Promise<string> {
  const [row] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
  return row!.sid;
}

const reasons = (step: Seen[]) => step.map((e) => [e.reason, e.callId]);
const inQueue = (floor: Floor | undefined, callId: number) =>
  floor!.queue.some((entry) => entry.call_id === callId);
const agentOn = (floor: Floor | undefined, userId: number) =>
  floor!.agents.find((row) => row.id === userId);

describe('floor.changed', () => {
  it('a lead joins the queue, leaves it when an agent is rung, is answered and ends', async () => {
    const lead = await postLead('Queued', '+15550100061');
    const queued = await settled();
    expect(reasons(queued)).toEqual([['queued', lead.id]]);
    expect(queued[0]).toMatchObject({ accountId: agent.accountId });
    expect(inQueue(queued[0]!.floor, lead.id)).toBe(true);

    // The agent's phone registers: the waiting lead is offered to them.
    await online(agent.userId);
    const rung = await settled();
    expect(reasons(rung)).toEqual([['ringing', lead.id]]);
    expect(inQueue(rung[0]!.floor, lead.id)).toBe(false);
    expect(agentOn(rung[0]!.floor, agent.userId)).toMatchObject({
      status: 'ringing',
      call: { id: lead.id },
    });

    t.telephony.emit({ type: 'agent.answered', callSid: lead.sid, identity: String(agent.userId) });
    const answered = await settled();
    expect(reasons(answered)).toEqual([['answered', lead.id]]);
    expect(agentOn(answered[0]!.floor, agent.userId)).toMatchObject({
      status: 'on_call',
      call: { id: lead.id },
    });
    const answeredAt = async () =>
      (await t.database.db.select().from(calls).where(eq(calls.id, lead.id)))[0]!.answeredAt;
    expect(await answeredAt()).toBeNull();

    // The agent took it, so the lead is dialled; its phone answering starts the talk (the
    // call's answered_at, what the floor counts as answered), said at once.
    const dial = t.telephony.commands.find(
      (command) => command.op === 'dial' && command.callSid === lead.sid,
    );
    expect(dial).toBeDefined();
    t.telephony.emit({
      type: 'phone.answered',
      callSid: lead.sid,
      participantId: (dial as { participantId: string }).participantId,
    });
    const talking = await settled();
    expect(reasons(talking)).toEqual([['answered', lead.id]]);
    expect(await answeredAt()).not.toBeNull();

    t.telephony.emit({
      type: 'agent.left',
      callSid: lead.sid,
      identity: String(agent.userId),
      reason: 'hangup',
    });
    const ended = await settled();
    expect(reasons(ended)).toEqual([['ended', lead.id]]);
    expect(agentOn(ended[0]!.floor, agent.userId)).toMatchObject({ status: 'wrap_up', call: null });
  });

  it('a ring that ends unanswered, then the call missed', async () => {
    await online(agent.userId);
    await settled();
    const lead = await postLead('Refused', '+15550100062');
    const rung = await settled();
    expect(reasons(rung)).toEqual([['ringing', lead.id]]);
    expect(agentOn(rung[0]!.floor, agent.userId)).toMatchObject({ status: 'ringing' });

    t.telephony.emit({ type: 'agent.rejected', callSid: lead.sid, identity: String(agent.userId) });
    const refused = await settled();
    // Nobody else to offer it to: it ends (missed), and is nowhere on the floor.
    expect(reasons(refused)).toEqual([
      ['ring-ended', lead.id],
      ['ended', lead.id],
    ]);
    const last = refused.at(-1)!.floor;
    expect(inQueue(last, lead.id)).toBe(false);
    expect(agentOn(last, agent.userId)).toMatchObject({ status: 'available', call: null });
  });

  it('a waiting lead whose wait runs out leaves the queue', async () => {
    const lead = await postLead('Expires', '+15550100063');
    expect(reasons(await settled())).toEqual([['queued', lead.id]]);
    // The profile's queue timeout (3600 s by default) passes.
    clock.advance(3_600_000);
    await t.flows.sweepQueue();
    const expired = await settled();
    expect(reasons(expired)).toEqual([['ended', lead.id]]);
    expect(inQueue(expired[0]!.floor, lead.id)).toBe(false);
  });

  it('an inbound caller who hangs up while the agent is rung (abandoned)', async () => {
    await online(agent.userId);
    await settled();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: { from: '+15550107002', to: '+15550142000' },
    });
    const { id } = res.json<{ call: { id: number; status: string } }>().call;
    expect(reasons(await settled())).toEqual([['ringing', id]]);
    const sid = await sidOf(id);
    t.telephony.emit({
      type: 'phone.left',
      callSid: sid,
      participantId: t.telephony.lastPhone(sid),
    });
    const abandoned = await settled();
    expect(reasons(abandoned)).toEqual([['ended', id]]);
    expect(agentOn(abandoned[0]!.floor, agent.userId)).toMatchObject({ status: 'available' });
  });
});
