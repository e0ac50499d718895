/**
 * Recovery and the sweeper reconciling the live calls with Twilio (issue 38, item 2;
 * `calls/recovery.ts`, `twilio-reconcile.ts`): the production `twilio` client asks the REST
 * stand-in on loopback for the conferences (`GET …/Conferences.json?FriendlyName=<call sid>&
 * Status=…`), on a real database (PGlite, or PostgreSQL with `DATABASE_URL`).
 *
 * Start-up recovery: a call no instance stamped lately is kept while Twilio carries its
 * conference and closed (at Twilio's end) when it does not; a recently stamped call is left alone
 * without asking; a Twilio error leaves every call as it is. The sweeper (the flows, with the
 * carrier): a call in progress Twilio no longer carries is closed on the first sweep at least the
 * grace after the one that found it gone, and its agent wraps up; two instances sweeping close
 * it once; a Twilio error closes nothing.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallFlows } from '../calls/call-flows';
import { newCallSid, type CallRow } from '../calls/calls-repo';
import { recoverInterruptedCalls, STALE_HEARTBEATS } from '../calls/recovery';
import type { Database } from '../db/database';
import { accounts, callUsers, calls, users } from '../db/schema';
import { seedDemo } from '../db/seed';
import { EventBus } from '../events/event-bus';
import { FakeTelephony } from '../telephony/fake-telephony';
import { ManualClock } from '../test-support/manual-clock';
import { openTestDatabase } from '../test-support/test-database';
import {
  standInClient,
  STAND_IN_ACCOUNT_SID,
  TwilioApiStandIn,
} from '../test-support/twilio-api-stand-in';
import { HEARTBEAT_MS } from '../calls/queue-scheduler';
import { ONE_BY_ONE_MAX, twilioCallCarrier } from './twilio-reconcile';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const STALE_AFTER_MS = STALE_HEARTBEATS * HEARTBEAT_MS;
const CONFERENCES_PATH = `/2010-04-01/Accounts/${STAND_IN_ACCOUNT_SID}/Conferences.json`;

let database: Database;
let standIn: TwilioApiStandIn;
let agentIds: number[];

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemo(database.db);
  // Room for the calls these tests place (the dial guard's limits are tested apart).
  await database.db.update(accounts).set({
    policy: {
      calls_per_minute_per_agent: 10_000,
      calls_per_minute_per_account: 10_000,
      sms_per_hour_per_agent: 10_000,
      sms_per_hour_per_account: 10_000,
    },
  });
  // The demo account's people: agent1 and agent2 first (they may place calls), then the others.
  const rows = await database.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.accountId, 1))
    .orderBy(users.id);
  agentIds = rows.map((row) => row.id);
  expect(rows.slice(0, 2).map((row) => row.email)).toEqual([
    'agent1@example.com',
    'agent2@example.com',
  ]);
  standIn = await TwilioApiStandIn.start();
}, 60_000);

afterAll(async () => {
  await standIn?.close();
  await database?.close();
});

beforeEach(async () => {
  standIn.reset();
  // Every test starts with no live call, nobody on one or rung, nobody wrapping up.
  await database.db.update(calls).set({ status: 'completed' });
  await database.db
    .update(callUsers)
    .set({ outcome: 'canceled' })
    .where(eq(callUsers.outcome, 'ringing'));
  await database.db
    .update(callUsers)
    .set({ leftAt: new Date() })
    .where(and(eq(callUsers.outcome, 'accepted'), isNull(callUsers.leftAt)));
  await database.db.update(users).set({ wrapUpUntil: null });
});

/** A call as a crash left it: live, answered by `userId`, last stamped at `lastSeenAt`. */
async function leftCall(values: {
  status?: 'in-progress' | 'ringing';
  userId: number;
  answeredAt: Date;
  lastSeenAt: Date;
}): Promise<CallRow> {
  const status = values.status ?? 'in-progress';
  const [call] = await database.db
    .insert(calls)
    .values({
      accountId: 1,
      sid: newCallSid(),
      status,
      source: 'retry',
      userId: values.userId,
      phoneNumber: '+15550100077',
      answeredAt: status === 'in-progress' ? values.answeredAt : null,
      lastSeenAt: values.lastSeenAt,
      createdAt: values.answeredAt,
    })
    .returning();
  await database.db.insert(callUsers).values({
    callId: call!.id,
    userId: values.userId,
    type: 'lead',
    outcome: status === 'in-progress' ? 'accepted' : 'ringing',
    answeredAt: status === 'in-progress' ? values.answeredAt : null,
  });
  return call!;
}

