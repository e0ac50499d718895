/**
 * The toll-fraud guard through the real routes and flows on the real database (PGlite, and
 * PostgreSQL in the PostgreSQL pass): every refusal with the sentence the agent reads, and that
 * a refused dial stores nothing (no lead, no call, no SMS, no counted dial). New Call, Retry,
 * Add Lead, the SDK's connect parameters (the gateway asks `authorizeOutgoing`), the SMS route,
 * lead intake by API key, and the dial when an agent takes a lead all pass through it. Twilio's
 * side (`/twilio/voice`, tenancy) is `twilio/twilio-dial-guard`; the operator's ceiling is
 * `dial-guard-ceiling`; the refusal at accept on the real engine, `lead-dial-refused`.
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { DIAL_POLICY_DEFAULTS } from '../accounts/account-policy';
import { queryRows } from '../db/database';
import type { AccountPolicy } from '../db/schema';
import { routingChanged } from '../db/routing-changes';
import { accounts, callUsers, calls, dials, leads, smsMessages } from '../db/schema';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';
import { TEST_API_KEY, type Agent } from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';
import { LOGIN_ENDED_MESSAGE } from './dial-guard';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
}, 60_000);
afterAll(() => f?.t.close());

/** The demo account's policy: the seed's countries (US, CA, GB) and `limits`. */
async function setPolicy(policy: AccountPolicy, accountId = 1): Promise<void> {
  await f.t.database.db.update(accounts).set({ policy }).where(eq(accounts.id, accountId));
}
const SEEDED: AccountPolicy = { call_countries: ['US', 'CA', 'GB'] };

beforeEach(async () => {
  const { db } = f.t.database;
  // Each test counts its own dials: what earlier tests placed is hours old, none still placing.
  await db
    .update(calls)
    .set({ createdAt: sql`${calls.createdAt} - interval '3 hours'` })
    .where(sql`true`);
  await db
    .update(dials)
    .set({ createdAt: sql`${dials.createdAt} - interval '3 hours'` })
    .where(sql`true`);
  await db
    .update(smsMessages)
    .set({ createdAt: sql`${smsMessages.createdAt} - interval '3 hours'` })
    .where(sql`true`);
  await setPolicy(SEEDED);
  await setPolicy({}, ACCOUNT_B);
});

const inject = (
  agent: Agent,
  method: 'POST' | 'GET',
  url: string,
  payload?: Record<string, unknown>,
) =>
  f.t.app.inject({
    method,
    url,
    headers: f.auth(agent),
    ...(payload ? { payload } : {}),
  });

const newCall = (agent: Agent, phone: string) =>
  inject(agent, 'POST', '/api/v1/calls/twilio/outbound', {
    fname: 'Dee',
    lname: 'Dial',
    phone_number: phone,
    agent_id: agent.userId,
  });

/** What a refused dial must not have added, counted. */
interface Stored {
  calls: number;
  leads: number;
  sms: number;
  dials: number;
}

/** The rows a refused dial must not have added. */
async function stored(): Promise<Stored> {
  const { db } = f.t.database;
  const [c] = await db.select({ n: count() }).from(calls);
  const [l] = await db.select({ n: count() }).from(leads);
  const [s] = await db.select({ n: count() }).from(smsMessages);
  const [d] = await db.select({ n: count() }).from(dials);
  return { calls: c!.n, leads: l!.n, sms: s!.n, dials: d!.n };
}

/**
 * Expects `res` to be the refusal `status` with `sentence` (in the body shape of that route:
 * a refusal's `{ success: false, error }`, or intake's validation `{ error }`), and nothing
 * stored since `before`.
 */
async function expectRefused(
  res: { statusCode: number; json(): unknown },
  status: number,
  sentence: string,
  before: Stored,
  shape: 'refusal' | 'error' = 'refusal',
): Promise<void> {
  expect({ status: res.statusCode, body: res.json() }).toEqual({
    status,
    body: shape === 'refusal' ? { success: false, error: sentence } : { error: sentence },
  });
  expect(await stored()).toEqual(before);
}

/** A lead posted by a lead source with the account's intake key. */
const postLead = (phone: string) =>
  f.t.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
    payload: { fname: 'Ina', lname: 'Take', phone_number: phone },
  });

