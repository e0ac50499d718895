/**
 * Conference invitations and Auto Accept (spec §4: "With autoaccept on (except profile 7703)
 * the call is answered automatically"; §3: a call user response has call, type, autoaccept):
 * an invited agent's ring carries their own Auto Accept setting, so their console answers a
 * conference invitation without a click exactly when the setting is on. Driven through the HTTP
 * routes on the populated test world (fake telephony).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { startFixture, type Fixture } from '../test-support/fixture';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.t.close());

/** Agent1 on a live lead call invites agent2 (Auto Accept as given); agent2's call user. */
async function inviteAgent2(autoaccept: boolean): Promise<unknown> {
  await f.t.database.db.update(users).set({ autoaccept }).where(eq(users.id, f.agent2.userId));
  const { call } = await f.liveCall(f.agent1);
  try {
    const invited = await f.t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/conference',
      headers: f.auth(f.agent1),
      payload: { user_id: f.agent2.userId },
    });
    expect(invited.json()).toEqual({ success: true });
    const ring = f.t.telephony.ops('ringAgent').at(-1)!;
    expect(ring).toMatchObject({ identity: String(f.agent2.userId), role: 'conference' });
    // The ring's caller id is `client:<call user id>` (spec §4).
    const callUserId = Number(ring.params.From!.slice('client:'.length));
    const callUser = await f.t.app.inject({
      method: 'GET',
      url: `/api/v1/callusers/${callUserId}`,
      headers: f.auth(f.agent2, false),
    });
    expect(callUser.statusCode).toBe(200);
    return callUser.json();
  } finally {
    await f.endCall(call);
  }
}

describe('conference invitations (spec §4: auto-accept)', () => {
  it('spec §4: an invited agent with Auto Accept on gets the invitation with autoaccept true', async () => {
    expect(await inviteAgent2(true)).toMatchObject({ type: 'conference', autoaccept: true });
  });

  it('spec §4: an invited agent with Auto Accept off gets it with autoaccept false', async () => {
    expect(await inviteAgent2(false)).toMatchObject({ type: 'conference', autoaccept: false });
  });
});