const rowOf = async (call: CallRow) =>
  (await database.db.select().from(calls).where(eq(calls.id, call.id)))[0]!;
const peopleOf = (call: CallRow) =>
  database.db.select().from(callUsers).where(eq(callUsers.callId, call.id));
const conferenceRequests = () =>
  standIn.requests.filter((r) => r.method === 'GET' && r.path === CONFERENCES_PATH);

describe('start-up recovery with Twilio', () => {
  const now = new Date();
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
  const carrier = () => twilioCallCarrier(standInClient(standIn));

  it('keeps the calls Twilio carries (in progress, or starting) and closes one it does not, at Twilio’s end', async () => {
    const talking = await leftCall({
      userId: agentIds[0]!,
      answeredAt: minutesAgo(10),
      lastSeenAt: minutesAgo(5),
    });
    const ringing = await leftCall({
      status: 'ringing',
      userId: agentIds[1]!,
      answeredAt: minutesAgo(6),
      lastSeenAt: minutesAgo(5),
    });
    const over = await leftCall({
      userId: agentIds[2]!,
      answeredAt: minutesAgo(10),
      lastSeenAt: minutesAgo(5),
    });
    standIn.setConference(talking.sid, 'in-progress');
    standIn.setConference(ringing.sid, 'init');
    // Twilio ended it while no instance ran: 2 minutes after the last stamp.
    standIn.setConference(over.sid, 'completed', minutesAgo(3));

    const report = await recoverInterruptedCalls(database.db, now, {
      carrier: carrier(),
      staleAfterMs: STALE_AFTER_MS,
      log,
    });

    expect(report).toMatchObject({
      kept: [talking.id, ringing.id],
      calls: [over.id],
      recent: [],
      unverified: [],
    });
    expect(await rowOf(talking)).toEqual(talking);
    expect(await rowOf(ringing)).toEqual(ringing);
    expect(await peopleOf(talking)).toEqual([
      expect.objectContaining({ outcome: 'accepted', leftAt: null }),
    ]);
    expect(await peopleOf(ringing)).toEqual([expect.objectContaining({ outcome: 'ringing' })]);
    // Twilio's end (RFC 2822 dates: whole seconds), not the last stamp.
    const twilioEnd = new Date(Math.floor(minutesAgo(3).getTime() / 1000) * 1000);
    expect(await rowOf(over)).toMatchObject({
      status: 'completed',
      reason: 'server-restart',
      endedAt: twilioEnd,
      seconds: Math.round((twilioEnd.getTime() - minutesAgo(10).getTime()) / 1000),
    });
    expect(await peopleOf(over)).toEqual([
      expect.objectContaining({ outcome: 'accepted', leftAt: twilioEnd }),
    ]);
    // Asked as the `twilio` library asks: by FriendlyName, one status at a time.
    expect(conferenceRequests().map((r) => r.query)).toContainEqual({
      FriendlyName: talking.sid,
      Status: 'init',
      PageSize: '1',
    });
    expect(conferenceRequests().map((r) => r.query)).toContainEqual({
      FriendlyName: talking.sid,
      Status: 'in-progress',
      PageSize: '1',
    });
  });

  it('leaves a call an instance stamped lately alone, without asking Twilio', async () => {
    const recent = await leftCall({
      userId: agentIds[0]!,
      answeredAt: minutesAgo(10),
      lastSeenAt: new Date(now.getTime() - HEARTBEAT_MS),
    });
    const report = await recoverInterruptedCalls(database.db, now, {
      carrier: carrier(),
      staleAfterMs: STALE_AFTER_MS,
      log,
    });
    expect(report).toMatchObject({ recent: [recent.id], calls: [], kept: [] });
    expect(await rowOf(recent)).toEqual(recent);
    expect(standIn.requests).toEqual([]);
  });

  it('leaves every call as it is when Twilio answers with an error', async () => {
    const first = await leftCall({
      userId: agentIds[0]!,
      answeredAt: minutesAgo(10),
      lastSeenAt: minutesAgo(5),
    });
    const second = await leftCall({
      userId: agentIds[1]!,
      answeredAt: minutesAgo(10),
      lastSeenAt: minutesAgo(5),
    });
    standIn.failNext('/Conferences.json', {
      status: 503,
      code: 20503,
      message: 'Service unavailable',
    });
    const report = await recoverInterruptedCalls(database.db, now, {
      carrier: carrier(),
      staleAfterMs: STALE_AFTER_MS,
      log,
    });
    expect(report).toMatchObject({ calls: [], unverified: [first.id, second.id] });
    expect(await rowOf(first)).toEqual(first);
    expect(await rowOf(second)).toEqual(second);
    expect(await peopleOf(first)).toEqual([
      expect.objectContaining({ outcome: 'accepted', leftAt: null }),
    ]);
  });

  it('asks about many calls with one list of each status, paged as Twilio pages', async () => {
    const many: CallRow[] = [];
    for (let i = 0; i <= ONE_BY_ONE_MAX; i++) {
      many.push(
        await leftCall({
          userId: agentIds[i % agentIds.length]!,
          answeredAt: minutesAgo(10),
          lastSeenAt: minutesAgo(5),
        }),
      );
    }
    const carried = many.filter((_, i) => i % 2 === 0);
    for (const call of carried) standIn.setConference(call.sid, 'in-progress');
    const report = await recoverInterruptedCalls(database.db, now, {
      carrier: carrier(),
      staleAfterMs: STALE_AFTER_MS,
      log,
    });
    expect(report.kept).toEqual(carried.map((call) => call.id));
    expect(report.calls).toEqual(many.filter((_, i) => i % 2 === 1).map((call) => call.id));
    const lists = conferenceRequests().filter((r) => r.query?.FriendlyName === undefined);
    expect(lists.map((r) => r.query?.Status)).toEqual(['init', 'in-progress']);
    // The stand-in's pages as the `twilio` library follows them.
    const paged = await standInClient(standIn).conferences.list({
      status: 'in-progress',
      pageSize: 2,
    });
    const listed = new Set(paged.map((c) => c.friendlyName));
    expect(many.filter((call) => listed.has(call.sid))).toEqual(carried);
  });

  it('without a carrier (the embedded engine) closes every live call, as before', async () => {
    const recent = await leftCall({
      userId: agentIds[0]!,
      answeredAt: minutesAgo(1),
      lastSeenAt: new Date(now.getTime() - 1000),
    });
    const report = await recoverInterruptedCalls(database.db, now);
    expect(report.calls).toEqual([recent.id]);
    expect(await rowOf(recent)).toMatchObject({ status: 'completed', reason: 'server-restart' });
    expect(standIn.requests).toEqual([]);
  });
});