/**
 * The web leads still waiting or ringing are given up (as `nothingLive` does between tests):
 * nobody stays rung for them.
 */
async function dropWebLeads(): Promise<void> {
  const { db } = f.t.database;
  await f.t.flows.idle();
  await db
    .update(calls)
    .set({ status: 'canceled' })
    .where(and(eq(calls.source, 'web'), inArray(calls.status, ['queued', 'ringing'])));
  await db.update(callUsers).set({ outcome: 'canceled' }).where(eq(callUsers.outcome, 'ringing'));
  routingChanged();
}

/** The agent rung for the call (its `ringAgent` command). */
function rungFor(callSid: string): string {
  const ring = f.t.telephony.ops('ringAgent').findLast((c) => c.callSid === callSid);
  if (!ring) throw new Error(`nobody was rung for ${callSid}`);
  return ring.identity;
}

/** Ages the counted rows (of the last two hours) so the oldest is `seconds` old. */
async function ageRows(table: 'dials' | 'sms_messages', seconds: number): Promise<void> {
  await f.t.database.db.execute(
    sql`update ${sql.raw(table)} set created_at = now() - ${seconds} * interval '1 second'
        where created_at > now() - interval '2 hours'`,
  );
}

/** The agent's own New Call, never connected, withdrawn by the console's hang-up. */
async function hangUpUnconnected(agent: Agent, callId: number): Promise<void> {
  const res = await inject(agent, 'POST', `/apps/webrtc/${callId}/reject`);
  expect(res.json()).toMatchObject({ success: true, call: { status: 'canceled' } });
}

describe('where: New Call', () => {
  it.each([
    ['+44 909 879 0000', 'Calls to premium-rate numbers are not allowed.'],
    ['+1 900 555 0123', 'Calls to premium-rate numbers are not allowed.'],
    ['+7 495 123 4567', 'Calls to Russia are not allowed for this account.'],
    ['+33 8 10 12 34 56', 'Calls to shared-cost numbers are not allowed.'],
    ['+1 500 555 0123', 'Calls to personal numbers are not allowed.'],
    ['+27 86 123 4567', 'Calls to universal access numbers (UAN) are not allowed.'],
    ['+1 876 555 0123', 'Calls to Jamaica are not allowed for this account.'],
    ['+882 123 456 789', 'Calls to international network numbers (+882) are not allowed.'],
  ])('%s: 403 %s, nothing stored', async (phone, sentence) => {
    const before = await stored();
    await expectRefused(await newCall(f.agent1, phone), 403, sentence, before);
  });

  it('an account calls its own country by default, and the countries its policy lists', async () => {
    // Account 6671 has no policy: the US only.
    const before = await stored();
    await expectRefused(
      await newCall(f.agentB, '+44 20 7946 0958'),
      403,
      'Calls to the United Kingdom are not allowed for this account.',
      before,
    );
    // The demo account lists the UK.
    const placed = await newCall(f.agent1, '+44 20 7946 0958');
    expect(placed.statusCode).toBe(200);
    await hangUpUnconnected(f.agent1, placed.json<{ call: { id: number } }>().call.id);
    // A policy of the wrong shape is applied as its strictest: no country at all.
    await setPolicy({ call_countries: 'US' as unknown as string[] }, ACCOUNT_B);
    await expectRefused(
      await newCall(f.agentB, '+1 415 555 0132'),
      403,
      'Calls to the United States are not allowed for this account.',
      await stored(),
    );
  });
});

