/**
 * A web lead's rows written in one statement (intake-repo.ts): what it answers is what the
 * database holds, read back through Drizzle, for a lead that rang an agent and for one that
 * waits in the queue; text is stored as given; an agent who holds a live ring is not reserved
 * again (issue 38); a wrong reference changes nothing.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../db/database';
import { callUsers, calls, leads } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { insertIntake, type IntakeLead } from './intake-repo';

describe('insertIntake', () => {
  let database: Database;
  let accountId: number;
  let userId: number;
  let otherUserId: number;
  /** The ring the first test stores. */
  let firstRingId: number;

  beforeAll(async () => {
    database = await openTestDatabase();
    [{ id: accountId }] = (await queryRows<{ id: number }>(
      database.db,
      sql`insert into accounts (name) values ('Intake') returning id`,
    )) as [{ id: number }];
    [{ id: userId }] = (await queryRows<{ id: number }>(
      database.db,
      sql`insert into users (account_id, email, password_hash, full_name)
          values (${accountId}, 'ann@example.com', 'x', 'Ann') returning id`,
    )) as [{ id: number }];
    [{ id: otherUserId }] = (await queryRows<{ id: number }>(
      database.db,
      sql`insert into users (account_id, email, password_hash, full_name)
          values (${accountId}, 'bo@example.com', 'x', 'Bo') returning id`,
    )) as [{ id: number }];
  });

  afterAll(async () => {
    await database.close();
  });

  const lead = (overrides: Partial<IntakeLead> = {}): IntakeLead => ({
    accountId,
    profileId: null,
    fname: 'Lena',
    lname: '',
    phoneNumber: '+15550100077',
    email: null,
    company: null,
    category: null,
    sourceId: null,
    ...overrides,
  });

  it('a lead that rang an agent: the lead, the ringing call and the ring, as read back', async () => {
    const [{ id: callUserId }] = (await queryRows<{ id: number }>(
      database.db,
      sql`select nextval('call_users_id_seq')::int as id`,
    )) as [{ id: number }];
    firstRingId = callUserId;
    const expiresAt = new Date(Date.parse('2026-01-01T00:00:30Z'));
    const stored = await insertIntake(
      database.db,
      lead({ company: 'Acme', email: 'lena@example.com', category: 'solar', sourceId: '42' }),
      {
        sid: 'CA-intake-rang',
        status: 'ringing',
        reason: null,
        callerNumberId: null,
        waitingSince: null,
        endedAt: null,
      },
      { id: callUserId, userId, autoaccept: true, outcome: 'ringing', expiresAt },
    );
    const { db } = database;
    expect(stored.lead).toEqual(
      (await db.select().from(leads).where(eq(leads.id, stored.lead.id)))[0],
    );
    expect(stored.call).toEqual(
      (await db.select().from(calls).where(eq(calls.id, stored.call.id)))[0],
    );
    expect(stored.callUser).toEqual(
      (await db.select().from(callUsers).where(eq(callUsers.id, callUserId)))[0],
    );
    expect(stored.lead).toMatchObject({ company: 'Acme', sourceId: '42', lname: '' });
    expect(stored.lead.createdAt).toBeInstanceOf(Date);
    expect(stored.call).toMatchObject({
      sid: 'CA-intake-rang',
      accountId,
      leadId: stored.lead.id,
      phoneNumber: '+15550100077',
      type: 'lead',
      direction: 'outbound',
      source: 'web',
      status: 'ringing',
      seconds: 0,
      held: false,
    });
    expect(stored.callUser).toMatchObject({
      id: callUserId,
      callId: stored.call.id,
      userId,
      autoaccept: true,
      outcome: 'ringing',
      expiresAt,
    });
  });

  it('a lead that waits: no ring, the call queued since the time given, as read back', async () => {
    const since = new Date('2026-11-24T10:00:00.123Z');
    const stored = await insertIntake(
      database.db,
      lead({ fname: `<script>alert('x')</script>'); drop table leads; --`, lname: 'Ünïcødé 🚀' }),
      {
        sid: 'CA-intake-queued',
        status: 'queued',
        reason: 'all-agents-busy',
        callerNumberId: null,
        waitingSince: since,
        endedAt: null,
      },
      null,
    );
    expect(stored.callUser).toBeNull();
    const [call] = await database.db.select().from(calls).where(eq(calls.id, stored.call.id));
    expect(stored.call).toEqual(call);
    expect(stored.call.waitingSince).toEqual(since);
    expect(stored.call.reason).toBe('all-agents-busy');
    const [row] = await database.db.select().from(leads).where(eq(leads.id, stored.lead.id));
    expect(row!.fname).toBe(`<script>alert('x')</script>'); drop table leads; --`);
    expect(row!.lname).toBe('Ünïcødé 🚀');
    expect(
      await database.db.select().from(callUsers).where(eq(callUsers.callId, stored.call.id)),
    ).toEqual([]);
  });

  it('an agent who holds a live ring is not reserved again: the lead and its call are stored without the ring', async () => {
    // The first test left `userId` rung for a lead (a live reservation with its expiry).
    const stored = await insertIntake(
      database.db,
      lead(),
      {
        sid: 'CA-intake-second',
        status: 'ringing',
        reason: null,
        callerNumberId: null,
        waitingSince: null,
        endedAt: null,
      },
      { id: 987_650, userId, autoaccept: false, outcome: 'ringing', expiresAt: new Date() },
    );
    expect(stored.callUser).toBeNull();
    expect(stored.call.sid).toBe('CA-intake-second');
    expect(
      await database.db.select().from(callUsers).where(eq(callUsers.callId, stored.call.id)),
    ).toEqual([]);
  });

  it('a ring whose id is taken stores nothing at all', async () => {
    const count = async () =>
      (
        await queryRows<{ n: number }>(
          database.db,
          sql`select (select count(*) from leads)::int + (select count(*) from calls)::int as n`,
        )
      )[0]!.n;
    const before = await count();
    await expect(
      insertIntake(
        database.db,
        lead(),
        {
          sid: 'CA-intake-bad',
          status: 'ringing',
          reason: null,
          callerNumberId: null,
          waitingSince: null,
          endedAt: null,
        },
        {
          id: firstRingId,
          userId: otherUserId,
          autoaccept: false,
          outcome: 'ringing',
          expiresAt: new Date(),
        },
      ),
    ).rejects.toThrow();
    expect(await count()).toBe(before);
  });
});
