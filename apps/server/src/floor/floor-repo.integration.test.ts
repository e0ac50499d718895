/**
 * The floor's figures from a fixed call log, the expected values worked out by hand (issue 39):
 * an account in New York (UTC−4 on 10 March 2026), its day from 04:00 UTC, a 20 s service
 * level. PGlite here; PostgreSQL in `npm test`'s PostgreSQL pass (`DATABASE_URL`).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { accounts, callUsers, calls, leads, profiles, teams, users } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { floorAgents, floorFigures, floorQueue } from './floor-repo';

/** A UTC time on 10 March 2026 (`hh:mm:ss`), or another day's with a full ISO string. */
const at = (time: string): Date => new Date(time.includes('T') ? time : `2026-03-10T${time}Z`);
/** 14:00 in New York. */
const NOW = at('18:00:00');

let database: Database;
let accountId: number;
let otherAccountId: number;
const userIds: Record<string, number> = {};
const callIds: Record<string, number> = {};

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  [{ id: accountId }] = (await db
    .insert(accounts)
    .values({ name: 'Floor', timeZone: 'America/New_York' })
    .returning({ id: accounts.id })) as [{ id: number }];
  [{ id: otherAccountId }] = (await db
    .insert(accounts)
    .values({ name: 'Other' })
    .returning({ id: accounts.id })) as [{ id: number }];
  const [team] = await db.insert(teams).values({ accountId, name: 'Closers' }).returning();
  const [profile] = await db
    .insert(profiles)
    .values({ accountId, name: 'Solar', teamId: team!.id })
    .returning();

  const person = async (name: string, values: Partial<typeof users.$inferInsert> = {}) => {
    const [row] = await db
      .insert(users)
      .values({
        accountId,
        email: `${name.toLowerCase()}@floor.example`,
        passwordHash: 'x',
        fullName: name,
        ...values,
      })
      .returning({ id: users.id });
    userIds[name] = row!.id;
  };
  // On a call since 17:58:00, ringing since 17:59:30, wrapping up after a call ended 17:55:05.
  await person('Ann', { isOnlineApp: true });
  await person('Bob', { isOnlineApp: true });
  await person('Cat', { isOnlineApp: true, wrapUpUntil: at('18:00:30') });
  // Away since 17:30 (chose it then); offline since 16:00; available since its wrap-up ran out
  // at 17:45 (after a call that ended 17:44 and a choice made at 17:00).
  await person('Dan', { isOnlineApp: true, isAvailable: false, presenceChangedAt: at('17:30:00') });
  await person('Eve', { isOnlineApp: false, presenceChangedAt: at('16:00:00') });
  await person('Fay', {
    isOnlineApp: true,
    presenceChangedAt: at('17:00:00'),
    idleSince: at('17:44:00'),
    wrapUpUntil: at('17:45:00'),
  });
  await person('Gus', { active: false, isOnlineApp: true });

  const lead = async (fname: string) => {
    const [row] = await db
      .insert(leads)
      .values({ accountId, fname, lname: 'Lead', phoneNumber: '+15550100001' })
      .returning({ id: leads.id });
    return row!.id;
  };
  let sid = 0;
  const call = async (name: string, values: Partial<typeof calls.$inferInsert>) => {
    const [row] = await db
      .insert(calls)
      .values({
        accountId,
        sid: `CA${++sid}`,
        source: 'web',
        direction: 'inbound',
        status: 'completed',
        profileId: profile!.id,
        leadId: await lead(name),
        ...values,
      })
      .returning({ id: calls.id });
    callIds[name] = row!.id;
  };
  // 09:00 New York: answered after 10 s, 300 s of talk, 30 s of wrap-up.
  await call('A', {
    createdAt: at('13:00:00'),
    answeredAt: at('13:00:10'),
    endedAt: at('13:05:10'),
    seconds: 300,
    wrapUpEndedAt: at('13:05:40'),
    userId: userIds.Ann!,
  });
  // 09:05: answered after 30 s (past the service level), 120 s of talk, 60 s of wrap-up.
  await call('B', {
    createdAt: at('13:05:00'),
    answeredAt: at('13:05:30'),
    endedAt: at('13:07:30'),
    seconds: 120,
    wrapUpEndedAt: at('13:08:30'),
    userId: userIds.Bob!,
  });
  // 09:10: nobody answered.
  await call('C', {
    createdAt: at('13:10:00'),
    endedAt: at('13:11:00'),
    status: 'missed',
    reason: 'no-agent-answered',
  });
  // 09:20: the caller gave up while it rang.
  await call('D', {
    createdAt: at('13:20:00'),
    endedAt: at('13:20:40'),
    status: 'missed',
    reason: 'caller-hung-up',
  });
  // 10:00, an inbound call: answered after exactly 20 s, 600 s of talk, no wrap-up recorded.
  await call('E', {
    source: 'inbound',
    createdAt: at('14:00:00'),
    answeredAt: at('14:00:20'),
    endedAt: at('14:10:20'),
    seconds: 600,
    userId: userIds.Ann!,
  });
  // 13:50: answered after 5 s, 300 s of talk; Cat's wrap-up runs until 18:00:30.
  await call('H', {
    createdAt: at('17:50:00'),
    answeredAt: at('17:50:05'),
    endedAt: at('17:55:05'),
    seconds: 300,
    wrapUpEndedAt: at('18:00:30'),
    userId: userIds.Cat!,
  });
  await db.update(users).set({ wrapUpCallId: callIds.H! }).where(eq(users.id, userIds.Cat!));
  // 13:59 and 13:59:50: waiting in the queue (60 s and 10 s by now).
  await call('G', {
    createdAt: at('17:59:00'),
    waitingSince: at('17:59:00'),
    status: 'queued',
    reason: 'all-agents-busy',
  });
  await call('F', {
    createdAt: at('17:59:50'),
    waitingSince: at('17:59:50'),
    status: 'queued',
    reason: 'all-agents-busy',
  });
  // An agent's own outbound call being placed: queued too, but not waiting for an agent.
  await call('Dialling', {
    createdAt: at('17:59:40'),
    status: 'queued',
    source: 'outbound',
    direction: 'outbound',
  });
  // Ann's live call (13:58 New York) and Bob's ring (13:59:30).
  await call('Live', {
    createdAt: at('17:57:50'),
    answeredAt: at('17:58:00'),
    status: 'in-progress',
    userId: userIds.Ann!,
  });
  await db.insert(callUsers).values({
    callId: callIds.Live!,
    userId: userIds.Ann!,
    outcome: 'accepted',
    answeredAt: at('17:58:00'),
    createdAt: at('17:57:50'),
  });
  await call('Rung', { createdAt: at('17:59:30'), status: 'ringing' });
  await db.insert(callUsers).values({
    callId: callIds.Rung!,
    userId: userIds.Bob!,
    outcome: 'ringing',
    createdAt: at('17:59:30'),
    expiresAt: at('18:00:00'),
  });
  // Not offered to the floor: an agent's own outbound call; yesterday 23:59 in New York;
  // another account's call.
  await call('Outbound', {
    source: 'outbound',
    direction: 'outbound',
    createdAt: at('15:00:00'),
    answeredAt: at('15:00:05'),
    endedAt: at('15:01:05'),
    seconds: 60,
  });
  await call('Yesterday', {
    createdAt: at('2026-03-10T03:59:00Z'),
    answeredAt: at('2026-03-10T03:59:02Z'),
    endedAt: at('2026-03-10T04:01:02Z'),
    seconds: 120,
  });
  await db.insert(calls).values({
    accountId: otherAccountId,
    sid: 'CA-other',
    source: 'web',
    status: 'missed',
    createdAt: at('15:00:00'),
    endedAt: at('15:01:00'),
  });
});