describe('how often: New Call', () => {
  it('one call being placed at a time per agent; the console’s hang-up frees the next', async () => {
    const first = await newCall(f.agent1, '+1 555 010 0501');
    expect(first.statusCode).toBe(200);
    const before = await stored();
    await expectRefused(
      await newCall(f.agent1, '+1 555 010 0502'),
      409,
      'You are already placing a call: wait until it connects, or hang it up first.',
      before,
    );
    // Another agent of the account is not held up by it.
    const other = await newCall(f.agent2, '+1 555 010 0503');
    expect(other.statusCode).toBe(200);
    await hangUpUnconnected(f.agent2, other.json<{ call: { id: number } }>().call.id);
    await hangUpUnconnected(f.agent1, first.json<{ call: { id: number } }>().call.id);
    const next = await newCall(f.agent1, '+1 555 010 0502');
    expect(next.statusCode).toBe(200);
    await hangUpUnconnected(f.agent1, next.json<{ call: { id: number } }>().call.id);
  });

  it('six New Calls at once: one is placed, five are told a call is being placed', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => newCall(f.agent1, `+1 555 010 06${n}0`)),
    );
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const placed = answers.find((res) => res.statusCode === 200)!;
    const { db } = f.t.database;
    const queued = await db
      .select()
      .from(calls)
      .where(
        and(
          eq(calls.userId, f.agent1.userId),
          eq(calls.status, 'queued'),
          eq(calls.source, 'outbound'),
        ),
      );
    expect(queued.map((c) => c.id)).toEqual([placed.json<{ call: { id: number } }>().call.id]);
    await hangUpUnconnected(f.agent1, queued[0]!.id);
  });

  it('calls per minute per agent, counted from the dials admitted: refused with the wait, then allowed', async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_agent: 2 });
    for (const phone of ['+1 555 010 0701', '+1 555 010 0702']) {
      const res = await newCall(f.agent1, phone);
      expect(res.statusCode).toBe(200);
      await hangUpUnconnected(f.agent1, res.json<{ call: { id: number } }>().call.id);
    }
    await ageRows('dials', 30);
    await expectRefused(
      await newCall(f.agent1, '+1 555 010 0703'),
      429,
      'You may place at most 2 calls a minute: try again in 30 seconds.',
      await stored(),
    );
    // Retry counts and is counted the same way.
    await expectRefused(
      await inject(f.agent1, 'POST', '/api/v1/calls/twilio', {
        fname: 'Ray',
        lname: 'Try',
        phone_number: '+1 555 010 0704',
      }),
      429,
      'You may place at most 2 calls a minute: try again in 30 seconds.',
      await stored(),
    );
    // Another agent has their own count.
    const other = await newCall(f.agent2, '+1 555 010 0705');
    expect(other.statusCode).toBe(200);
    await hangUpUnconnected(f.agent2, other.json<{ call: { id: number } }>().call.id);
    // A minute on, the first two no longer count.
    await ageRows('dials', 61);
    const later = await newCall(f.agent1, '+1 555 010 0703');
    expect(later.statusCode).toBe(200);
    await hangUpUnconnected(f.agent1, later.json<{ call: { id: number } }>().call.id);
  });

  it('calls per minute per account', async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_account: 2 });
    for (const [agent, phone] of [
      [f.agent1, '+1 555 010 0801'],
      [f.agent2, '+1 555 010 0802'],
    ] as const) {
      const res = await newCall(agent, phone);
      expect(res.statusCode).toBe(200);
      await hangUpUnconnected(agent, res.json<{ call: { id: number } }>().call.id);
    }
    await ageRows('dials', 45);
    await expectRefused(
      await newCall(f.supervisor, '+1 555 010 0803'),
      429,
      'Your account may place at most 2 calls a minute: try again in 15 seconds.',
      await stored(),
    );
    // Another account is not counted with it.
    const elsewhere = await newCall(f.agentB, '+1 555 010 0804');
    expect(elsewhere.statusCode).toBe(200);
    await hangUpUnconnected(f.agentB, elsewhere.json<{ call: { id: number } }>().call.id);
  });

  it('the limits have defaults', () => {
    expect(DIAL_POLICY_DEFAULTS).toEqual({
      callsPerMinutePerAgent: 10,
      callsPerMinutePerAccount: 120,
      smsPerHourPerAgent: 60,
      smsPerHourPerAccount: 600,
    });
  });
});

