/**
 * The router's memory of eligible agents on a real database: it hands out the longest idle
 * agent first and each once, and reads again whenever a counted write, a wrap-up running out or
 * its age says the answer may have changed.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { openTestDatabase } from '../test-support/test-database';
import { setAvailable, startWrapUp } from '../users/users-repo';
import { CandidateCache } from './candidate-cache';
import { insertCall, insertCallUser, updateCallUser } from '../calls/calls-repo';

const T0 = new Date('2026-11-24T10:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('CandidateCache', () => {
  let database: Database;
  let accountId: number;
  let teamId: number;
  /** Agents by name: Ann idle longest, then Bob, Cy; Dee is in no team. */
  const ids: Record<string, number> = {};
  let cache: CandidateCache;
  const none = new Set<number>();

  beforeAll(async () => {
    database = await openTestDatabase();
    const { db } = database;
    [{ id: accountId }] = (await queryRows<{ id: number }>(
      db,
      sql`insert into accounts (name) values ('Routing') returning id`,
    )) as [{ id: number }];
    [{ id: teamId }] = (await queryRows<{ id: number }>(
      db,
      sql`insert into teams (account_id, name) values (${accountId}, 'Sales') returning id`,
    )) as [{ id: number }];
    for (const [name, idleMinutes] of [
      ['Ann', 30],
      ['Bob', 20],
      ['Cy', 10],
      ['Dee', 40],
    ] as const) {
      const [row] = await queryRows<{ id: number }>(
        db,
        sql`insert into users (account_id, email, password_hash, full_name, is_online_app, idle_since)
            values (${accountId}, ${`${name}@example.com`}, 'x', ${name}, true,
                    ${new Date(T0.getTime() - idleMinutes * 60_000).toISOString()})
            returning id`,
      );
      ids[name] = row!.id;
      if (name !== 'Dee') {
        await db.execute(
          sql`insert into team_members (team_id, user_id) values (${teamId}, ${row!.id})`,
        );
      }
    }
  });

  afterAll(async () => {
    await database.close();
  });

  beforeEach(async () => {
    await database.db.execute(
      sql`update users set is_available = true, is_online_app = true, wrap_up_until = null,
            idle_since = ${T0.toISOString()}::timestamptz - make_interval(mins => case full_name
              when 'Ann' then 30 when 'Bob' then 20 when 'Cy' then 10 else 40 end)
          where account_id = ${accountId}`,
    );
    await database.db.execute(sql`update calls set status = 'completed'`);
    routingChanged();
    cache = new CandidateCache(database.db);
  });

  const names = (id: number | undefined) =>
    Object.entries(ids).find(([, value]) => value === id)?.[0] ?? null;
  const take = async (seconds = 0, pending = none, team: number | null = teamId) => {
    const { agent, staffed } = await cache.take(accountId, team, at(seconds), pending);
    return { name: names(agent?.id), staffed };
  };

  it('hands out the team longest idle first, each once; then nobody, with the team staffed', async () => {
    expect(await take()).toEqual({ name: 'Ann', staffed: true });
    expect(await take()).toEqual({ name: 'Bob', staffed: true });
    expect(await take()).toEqual({ name: 'Cy', staffed: true });
    expect(await take()).toEqual({ name: null, staffed: true });
    // Taken for the team, not offered again for calls of the whole account either.
    expect(await take(0, none, null)).toEqual({ name: 'Dee', staffed: true });
  });

  it('a counted write is seen by the next lead: Away, a ring stored, a ring refused', async () => {
    await setAvailable(database.db, ids.Ann!, false);
    expect(await take()).toEqual({ name: 'Bob', staffed: true });

    // Bob's ring is stored by a path that counts it (as `Router.offer` does): Cy is next.
    const call = await insertCall(database.db, {
      accountId,
      leadId: null,
      profileId: null,
      phoneNumber: '+15550100001',
      status: 'ringing',
    });
    const ring = await insertCallUser(database.db, {
      callId: call.id,
      userId: ids.Bob!,
      type: 'lead',
      autoaccept: false,
    });
    expect(await take()).toEqual({ name: 'Cy', staffed: true });
    // Bob refuses (counted): read again, Bob (idle longer) and Cy (handed out, never stored).
    await updateCallUser(database.db, ring.id, { outcome: 'rejected' });
    expect(await take()).toEqual({ name: 'Bob', staffed: true });
    expect(await take()).toEqual({ name: 'Cy', staffed: true });
    expect(await take()).toEqual({ name: null, staffed: true });
  });

  it('a wrap-up running out makes its agent eligible without any write', async () => {
    await startWrapUp(database.db, ids.Ann!, at(60), at(0));
    await setAvailable(database.db, ids.Bob!, false);
    await setAvailable(database.db, ids.Cy!, false);
    expect(await take(0)).toEqual({ name: null, staffed: true });
    expect(await take(59)).toEqual({ name: null, staffed: true });
    expect(await take(60)).toEqual({ name: 'Ann', staffed: true });
  });

  it('nobody online and available: not staffed', async () => {
    for (const name of ['Ann', 'Bob', 'Cy']) await setAvailable(database.db, ids[name]!, false);
    expect(await take()).toEqual({ name: null, staffed: false });
  });

  it('agents being rung for a lead are never handed out, even after a read meanwhile', async () => {
    const pending = new Set([ids.Ann!]);
    routingChanged(); // read while Ann's ring is not stored yet
    expect(await take(0, pending)).toEqual({ name: 'Bob', staffed: true });
    // Ann's ring stored without a count (the router knows): she is not handed out again.
    expect(await take(0, none)).toEqual({ name: 'Cy', staffed: true });
    expect(await take(0, none)).toEqual({ name: null, staffed: true });
  });

  it('a write nobody counted is seen once the memory is older than its longest age', async () => {
    expect(await take(0)).toEqual({ name: 'Ann', staffed: true });
    await database.db.execute(sql`update users set is_available = false where id = ${ids.Bob!}`);
    expect(await take(1)).toEqual({ name: 'Bob', staffed: true }); // not seen yet
    await database.db.execute(sql`update users set is_available = false where id = ${ids.Cy!}`);
    // Read again after 2 s: Ann (handed out before, but nothing stored for her) and no Cy.
    expect(await take(2)).toEqual({ name: 'Ann', staffed: true });
    expect(await take(2)).toEqual({ name: null, staffed: true });
  });
});
