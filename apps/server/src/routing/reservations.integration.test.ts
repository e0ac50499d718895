/**
 * The database is the lock (issue 38): many routings at once, through two routers on one
 * database as two instances would run them, never give an agent two live rings, and no call is
 * lost: each ends ringing someone or with why nobody could take it. Runs on PGlite and, in the
 * PostgreSQL pass, on two connection pools racing for real.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertCall, type CallRow } from '../calls/calls-repo';
import { queryRows, type Db } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { insertIntake } from '../leads/intake-repo';
import { ManualClock } from '../test-support/manual-clock';
import type { OfferResult } from './router';
import { oldestQueuedCall } from './routing-repo';
import {
  instanceRouter,
  openSharedDatabase,
  seedAccount,
  type InstanceRouter,
  type SharedDatabase,
} from '../test-support/routing-instances';

const AGENTS = 5;
const CALLS = 20;

describe('reservations across instances', () => {
  let shared: SharedDatabase;
  let db: Db;
  let clock: ManualClock;
  let accountId: number;
  let agentIds: number[];
  let instances: [InstanceRouter, InstanceRouter];

  beforeAll(async () => {
    shared = await openSharedDatabase();
    db = shared.instances[0].db;
    clock = new ManualClock();
    ({ accountId, agentIds } = await seedAccount(db, AGENTS));
  });
  afterAll(() => shared.close());

  beforeEach(async () => {
    // Every agent free: no live call, no live ring.
    await db.execute(sql`update calls set status = 'completed'`);
    await db.execute(sql`update call_users set outcome = 'canceled' where outcome = 'ringing'`);
    routingChanged();
    instances = [
      instanceRouter(shared.instances[0].db, clock, agentIds),
      instanceRouter(shared.instances[1].db, clock, agentIds),
    ];
  });

  /** Live rings per agent, as the database holds them. */
  const liveRings = async () =>
    queryRows<{ user_id: number; n: number }>(
      db,
      sql`select user_id, count(*)::int as n from call_users
          where outcome = 'ringing' group by user_id order by user_id`,
    );

  /** Rings sent to each agent's devices, over both instances. */
  const devicesRung = () => {
    const counts = new Map<string, number>();
    for (const { telephony } of instances) {
      for (const op of telephony.ops('ringAgent')) {
        counts.set(op.identity, (counts.get(op.identity) ?? 0) + 1);
      }
    }
    return counts;
  };

  const expectOneRingEach = async (results: OfferResult[]) => {
    const rang = results.filter((r) => r.kind === 'rang');
    // Five agents, twenty calls: each agent rung for exactly one, the others told why not.
    expect(rang).toHaveLength(AGENTS);
    expect(new Set(rang.map((r) => r.agent.id))).toEqual(new Set(agentIds));
    for (const result of results) {
      if (result.kind === 'nobody') expect(result.reason).toBe('all-agents-busy');
    }
    expect(await liveRings()).toEqual(agentIds.map((id) => ({ user_id: id, n: 1 })));
    expect([...devicesRung().values()]).toEqual(agentIds.map(() => 1));
  };

  it('twenty stored calls offered at once through two routers: five rings, one per agent', async () => {
    const stored: CallRow[] = [];
    for (let i = 0; i < CALLS; i++) stored.push(await insertCall(db, { accountId }));
    const results = await Promise.all(
      stored.map((call, i) => instances[i % 2]!.router.offer(call, { type: 'lead' })),
    );
    expect(results).toHaveLength(CALLS);
    await expectOneRingEach(results);
    // Each ring is a reservation with its expiry: now + the ring timeout.
    const expiries = await queryRows<{ expires_at: Date | string }>(
      db,
      sql`select expires_at from call_users where outcome = 'ringing'`,
    );
    for (const { expires_at } of expiries) {
      expect(new Date(expires_at).getTime()).toBe(clock.now().getTime() + 30_000);
    }
  });

  it('twenty new leads at once through two routers, each remembering every agent as free: five rings, one per agent, every lead stored', async () => {
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        instances[i % 2]!.router.offerNew(
          accountId,
          null,
          { sid: `CA-race-${i}-${accountId}`, to: '+15550100100' },
          async (decision) => {
            const lead = {
              accountId,
              profileId: null,
              fname: `Lead ${i}`,
              lname: '',
              phoneNumber: '+15550100100',
              email: null,
              company: null,
              category: null,
              sourceId: null,
            };
            const base = {
              sid: `CA-race-${i}-${accountId}`,
              callerNumberId: null,
              waitingSince: null,
              endedAt: null,
            };
            const stored =
              decision.kind === 'rang'
                ? await insertIntake(
                    db,
                    lead,
                    { ...base, status: 'ringing', reason: null },
                    {
                      id: decision.callUserId,
                      userId: decision.agent.id,
                      autoaccept: decision.agent.autoaccept,
                      outcome: decision.outcome,
                      expiresAt: decision.expiresAt,
                    },
                  )
                : await insertIntake(
                    db,
                    lead,
                    {
                      ...base,
                      status: 'queued',
                      reason: decision.reason,
                      waitingSince: clock.now(),
                    },
                    null,
                  );
            return { call: stored.call, callUser: stored.callUser };
          },
        ),
      ),
    );
    expect(results).toHaveLength(CALLS);
    await expectOneRingEach(results.map((r) => r.result));
    const [{ n }] = (await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from calls where sid like ${`CA-race-%-${accountId}`}`,
    )) as [{ n: number }];
    expect(n).toBe(CALLS);
  });

  it('two instances draining the queue at once: each waiting call offered once, to one agent', async () => {
    const waiting: CallRow[] = [];
    for (let i = 0; i < 3; i++) {
      waiting.push(
        await insertCall(db, {
          accountId,
          status: 'queued',
          reason: 'all-agents-busy',
          waitingSince: new Date(clock.now().getTime() - (10 - i) * 1000),
        }),
      );
    }
    // The same call claimed by both at once: one rings an agent for it, the other is told taken.
    const both = await Promise.all(instances.map(({ router }) => router.offerQueued(waiting[0]!)));
    expect(both.map((r) => r.kind).sort()).toEqual(['rang', 'taken']);
    // Then each drains what is left, as the queue scheduler does, at the same time.
    const drain = async ({ router }: InstanceRouter, instanceDb: Db) => {
      for (;;) {
        const next = await oldestQueuedCall(instanceDb, accountId);
        if (!next) return;
        if ((await router.offerQueued(next)).kind === 'nobody') return;
      }
    };
    await Promise.all([
      drain(instances[0], shared.instances[0].db),
      drain(instances[1], shared.instances[1].db),
    ]);
    const perCall = await queryRows<{ call_id: number; n: number; status: string }>(
      db,
      sql`select cu.call_id, count(*)::int as n, min(c.status) as status
          from call_users cu join calls c on c.id = cu.call_id
          where cu.outcome = 'ringing' group by cu.call_id order by cu.call_id`,
    );
    expect(perCall).toEqual(waiting.map((call) => ({ call_id: call.id, n: 1, status: 'ringing' })));
    expect([...devicesRung().values()].reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('a conference invitation is a reservation too: refused for an agent rung already; a supervisor is always rung', async () => {
    const [rung, free] = agentIds as [number, number];
    const leadCall = await insertCall(db, { accountId, status: 'in-progress' });
    const other = await insertCall(db, { accountId, status: 'in-progress' });
    const { router } = instances[0];
    const invited = await router.ringParticipant(leadCall, {
      userId: rung,
      type: 'conference',
      autoaccept: false,
      invitedByUserId: free,
    });
    expect(invited).toMatchObject({ userId: rung, outcome: 'ringing', type: 'conference' });
    expect(invited?.expiresAt?.getTime()).toBe(clock.now().getTime() + 30_000);
    // The other instance invites the same agent into another call: refused, not rung.
    const second = await instances[1].router.ringParticipant(other, {
      userId: rung,
      type: 'conference',
      autoaccept: false,
      invitedByUserId: free,
    });
    expect(second).toBeNull();
    expect(instances[1].telephony.ops('ringAgent')).toEqual([]);
    // A supervisor's listen is no reservation: rung whatever they hold.
    const listen = await instances[1].router.ringParticipant(other, {
      userId: rung,
      type: 'listen',
      autoaccept: true,
      invitedByUserId: null,
    });
    expect(listen).toMatchObject({ userId: rung, type: 'listen', outcome: 'ringing' });
  });
});