describe('Retry and Add Lead', () => {
  it('Retry to a premium number or Russia: 403 with the sentence, nothing stored', async () => {
    for (const [phone, sentence] of [
      ['+1 900 555 0123', 'Calls to premium-rate numbers are not allowed.'],
      ['+7 495 123 4567', 'Calls to Russia are not allowed for this account.'],
    ] as const) {
      const before = await stored();
      await expectRefused(
        await inject(f.agent1, 'POST', '/api/v1/calls/twilio', {
          fname: 'Ray',
          lname: 'Try',
          phone_number: phone,
        }),
        403,
        sentence,
        before,
      );
    }
  });

  it('Add Lead to a premium number or Russia: 403 with the sentence, the call keeps no lead', async () => {
    // A call the agent's device placed with only `To`: on the line, without a lead.
    const decision = await f.t.flows.authorizeOutgoing(String(f.agent1.userId), {
      To: '+15550100901',
    });
    expect(decision).toHaveProperty('callSid');
    const [call] = await f.t.database.db
      .select()
      .from(calls)
      .where(eq(calls.sid, (decision as { callSid: string }).callSid));
    for (const [phone, sentence] of [
      ['+44 909 879 0000', 'Calls to premium-rate numbers are not allowed.'],
      ['+7 495 123 4567', 'Calls to Russia are not allowed for this account.'],
    ] as const) {
      const before = await stored();
      await expectRefused(
        await inject(f.agent1, 'POST', '/api/v1/calls/conferencelead', {
          call_id: call!.id,
          fname: 'Ada',
          lname: 'Added',
          phone_number: phone,
        }),
        403,
        sentence,
        before,
      );
    }
    const [after] = await f.t.database.db.select().from(calls).where(eq(calls.id, call!.id));
    expect(after!.leadId).toBeNull();
    // Nothing was dialled into it but its own number.
    const dialled = f.t.telephony.commands.filter(
      (c) => c.op === 'dial' && c.callSid === call!.sid,
    );
    expect(dialled).toEqual([]);
    await f.endCall(after!);
    f.t.telephony.emit({
      type: 'agent.left',
      callSid: call!.sid,
      identity: String(f.agent1.userId),
      reason: 'hangup',
    });
    await f.t.flows.idle();
    await f.t.flows.presence.endWrapUp(f.agent1.userId);
  });
});

describe('the SDK’s connect parameters (the gateway’s authorizeOutgoing)', () => {
  it('a call with only To to a premium number or Russia is declined with the sentence; nothing stored', async () => {
    for (const [to, message] of [
      ['+449098790000', 'Calls to premium-rate numbers are not allowed.'],
      ['+74951234567', 'Calls to Russia are not allowed for this account.'],
    ] as const) {
      const before = await stored();
      expect(await f.t.flows.authorizeOutgoing(String(f.agent1.userId), { To: to })).toEqual({
        error: { code: SignallingErrorCode.Declined, message },
      });
      expect(await stored()).toEqual(before);
    }
  });

  it('a New Call whose country the account stopped calling before it connected is declined and withdrawn', async () => {
    const placed = await newCall(f.agent1, '+44 20 7946 0958');
    expect(placed.statusCode).toBe(200);
    const answer = placed.json<{ call_user_id: number; call: { id: number } }>();
    await setPolicy({ call_countries: ['US'] });
    expect(
      await f.t.flows.authorizeOutgoing(String(f.agent1.userId), {
        call_user_id: String(answer.call_user_id),
        To: '+442079460958',
      }),
    ).toEqual({
      error: {
        code: SignallingErrorCode.Declined,
        message: 'Calls to the United Kingdom are not allowed for this account.',
      },
    });
    const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, answer.call.id));
    expect(row!.status).toBe('canceled');
  });

  it('a second call with only To while a call is being placed is declined', async () => {
    const placed = await newCall(f.agent1, '+1 555 010 0910');
    expect(placed.statusCode).toBe(200);
    const before = await stored();
    expect(
      await f.t.flows.authorizeOutgoing(String(f.agent1.userId), { To: '+15550100911' }),
    ).toEqual({
      error: {
        code: SignallingErrorCode.Declined,
        message: 'You are already placing a call: wait until it connects, or hang it up first.',
      },
    });
    expect(await stored()).toEqual(before);
    await hangUpUnconnected(f.agent1, placed.json<{ call: { id: number } }>().call.id);
  });

  it('a device whose login has ended dials nothing (its token outlives the logout)', async () => {
    const agent = f.agent2;
    const out = await inject(agent, 'POST', '/api/v1/user/logout');
    expect(out.statusCode).toBe(200);
    const before = await stored();
    expect(await f.t.flows.authorizeOutgoing(String(agent.userId), { To: '+15550100920' })).toEqual(
      { error: { code: SignallingErrorCode.Declined, message: LOGIN_ENDED_MESSAGE } },
    );
    expect(LOGIN_ENDED_MESSAGE).toBe('Your login has ended: log in again to place calls.');
    expect(await stored()).toEqual(before);
    await f.renew(agent);
  });
});