afterAll(async () => {
  await database?.close();
});

describe('today’s figures, worked out by hand', () => {
  it('counts the offered calls of the account’s day in its zone, and works out each figure', async () => {
    const figures = await floorFigures(database.db, accountId, NOW);
    expect(figures).not.toBeNull();
    expect(figures!.time_zone).toBe('America/New_York');
    expect(figures!.date).toBe('2026-03-10');
    // Offered: A B C D E H G F and the live and rung calls (the outbound call, yesterday's
    // 23:59 and the other account's are not).
    expect(figures!.kpis).toEqual({
      offered: 10,
      // A, B, E, H and the live call.
      answered: 5,
      missed: 1,
      abandoned: 1,
      answer_rate: 5 / 10,
      // (10 + 30 + 20 + 5 + 10) / 5
      average_speed_of_answer_seconds: 15,
      // A 300 + 30, B 120 + 60, E 600 + 0; H is still wrapping up, the live call still on.
      average_handle_seconds: (330 + 180 + 600) / 3,
      // Within 20 s: A, E (exactly 20 s), H, the live call (10 s). Known: the five answered,
      // C and D (ended), G (waiting 60 s) and the rung call (30 s); not F (waiting 10 s).
      service_level: 4 / 9,
      service_level_seconds: 20,
    });
  });

  it('splits the day into 15-minute intervals up to the current one', async () => {
    const { intervals } = (await floorFigures(database.db, accountId, NOW))!;
    // 00:00 to 14:00 New York: 56 intervals past and the current one.
    expect(intervals).toHaveLength(57);
    expect(intervals[0]!.start).toBe('2026-03-10T04:00:00.000Z');
    expect(intervals[36]).toEqual({
      start: '2026-03-10T13:00:00.000Z',
      offered: 3,
      answered: 2,
      missed: 1,
      abandoned: 0,
      service_level: 1 / 3,
    });
    expect(intervals[37]).toMatchObject({ offered: 1, abandoned: 1, service_level: 0 });
    expect(intervals[40]).toMatchObject({ offered: 1, answered: 1, service_level: 1 });
    // 13:45–14:00: H (answered in 5 s), the live call (10 s), the rung call (30 s ringing),
    // G (60 s waiting), F (10 s waiting).
    expect(intervals[55]).toMatchObject({ offered: 5, answered: 2, missed: 0 });
    expect(intervals[55]!.service_level).toBe(2 / 4);
    expect(intervals[56]).toMatchObject({ offered: 0, service_level: null });
    const summed = intervals.reduce((sum, interval) => sum + interval.offered, 0);
    expect(summed).toBe(10);
  });

  it('a call at 23:59 in the account’s zone counts in that day’s last interval', async () => {
    const late = at('2026-03-11T03:59:59Z'); // 23:59:59 in New York
    await database.db.insert(calls).values({
      accountId,
      sid: 'CA-late',
      source: 'web',
      status: 'missed',
      reason: 'no-agent-answered',
      createdAt: at('2026-03-11T03:59:00Z'),
      endedAt: at('2026-03-11T03:59:30Z'),
    });
    const figures = (await floorFigures(database.db, accountId, late))!;
    expect(figures.date).toBe('2026-03-10');
    expect(figures.intervals).toHaveLength(96);
    expect(figures.intervals[95]).toMatchObject({
      start: '2026-03-11T03:45:00.000Z',
      offered: 1,
      missed: 1,
    });
    expect(figures.kpis.missed).toBe(2);
    // A minute later it is the 11th in New York: a new day, nothing offered yet.
    const next = (await floorFigures(database.db, accountId, at('2026-03-11T04:00:30Z')))!;
    expect(next.date).toBe('2026-03-11');
    expect(next.kpis.offered).toBe(0);
    expect(next.kpis.answer_rate).toBeNull();
    expect(next.intervals).toHaveLength(1);
    await database.db.delete(calls).where(eq(calls.sid, 'CA-late'));
  });
});

