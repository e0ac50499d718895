/**
 * `GET /api/v1/floor` (issue 39) on the test product: who may see it, and a call taken through
 * the call flows showing on it; the wrap-up bookkeeping the handle time is made of.
 */
import { eq } from 'drizzle-orm';
import { FloorSchema } from '@leadline/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls, users } from '../db/schema';
import { startFixture, type Fixture } from '../test-support/fixture';
import { endWrapUp, startWrapUp } from '../users/users-repo';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.t.close());

const floorOf = (headers: Record<string, string> = {}) =>
  f.t.app.inject({ method: 'GET', url: '/api/v1/floor', headers });

describe('GET /api/v1/floor', () => {
  it('answers supervisors (and admins), refuses agents with 403 and strangers with 401', async () => {
    const seen = await floorOf(f.auth(f.supervisor, false));
    expect(seen.statusCode, seen.body).toBe(200);
    expect(FloorSchema.safeParse(seen.json()).success).toBe(true);

    const agent = await floorOf(f.auth(f.agent1, false));
    expect(agent.statusCode).toBe(403);
    expect(agent.json()).toEqual({
      error: 'Only a supervisor or an administrator of this account can see this.',
    });
    expect((await floorOf()).statusCode).toBe(401);
  });

  it('shows a call an agent takes, and only the supervisor’s own account', async () => {
    const before = (await floorOf(f.auth(f.supervisor, false))).json<{
      kpis: { offered: number; answered: number };
    }>();
    const { call } = await f.liveCall(f.agent1);
    const floor = (await floorOf(f.auth(f.supervisor, false))).json<{
      agents: Array<{ id: number; status: string; call: { id: number } | null }>;
      kpis: { offered: number; answered: number };
    }>();
    const me = (await f.userOf(f.agent1)).id;
    expect(floor.agents.find((agent) => agent.id === me)).toMatchObject({
      status: 'on_call',
      call: { id: call.id },
    });
    // Account B's agent is not on account A's floor.
    const other = (await f.userOf(f.agentB)).id;
    expect(floor.agents.some((agent) => agent.id === other)).toBe(false);
    if (call.source === 'web' || call.source === 'inbound') {
      expect(floor.kpis.offered).toBe(before.kpis.offered + 1);
      expect(floor.kpis.answered).toBe(before.kpis.answered + 1);
    }
    await f.endCall(call);
  });
});

describe('wrap-up bookkeeping (the handle time)', () => {
  it('a call’s wrap-up ends at its deadline, or earlier at Done; the user’s choice is timed', async () => {
    const { db } = f.t.database;
    const userId = (await f.userOf(f.agent2)).id;
    const { call } = await f.liveCall(f.agent2);
    await f.endCall(call);
    const t0 = new Date('2030-01-01T10:00:00Z');
    const deadline = new Date('2030-01-01T10:01:00Z');
    await startWrapUp(db, userId, deadline, t0, call.id);
    let [row] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(row!.wrapUpEndedAt?.toISOString()).toBe(deadline.toISOString());

    // Done after 20 s: the wrap-up ended then.
    const done = new Date('2030-01-01T10:00:20Z');
    expect(await endWrapUp(db, userId, done)).toBe(true);
    [row] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(row!.wrapUpEndedAt?.toISOString()).toBe(done.toISOString());
    const [user] = await db.select().from(users).where(eq(users.id, userId));
    expect(user!.wrapUpCallId).toBeNull();
    expect(user!.presenceChangedAt?.toISOString()).toBe(done.toISOString());

    // A Done pressed after the deadline (the wrap-up had run out) does not move it later.
    await startWrapUp(db, userId, deadline, t0, call.id);
    expect(await endWrapUp(db, userId, new Date('2030-01-01T10:05:00Z'))).toBe(true);
    [row] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(row!.wrapUpEndedAt?.toISOString()).toBe(deadline.toISOString());
    // Nothing to end: false, nothing written.
    expect(await endWrapUp(db, userId, new Date('2030-01-01T10:06:00Z'))).toBe(false);
  });
});