describe('SMS', () => {
  /** A call of the agent's that ended, to text afterwards. */
  async function endedCall(agent: Agent, phone: string) {
    const { call } = await f.liveCall(agent, phone);
    await f.endCall(call);
    return call;
  }

  it('texts to a premium number or Russia: 403 with the sentence, no message stored or sent', async () => {
    const call = await endedCall(f.agent1, '+15550100930');
    for (const [phone, sentence] of [
      ['+19005550123', 'Texts to premium-rate numbers are not allowed.'],
      ['+74951234567', 'Texts to Russia are not allowed for this account.'],
    ] as const) {
      await f.t.database.db.update(calls).set({ phoneNumber: phone }).where(eq(calls.id, call.id));
      const before = await stored();
      await expectRefused(
        await inject(f.agent1, 'POST', `/apps/webrtc/${call.id}/sms`, { smsbody: 'Hi' }),
        403,
        sentence,
        before,
      );
    }
  });

  it('SMS per hour per agent and per account, counted from sms_messages', async () => {
    await setPolicy({ ...SEEDED, sms_per_hour_per_agent: 1, sms_per_hour_per_account: 2 });
    const call1 = await endedCall(f.agent1, '+15550100931');
    const call2 = await endedCall(f.agent2, '+15550100932');
    const text = (agent: Agent, callId: number) =>
      inject(agent, 'POST', `/apps/webrtc/${callId}/sms`, { smsbody: 'Sorry we missed you' });
    expect((await text(f.agent1, call1.id)).json()).toEqual({ success: true });
    await ageRows('sms_messages', 30 * 60);
    await expectRefused(
      await text(f.agent1, call1.id),
      429,
      'You may send at most 1 text an hour: try again in 30 minutes.',
      await stored(),
    );
    expect((await text(f.agent2, call2.id)).json()).toEqual({ success: true });
    await ageRows('sms_messages', 50 * 60);
    await setPolicy({ ...SEEDED, sms_per_hour_per_agent: 5, sms_per_hour_per_account: 2 });
    await expectRefused(
      await text(f.agent2, call2.id),
      429,
      'Your account may send at most 2 texts an hour: try again in 10 minutes.',
      await stored(),
    );
    // The message sent is stored as sent (reserved before the send, settled after).
    const [sent] = await f.t.database.db
      .select()
      .from(smsMessages)
      .where(eq(smsMessages.callId, call1.id));
    expect(sent).toMatchObject({ status: 'sent', error: null, body: 'Sorry we missed you' });
  });
});

describe('the dial lock', () => {
  it('a second admission waits for the first to commit and counts what it stored', async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_account: 1 });
    const guard = f.t.flows.dialGuard;
    const dialer = { id: f.agent1.userId, accountId: 1 };
    const request = { kind: 'call', to: '+15550100940', from: '+15550142000' } as const;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStored = false;
    const first = guard.admit(dialer, request, async (tx) => {
      await tx.insert(calls).values({
        accountId: 1,
        sid: `CAlock${Date.now()}`,
        phoneNumber: request.to,
        direction: 'outbound',
        source: 'outbound',
        status: 'canceled',
        userId: f.agent2.userId,
      });
      firstStored = true;
      await held;
    });
    await waitUntil(() => (firstStored ? true : undefined), 'the first admission to store');
    const second = guard.admit({ id: f.agent2.userId, accountId: 1 }, request, () =>
      Promise.resolve('admitted'),
    );
    if (f.t.database.driver === 'pg') {
      // On PostgreSQL the second waits on the advisory lock, on its own connection (as another
      // instance would); PGlite has one connection, so it waits for the transaction anyway.
      await waitUntil(async () => {
        const [waiting] = await queryRows<{ n: number }>(
          f.t.database.db,
          sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
        );
        return waiting!.n > 0 ? true : undefined;
      }, 'the second admission to wait for the lock');
    }
    release();
    await first;
    // Its count saw the first's row (committed while it waited): the minute is used up.
    await expect(second).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(
        /^Your account may place at most 1 call a minute: try again in (1 minute|\d+ seconds)\.$/,
      ) as string,
    });
  });
});