describe('the queue and the agents', () => {
  it('lists the waiting leads longest first, with profile and team', async () => {
    const queue = await floorQueue(database.db, accountId);
    // Not the outbound call being placed (queued, with no wait).
    expect(queue.map((entry) => entry.call_id)).toEqual([callIds.G, callIds.F]);
    expect(queue[0]).toMatchObject({
      label: 'G Lead',
      profile: { name: 'Solar' },
      team: { name: 'Closers' },
      waiting_since: '2026-03-10T17:59:00.000Z',
    });
  });

  it('gives each active user a status and since when', async () => {
    const agents = await floorAgents(database.db, accountId, NOW);
    const byName = Object.fromEntries(agents.map((agent) => [agent.full_name, agent]));
    expect(Object.keys(byName)).toEqual(['Ann', 'Bob', 'Cat', 'Dan', 'Eve', 'Fay']);
    expect(byName.Ann).toMatchObject({
      status: 'on_call',
      since: '2026-03-10T17:58:00.000Z',
      call: { id: callIds.Live, lead_label: 'Live Lead', answered_at: '2026-03-10T17:58:00.000Z' },
    });
    expect(byName.Bob).toMatchObject({
      status: 'ringing',
      since: '2026-03-10T17:59:30.000Z',
      call: { id: callIds.Rung, lead_label: 'Rung Lead', answered_at: null },
    });
    expect(byName.Cat).toMatchObject({
      status: 'wrap_up',
      since: '2026-03-10T17:55:05.000Z',
      call: null,
    });
    expect(byName.Dan).toMatchObject({ status: 'away', since: '2026-03-10T17:30:00.000Z' });
    expect(byName.Eve).toMatchObject({ status: 'offline', since: '2026-03-10T16:00:00.000Z' });
    expect(byName.Fay).toMatchObject({ status: 'available', since: '2026-03-10T17:45:00.000Z' });
  });
});
