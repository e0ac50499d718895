/**
 * Durable ring timers (issue 38): a ring whose instance died (its router stopped before its
 * timer fired) is moved on by the sweepers of the other instances once its reservation expired
 * and the grace passed, exactly once although two sweepers race for it; the ringing instance's
 * own timer, when it lives, moves it on at the expiry, and a sweep afterwards changes nothing.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { insertCall } from '../calls/calls-repo';
import { queryRows, type Db } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { ManualClock } from '../test-support/manual-clock';
import {
  instanceRouter,
  openSharedDatabase,
  seedAccount,
  type InstanceRouter,
  type SharedDatabase,
} from '../test-support/routing-instances';
import { RING_CLAIM_MS, RING_SWEEP_GRACE_MS, RING_SWEEP_MS } from './ring-sweeper';

/** The ring time the routers use (no profile: the default). */
const RING_MS = 30_000;

describe('ring sweeper', () => {
  let shared: SharedDatabase;
  let db: Db;
  let clock: ManualClock;
  let accountId: number;
  let agentIds: number[];
  let a: InstanceRouter;
  let b: InstanceRouter;
  let c: InstanceRouter;

  beforeAll(async () => {
    shared = await openSharedDatabase();
    db = shared.instances[0].db;
    ({ accountId, agentIds } = await seedAccount(db, 2));
  });
  afterAll(() => shared.close());

  beforeEach(async () => {
    await db.execute(sql`update calls set status = 'completed'`);
    await db.execute(sql`update call_users set outcome = 'canceled' where outcome = 'ringing'`);
    await db.execute(sql`update users set wrap_up_until = null`);
    routingChanged();
    clock = new ManualClock();
    const [first, second] = shared.instances;
    a = instanceRouter(first.db, clock, agentIds, RING_MS);
    b = instanceRouter(second.db, clock, agentIds, RING_MS);
    c = instanceRouter(first.db, clock, agentIds, RING_MS);
  });
  afterEach(() => {
    for (const instance of [a, b, c]) instance.router.stop();
  });

  const outcomeOf = async (callUserId: number) =>
    (
      await queryRows<{ outcome: string }>(
        db,
        sql`select outcome from call_users where id = ${callUserId}`,
      )
    )[0]?.outcome;

  /** Moves the clock on and waits for the sweeps it started (joined, not doubled). */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await Promise.all([b.router.sweepDueRings(), c.router.sweepDueRings()]);
  };

  const ringThroughA = async () => {
    const call = await insertCall(db, { accountId });
    const result = await a.router.offer(call, { type: 'lead' });
    if (result.kind !== 'rang') throw new Error('nobody was rung');
    return { call, callUser: result.callUser };
  };

  it("moves on a dead instance's ring after its expiry, exactly once", async () => {
    const { call, callUser } = await ringThroughA();
    // Instance A dies: its timer never fires.
    a.router.stop();
    b.router.start();
    c.router.start();
    // At the expiry, within the grace the ringing instance's own timer has: nothing yet.
    await advance(RING_MS);
    expect([...b.timedOut, ...c.timedOut]).toEqual([]);
    expect(await outcomeOf(callUser.id)).toBe('ringing');
    // The grace over: one of the two racing sweepers hands it on, the other does not see it.
    await advance(RING_SWEEP_GRACE_MS + RING_SWEEP_MS);
    await vi.waitFor(async () => expect(await outcomeOf(callUser.id)).toBe('missed'));
    expect([...b.timedOut, ...c.timedOut]).toEqual([
      { callSid: call.sid, callUserId: callUser.id },
    ]);
    expect([...b.movedOn, ...c.movedOn]).toEqual([callUser.id]);
    // Long after, past a claim's retry: nothing more.
    await advance(RING_CLAIM_MS + RING_SWEEP_MS);
    await advance(RING_SWEEP_MS);
    expect([...b.timedOut, ...c.timedOut]).toHaveLength(1);
    expect(a.timedOut).toEqual([]);
  });

  it('a living instance moves its ring on at the expiry; the sweepers find nothing after', async () => {
    const { callUser } = await ringThroughA();
    b.router.start();
    clock.advance(RING_MS);
    expect(a.timedOut).toEqual([expect.objectContaining({ callUserId: callUser.id })]);
    await vi.waitFor(async () => expect(await outcomeOf(callUser.id)).toBe('missed'));
    await advance(RING_SWEEP_GRACE_MS + RING_SWEEP_MS);
    expect([...b.timedOut, ...c.timedOut]).toEqual([]);
    expect(a.movedOn).toEqual([callUser.id]);
  });

  it('a sweeper and the timer acting at once: the compare-and-set lets one move the ring on', async () => {
    const { callUser } = await ringThroughA();
    const [first, second] = await Promise.all([
      a.router.endRing(callUser.id, 'missed'),
      b.router.endRing(callUser.id, 'missed'),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await outcomeOf(callUser.id)).toBe('missed');
  });

  it("a wrap-up's end: the agent is rung for a waiting lead with no timer of its own, and the sweepers ask for the queue to drain once", async () => {
    const [first, second] = agentIds as [number, number];
    // Both agents wrap up until 5 s from now (their instance and its timers are gone).
    await db.execute(
      sql`update users set wrap_up_until = ${new Date(clock.now().getTime() + 5_000).toISOString()}::timestamptz
          where id in (${first}, ${second})`,
    );
    const waiting = await insertCall(db, {
      accountId,
      status: 'queued',
      reason: 'all-agents-busy',
      waitingSince: clock.now(),
    });
    expect((await b.router.offerQueued(waiting)).kind).toBe('nobody');
    await advance(RING_SWEEP_MS);
    expect(b.wrapUpsEnded).toEqual([]);
    await advance(5_000);
    expect(b.wrapUpsEnded).toEqual([accountId]);
    await advance(RING_SWEEP_MS);
    expect(b.wrapUpsEnded).toEqual([accountId]);
    const offered = await b.router.offerQueued(waiting);
    expect(offered).toMatchObject({ kind: 'rang' });
  });
});