describe('lead intake by API key', () => {
  it.each([
    ['+44 909 000 0000', 'Calls to premium-rate numbers are not allowed.'],
    ['+1 900 555 0123', 'Calls to premium-rate numbers are not allowed.'],
    ['+7 495 123 4567', 'Calls to Russia are not allowed for this account.'],
  ])('%s: 422 with the sentence New Call gives, nothing stored', async (phone, sentence) => {
    const before = await stored();
    // The same number typed in New Call: the same sentence.
    await expectRefused(await newCall(f.agent1, phone), 403, sentence, before);
    await expectRefused(await postLead(phone), 422, sentence, before, 'error');
    expect(f.t.telephony.ops('ringAgent').filter((c) => c.params.To === phone)).toEqual([]);
  });

  it('an account whose policy lists no country calls its own only: a lead in Russia or the UK is refused', async () => {
    await setPolicy({});
    const before = await stored();
    await expectRefused(
      await postLead('+7 495 123 4567'),
      422,
      'Calls to Russia are not allowed for this account.',
      before,
      'error',
    );
    await expectRefused(
      await postLead('+44 20 7946 0958'),
      422,
      'Calls to the United Kingdom are not allowed for this account.',
      before,
      'error',
    );
    const home = await postLead('+1 555 010 1001');
    expect(home.statusCode).toBe(201);
    await dropWebLeads();
  });

  it("web leads count in the account's calls a minute (not in an agent's): past it 429, nothing stored", async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_agent: 1, calls_per_minute_per_account: 3 });
    // An agent's New Call counts for the account.
    const placed = await newCall(f.agent1, '+1 555 010 1101');
    expect(placed.statusCode).toBe(200);
    await hangUpUnconnected(f.agent1, placed.json<{ call: { id: number } }>().call.id);
    // A web lead is no agent's: the agent's own count stays where it was.
    expect((await postLead('+1 555 010 1102')).statusCode).toBe(201);
    const other = await newCall(f.agent2, '+1 555 010 1103');
    expect(other.statusCode).toBe(200);
    await hangUpUnconnected(f.agent2, other.json<{ call: { id: number } }>().call.id);
    // Three this minute: the account's limit.
    await ageRows('dials', 20);
    const refusedLead = await postLead('+1 555 010 1104');
    await expectRefused(
      refusedLead,
      429,
      'Your account may place at most 3 calls a minute: try again in 40 seconds.',
      await stored(),
    );
    // The lead source's client is told when to try again, as the sentence says.
    expect(refusedLead.headers['retry-after']).toBe('40');
    await expectRefused(
      await newCall(f.supervisor, '+1 555 010 1105'),
      429,
      'Your account may place at most 3 calls a minute: try again in 40 seconds.',
      await stored(),
    );
    await dropWebLeads();
  });
});

