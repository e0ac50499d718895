/**
 * Account isolation, endpoint by endpoint: users of account A use account B's ids. Every
 * attempt is answered as if the thing did not exist (404, or a list without it), and no row of
 * B changes at any point.
 */
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRow } from '../calls/calls-repo';
import { routingChanged } from '../db/routing-changes';
import { callerNumbers, calls, leads, teams, users } from '../db/schema';
import { fingerprint } from '../test-support/db-fingerprint';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';

let f: Fixture;
/** B's things. */
let b: {
  liveCall: CallRow;
  callUserId: number;
  endedCall: CallRow;
  userId: number;
  teamId: number;
  callerNumberId: number;
  leadPhone: string;
};
let bBefore: string;
/** Text only B's data holds (A's own lead may share a phone number with B's). */
const B_TRACES = /Agent 6671|Account 6671|Casey|a6671\.example|Bea/;

beforeAll(async () => {
  f = await startFixture();
  const { db } = f.t.database;
  const ended = await f.liveCall(f.agentB, '+15550106001');
  await f.endCall(ended.call);
  await f.recordCall(ended.call);
  const live = await f.liveCall(f.agentB, '+15550106002');
  const [team] = await db.select().from(teams).where(eq(teams.accountId, ACCOUNT_B));
  const [number] = await db
    .select()
    .from(callerNumbers)
    .where(eq(callerNumbers.accountId, ACCOUNT_B));
  const [lead] = await db.select().from(leads).where(eq(leads.accountId, ACCOUNT_B));
  const [user] = await db.select().from(users).where(eq(users.accountId, ACCOUNT_B));
  b = {
    liveCall: live.call,
    callUserId: live.callUserId,
    endedCall: ended.call,
    userId: user!.id,
    teamId: team!.id,
    callerNumberId: number!.id,
    leadPhone: lead!.phoneNumber,
  };
  bBefore = await fingerprint(db, ACCOUNT_B);
});

afterAll(async () => {
  // After everything A did, B is exactly as it was.
  expect(await fingerprint(f.t.database.db, ACCOUNT_B)).toBe(bBefore);
  await f.t.close();
});

/** A request by a user of A that must be answered 404 and change nothing of B. */
async function notFound(options: InjectOptions): Promise<void> {
  const before = await fingerprint(f.t.database.db, ACCOUNT_B);
  const res = await f.t.app.inject(options);
  await f.t.flows.idle();
  expect(res.statusCode, res.body).toBe(404);
  expect(JSON.stringify(res.json())).not.toMatch(B_TRACES);
  expect(await fingerprint(f.t.database.db, ACCOUNT_B)).toBe(before);
}

/** A's own live call for the endpoints that act on one. */
async function withMyCall<T>(run: (call: CallRow, callUserId: number) => Promise<T>): Promise<T> {
  const { call, callUserId } = await f.liveCall(f.agent1);
  try {
    return await run(call, callUserId);
  } finally {
    await f.endCall(call);
  }
}