describe('the sweeper', () => {
  const GRACE_MS = 30_000;
  let clock: ManualClock;
  let started: CallFlows[] = [];

  /** An instance's flows with Twilio's carrier (the calls themselves played with a fake). */
  async function instance(): Promise<{ flows: CallFlows; telephony: FakeTelephony }> {
    const telephony = new FakeTelephony();
    const flows = new CallFlows({
      db: database.db,
      telephony,
      log,
      ringTimeoutMs: 30_000,
      events: new EventBus(),
      clock,
      carrier: twilioCallCarrier(standInClient(standIn)),
      // Sweeps are run by the test.
      carrierSweepMs: 3_600_000,
      carrierGraceMs: GRACE_MS,
    });
    await flows.start();
    started.push(flows);
    return { flows, telephony };
  }

  /** Agent `userId` takes a retry call to a lead who answers: a call in progress. */
  async function talking(
    flows: CallFlows,
    telephony: FakeTelephony,
    userId: number,
    phone: string,
  ): Promise<CallRow> {
    const identity = String(userId);
    telephony.emit({ type: 'device.online', identity });
    await flows.idle();
    const [user] = await database.db.select().from(users).where(eq(users.id, userId));
    const { call } = await flows.retry(user!, { fname: 'Lee', lname: 'Lead', phone_number: phone });
    telephony.emit({ type: 'agent.answered', callSid: call.sid, identity });
    await flows.idle();
    telephony.emit({
      type: 'phone.answered',
      callSid: call.sid,
      participantId: telephony.lastPhone(call.sid),
    });
    await flows.idle();
    const row = await rowOf(call);
    expect(row.status).toBe('in-progress');
    return row;
  }

  beforeEach(() => {
    clock = new ManualClock(Date.now());
  });

  afterAll(() => {
    for (const flows of started) flows.stop();
    started = [];
  });

  it('closes a call in progress Twilio no longer carries once the grace has passed, and keeps one it carries', async () => {
    const { flows, telephony } = await instance();
    const gone = await talking(flows, telephony, agentIds[0]!, '+15550100081');
    const carried = await talking(flows, telephony, agentIds[1]!, '+15550100082');
    standIn.setConference(carried.sid, 'in-progress');

    const first = await flows.reconcileWithCarrier();
    expect(first).toMatchObject({ closed: [], pending: [gone.id], kept: [carried.id] });
    expect((await rowOf(gone)).status).toBe('in-progress');
    const foundGoneAt = clock.now();

    clock.advance(GRACE_MS - 1);
    expect(await flows.reconcileWithCarrier()).toMatchObject({ closed: [], pending: [gone.id] });

    clock.advance(1);
    const second = await flows.reconcileWithCarrier();
    expect(second).toMatchObject({ closed: [gone.id], kept: [carried.id] });
    // No end from Twilio: it ended before the sweep that found it gone.
    expect(await rowOf(gone)).toMatchObject({
      status: 'completed',
      reason: 'server-restart',
      endedAt: foundGoneAt,
    });
    expect(await peopleOf(gone)).toEqual([
      expect.objectContaining({ outcome: 'accepted', leftAt: foundGoneAt }),
    ]);
    // Its agent wraps up, as after any call; the other is still on theirs.
    const [agent] = await database.db.select().from(users).where(eq(users.id, agentIds[0]!));
    expect(agent!.wrapUpUntil).not.toBeNull();
    expect((await rowOf(carried)).status).toBe('in-progress');
  });

  it('two instances sweeping close the call once', async () => {
    const a = await instance();
    const b = await instance();
    const gone = await talking(a.flows, a.telephony, agentIds[0]!, '+15550100083');
    await a.flows.reconcileWithCarrier();
    await b.flows.reconcileWithCarrier();
    clock.advance(GRACE_MS);
    const reports = await Promise.all([
      a.flows.reconcileWithCarrier(),
      b.flows.reconcileWithCarrier(),
    ]);
    expect(reports.flatMap((r) => r.closed)).toEqual([gone.id]);
    expect(await rowOf(gone)).toMatchObject({ status: 'completed' });
  });

  it('closes nothing while Twilio answers with an error, and goes on once it answers', async () => {
    const { flows, telephony } = await instance();
    const gone = await talking(flows, telephony, agentIds[0]!, '+15550100084');
    await flows.reconcileWithCarrier();
    clock.advance(GRACE_MS);
    standIn.failNext('/Conferences.json', { status: 500, code: 20500, message: 'Internal' });
    expect(await flows.reconcileWithCarrier()).toMatchObject({
      closed: [],
      unverified: [gone.id],
    });
    expect((await rowOf(gone)).status).toBe('in-progress');
    expect(await flows.reconcileWithCarrier()).toMatchObject({ closed: [gone.id] });
  });
});