describe('the dial when an agent takes a lead passes the guard again', () => {
  it('a web lead whose country the account stopped calling after intake: not dialled, the call ends, the agent is told and free', async () => {
    const posted = await postLead('+44 20 7946 0958');
    expect(posted.json()).toMatchObject({ call: { status: 'ringing' } });
    const callId = posted.json<{ call: { id: number } }>().call.id;
    const [call] = await f.t.database.db.select().from(calls).where(eq(calls.id, callId));
    const agent = rungFor(call!.sid);
    await setPolicy({ call_countries: ['US'] });
    f.t.telephony.emit({ type: 'agent.answered', callSid: call!.sid, identity: agent });
    await f.t.flows.idle();
    const sentence = 'Calls to the United Kingdom are not allowed for this account.';
    const mine = f.t.telephony.commands.filter((c) => c.callSid === call!.sid);
    // Nothing dialled; the call hung up with the sentence on the agent's device.
    expect(mine.filter((c) => c.op === 'dial')).toEqual([]);
    expect(mine.filter((c) => c.op === 'hangup')).toEqual([
      {
        op: 'hangup',
        callSid: call!.sid,
        error: { code: SignallingErrorCode.Declined, message: sentence },
      },
    ]);
    const [ended] = await f.t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(ended).toMatchObject({ status: 'canceled', reason: 'dial-refused' });
    expect(ended!.endedAt).not.toBeNull();
    const rows = await f.t.database.db
      .select({ outcome: callUsers.outcome, leftAt: callUsers.leftAt })
      .from(callUsers)
      .where(eq(callUsers.callId, callId));
    expect(rows).toEqual([{ outcome: 'canceled', leftAt: null }]);
    // Free: not on a call, not wrapping up; their New Call is placed.
    const who = [f.agent1, f.agent2, f.supervisor, f.basic].find(
      (a) => String(a.userId) === agent,
    )!;
    expect((await f.userOf(who)).wrapUpUntil).toBeNull();
    await setPolicy(SEEDED);
    const next = await newCall(who, '+1 555 010 1201');
    expect(next.statusCode).toBe(200);
    await hangUpUnconnected(who, next.json<{ call: { id: number } }>().call.id);
  });

  it('a Retry to a country the account stopped calling before it was taken is not dialled', async () => {
    const asked = await inject(f.agent1, 'POST', '/api/v1/calls/twilio', {
      fname: 'Ray',
      lname: 'Try',
      phone_number: '+1 416 555 0199',
    });
    expect(asked.statusCode).toBe(200);
    const [call] = await f.t.database.db
      .select()
      .from(calls)
      .where(and(eq(calls.phoneNumber, '+14165550199'), eq(calls.source, 'retry')));
    await setPolicy({ call_countries: ['US', 'GB'] });
    f.t.telephony.emit({
      type: 'agent.answered',
      callSid: call!.sid,
      identity: rungFor(call!.sid),
    });
    await f.t.flows.idle();
    const mine = f.t.telephony.commands.filter((c) => c.callSid === call!.sid);
    expect(mine.filter((c) => c.op === 'dial')).toEqual([]);
    expect(mine.find((c) => c.op === 'hangup')).toMatchObject({
      error: { message: 'Calls to Canada are not allowed for this account.' },
    });
    const [ended] = await f.t.database.db.select().from(calls).where(eq(calls.id, call!.id));
    expect(ended).toMatchObject({ status: 'canceled', reason: 'dial-refused' });
  });
});