describe('account A cannot reach account B', () => {
  it('GET /api/v1/callusers/{id}: 404', () =>
    notFound({
      method: 'GET',
      url: `/api/v1/callusers/${b.callUserId}`,
      headers: f.auth(f.agent1, false),
    }));

  for (const path of ['reject', 'disposition', 'disposition2', 'sms']) {
    it(`POST /apps/webrtc/{id}/${path}: 404`, () =>
      notFound({
        method: 'POST',
        url: `/apps/webrtc/${b.endedCall.id}/${path}`,
        headers: f.auth(f.agent1),
        payload: { status: 'contacted', key: 'hot', smsbody: 'hello' },
      }));
  }

  it("GET /api/v1/calls/{id}/recording: 404 for B's recording", async () => {
    // B's own user can listen to it; A's users are told it does not exist.
    const own = await f.t.app.inject({
      method: 'GET',
      url: `/api/v1/calls/${b.endedCall.id}/recording`,
      headers: f.auth(f.agentB, false),
    });
    expect(own.statusCode).toBe(200);
    await notFound({
      method: 'GET',
      url: `/api/v1/calls/${b.endedCall.id}/recording`,
      headers: f.auth(f.agent1, false),
    });
  });

  it('POST /api/v1/notes: 404 for a call of B', () =>
    notFound({
      method: 'POST',
      url: '/api/v1/notes',
      headers: f.auth(f.agent1),
      payload: { content: 'x', call_id: b.endedCall.id },
    }));

  it('POST /api/v1/calls/{id}/transfer: 404 for a call, a user and a team of B', async () => {
    await notFound({
      method: 'POST',
      url: `/api/v1/calls/${b.liveCall.id}/transfer`,
      headers: f.auth(f.agent1),
      payload: { user_id: f.agent2.userId, call_user_id: b.callUserId },
    });
    await withMyCall(async (call, callUserId) => {
      await notFound({
        method: 'POST',
        url: `/api/v1/calls/${call.id}/transfer`,
        headers: f.auth(f.agent1),
        payload: { user_id: b.userId, call_user_id: callUserId },
      });
      await notFound({
        method: 'POST',
        url: `/api/v1/calls/${call.id}/transfer`,
        headers: f.auth(f.agent1),
        payload: { team_id: b.teamId, call_user_id: callUserId },
      });
    });
  });

  for (const mode of ['listen', 'whisper', 'barge']) {
    it(`POST /api/v1/calls/{id}/${mode}: 404 for a call of B`, () =>
      notFound({
        method: 'POST',
        url: `/api/v1/calls/${b.liveCall.id}/${mode}`,
        headers: f.auth(f.supervisor),
      }));
  }

  for (const path of ['hold', 'unhold']) {
    it(`PUT /api/v1/calls/{id}/${path}: 404 for a call of B`, () =>
      notFound({
        method: 'PUT',
        url: `/api/v1/calls/${b.liveCall.id}/${path}`,
        headers: f.auth(f.agent1),
      }));
  }

  it('POST /api/v1/calls/conferencelead: 404 for a call of B', () =>
    notFound({
      method: 'POST',
      url: '/api/v1/calls/conferencelead',
      headers: f.auth(f.agent1),
      payload: { call_id: b.liveCall.id, phone_number: '+15550100999' },
    }));

  it('POST /api/v1/calls/conference: 404 for a user of B', () =>
    withMyCall(() =>
      notFound({
        method: 'POST',
        url: '/api/v1/calls/conference',
        headers: f.auth(f.agent1),
        payload: { user_id: b.userId },
      }),
    ));

  it("POST /api/v1/calls/twilio/outbound: B's caller number is refused, B's agent id is refused", async () => {
    const before = await fingerprint(f.t.database.db);
    const number = await f.t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: f.auth(f.agent1),
      payload: {
        phone_number: '+15550100999',
        agent_id: f.agent1.userId,
        caller_id: b.callerNumberId,
      },
    });
    expect(number.statusCode).toBe(422);
    expect(number.json()).toEqual({ error: 'The caller id is not one of your caller numbers.' });
    const agent = await f.t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: f.auth(f.agent1),
      payload: { phone_number: '+15550100999', agent_id: b.userId },
    });
    expect(agent.statusCode).toBe(422);
    expect(await fingerprint(f.t.database.db)).toBe(before);
  });

  it("POST /api/v1/calls/twilio (retry) with the number of B's lead makes A's own lead, B's stays", async () => {
    const res = await f.t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio',
      headers: f.auth(f.agent1),
      payload: { fname: 'Same', lname: 'Number', phone_number: b.leadPhone },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ call: { id: number; lead: { id: number; fname: string } } }>();
    const [mine] = await f.t.database.db
      .select()
      .from(leads)
      .where(eq(leads.id, body.call.lead.id));
    expect(mine!.accountId).toBe(1);
    expect(body.call.lead.fname).toBe('Same');
    await f.t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${body.call.id}/reject`,
      headers: f.auth(f.agent1),
    });
  });

  it("POST /api/v1/pusher/auth: 403 for the channel of B's user and for B's account channel", async () => {
    for (const channel of [`presence-user-${b.userId}`, `private-account-${ACCOUNT_B}`]) {
      const res = await f.t.app.inject({
        method: 'POST',
        url: '/api/v1/pusher/auth',
        headers: f.auth(f.agent1),
        payload: { socket_id: '1.2', channel_name: channel },
      });
      expect({ channel, status: res.statusCode }).toEqual({ channel, status: 403 });
    }
  });

  it('POST /apps/webrtc/check never rings a lead of B', async () => {
    // B has a lead waiting in its queue (B's agent is on a call); A has none (but the one of
    // the retry case above).
    const waiting = await f.t.flows.intakeLead(ACCOUNT_B, {
      fname: 'Bea',
      lname: 'Waiting',
      phone_number: '+15550106003',
    });
    expect(waiting.call.status).toBe('queued');
    // B's own activity: from here on, only what A does could change B.
    bBefore = await fingerprint(f.t.database.db, ACCOUNT_B);
    for (let i = 0; i < 3; i++) {
      const res = await f.t.app.inject({
        method: 'POST',
        url: '/apps/webrtc/check',
        headers: f.auth(f.agent1),
      });
      const body = res.json<{ success: boolean; call?: { id: number } }>();
      if (!body.success) break;
      const [call] = await f.t.database.db.select().from(calls).where(eq(calls.id, body.call!.id));
      expect(call!.accountId).toBe(1);
      await f.t.app.inject({
        method: 'POST',
        url: `/apps/webrtc/${call!.id}/reject`,
        headers: f.auth(f.agent1),
      });
      await f.t.database.db
        .update(calls)
        .set({ status: 'completed' })
        .where(eq(calls.leadId, call!.leadId!));
      routingChanged();
    }
    const last = await f.t.app.inject({
      method: 'POST',
      url: '/apps/webrtc/check',
      headers: f.auth(f.agent1),
    });
    expect(last.json()).toEqual({ success: false, error: 'No leads waiting.' });
  });

  it('lists hold nothing of B: users/paginated, teams, callerids, mycalls, user', async () => {
    const get = async (url: string) =>
      (await f.t.app.inject({ method: 'GET', url, headers: f.auth(f.agent1, false) })).body;
    for (const url of [
      '/api/v1/users/paginated?status=all',
      '/api/v1/teams',
      '/api/v1/callerids',
      '/api/v1/mycalls?limit=50',
      '/api/v1/user',
    ]) {
      const body = await get(url);
      expect(body, url).not.toMatch(B_TRACES);
    }
    const team = await get(`/api/v1/users/paginated?status=all&team_id=${b.teamId}`);
    expect(JSON.parse(team)).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