describe('Retry and Add Lead in the rates', () => {
  /** Agent 1's Retry to `phone` through the route. */
  const retry = (phone: string) =>
    inject(f.agent1, 'POST', '/api/v1/calls/twilio', {
      fname: 'Ray',
      lname: 'Try',
      phone_number: phone,
    });

  /** The Retry call to `phone` answered by whoever was rung for it. */
  async function taken(phone: string) {
    const [call] = await f.t.database.db
      .select()
      .from(calls)
      .where(and(eq(calls.phoneNumber, phone), eq(calls.source, 'retry')));
    f.t.telephony.emit({
      type: 'agent.answered',
      callSid: call!.sid,
      identity: rungFor(call!.sid),
    });
    await f.t.flows.idle();
    const [live] = await f.t.database.db.select().from(calls).where(eq(calls.id, call!.id));
    expect(live!.status).toBe('in-progress');
    return live!;
  }

  it('a burst of Retries: one is placed, the others are told a call is being placed; each counts as the asking agent’s, whoever takes it', async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_agent: 2 });
    // Agent 1's phone is off: their Retries are taken by others, and are still agent 1's.
    f.t.telephony.emit({ type: 'device.offline', identity: String(f.agent1.userId) });
    await f.t.flows.idle();
    try {
      const before = await stored();
      const burst = await Promise.all(
        ['+15550101301', '+15550101302', '+15550101303', '+15550101304'].map(retry),
      );
      expect(burst.map((res) => res.statusCode).sort()).toEqual([200, 409, 409, 409]);
      for (const refused of burst.filter((res) => res.statusCode === 409)) {
        expect(refused.json()).toEqual({
          success: false,
          error: 'You are already placing a call: wait until it connects, or hang it up first.',
        });
      }
      expect((await stored()).calls).toBe(before.calls + 1);
      const [first] = await f.t.database.db
        .select()
        .from(calls)
        .where(and(eq(calls.source, 'retry'), eq(calls.status, 'ringing')));
      const one = await taken(first!.phoneNumber!);
      expect(one.userId).not.toBe(f.agent1.userId);
      await f.endCall(one);
      // Taken: the next is placed, and is the second of agent 1's minute.
      expect((await retry('+15550101305')).statusCode).toBe(200);
      await f.endCall(await taken('+15550101305'));
      await ageRows('dials', 10);
      await expectRefused(
        await retry('+15550101306'),
        429,
        'You may place at most 2 calls a minute: try again in 50 seconds.',
        await stored(),
      );
    } finally {
      f.t.telephony.emit({ type: 'device.online', identity: String(f.agent1.userId) });
      await f.t.flows.idle();
    }
  });

  it("Retries count in the account's calls a minute from the start", async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_account: 1 });
    expect((await retry('+15550101311')).statusCode).toBe(200);
    await f.endCall(await taken('+15550101311'));
    await ageRows('dials', 30);
    await expectRefused(
      await newCall(f.agent2, '+15550101312'),
      429,
      'Your account may place at most 1 call a minute: try again in 30 seconds.',
      await stored(),
    );
  });

  it("Add Lead's dial counts as the agent's: after it, the agent's minute is used up", async () => {
    await setPolicy({ ...SEEDED, calls_per_minute_per_agent: 2 });
    // A call the agent's device placed with only `To` (their first of the minute).
    const decision = await f.t.flows.authorizeOutgoing(String(f.agent1.userId), {
      To: '+15550101401',
    });
    const [call] = await f.t.database.db
      .select()
      .from(calls)
      .where(eq(calls.sid, (decision as { callSid: string }).callSid));
    const added = inject(f.agent1, 'POST', '/api/v1/calls/conferencelead', {
      call_id: call!.id,
      fname: 'Ada',
      lname: 'Added',
      phone_number: '+15550101402',
    });
    const dial = await waitUntil(
      () => f.t.telephony.ops('dial').find((c) => c.callSid === call!.sid),
      'the added lead to be dialled',
    );
    f.t.telephony.emit({
      type: 'phone.answered',
      callSid: call!.sid,
      participantId: dial.participantId,
    });
    expect((await added).statusCode).toBe(200);
    const counted = await f.t.database.db
      .select({ userId: dials.userId, callId: dials.callId })
      .from(dials)
      .where(eq(dials.callId, call!.id));
    expect(counted).toEqual([
      { userId: f.agent1.userId, callId: call!.id },
      { userId: f.agent1.userId, callId: call!.id },
    ]);
    const [live] = await f.t.database.db.select().from(calls).where(eq(calls.id, call!.id));
    await f.endCall(live!);
    f.t.telephony.emit({
      type: 'agent.left',
      callSid: call!.sid,
      identity: String(f.agent1.userId),
      reason: 'hangup',
    });
    await f.t.flows.idle();
    await f.t.flows.presence.endWrapUp(f.agent1.userId);
    await ageRows('dials', 15);
    await expectRefused(
      await newCall(f.agent1, '+15550101403'),
      429,
      'You may place at most 2 calls a minute: try again in 45 seconds.',
      await stored(),
    );
  });
});

describe('a caller on the sandbox network (POST /api/v1/sandbox/inbound)', () => {
  it('is offered whatever their number (nothing is dialled to them); calling them back passes the guard', async () => {
    const caller = '+44 909 000 0000';
    const res = await f.t.app.inject({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: { from: caller, to: '+15550142000' },
    });
    expect(res.json()).toMatchObject({ call: { status: 'ringing' } });
    const sid = res.json<{ call: { sid: string } }>().call.sid;
    f.t.telephony.emit({ type: 'agent.answered', callSid: sid, identity: rungFor(sid) });
    await f.t.flows.idle();
    const mine = f.t.telephony.commands.filter((c) => c.callSid === sid);
    expect(mine.filter((c) => c.op === 'dial')).toEqual([]);
    const [call] = await f.t.database.db.select().from(calls).where(eq(calls.sid, sid));
    expect(call!.status).toBe('in-progress');
    await f.endCall(call!);
    // The callback (Retry from the history or the Call Result view) is a dial like any other.
    await expectRefused(
      await inject(f.agent1, 'POST', '/api/v1/calls/twilio', {
        fname: 'Cal',
        lname: 'Back',
        phone_number: caller,
      }),
      403,
      'Calls to premium-rate numbers are not allowed.',
      await stored(),
    );
  });
});
