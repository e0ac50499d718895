/**
 * The operator's ceiling over every account's dial policy (the `DIAL_*` settings) through the
 * real routes and flows on the real database (PGlite, and PostgreSQL in the PostgreSQL pass):
 * for each ceiling (countries, calls per minute per agent and per account, SMS per hour), an
 * admin's change beyond it is refused (422 naming it, nothing stored, nothing audited), and a
 * policy stored before the ceiling was lowered (the fixture's: the United States, Canada and the
 * United Kingdom, 10,000 of everything) is applied, and shown, as the narrower of the two.
 */
import { count, eq, inArray, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminAccount } from '@leadline/contracts';
import type { DialCeiling } from '../accounts/account-policy';
import { hashPassword } from '../auth/password';
import { accounts, auditLog, calls, dials, smsMessages, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { fingerprint } from '../test-support/db-fingerprint';
import { startFixture, type Fixture } from '../test-support/fixture';
import { DialGuard, callingNowhereWarning } from './dial-guard';
import { login, TEST_API_KEY, type Agent } from '../test-support/test-app';

/** The operator's ceiling in these tests: lower than the account's stored policy everywhere. */
const CEILING: DialCeiling = {
  countries: new Set(['US', 'GB']),
  callsPerMinutePerAgent: 2,
  callsPerMinutePerAccount: 3,
  smsPerHour: 2,
};

/** The account's policy as stored before the ceiling: wider than it in every field. */
const STORED_WIDER = {
  call_countries: ['US', 'CA', 'GB'],
  calls_per_minute_per_agent: 10_000,
  calls_per_minute_per_account: 10_000,
  sms_per_hour_per_agent: 10_000,
  sms_per_hour_per_account: 10_000,
};

let f: Fixture;
let admin: Agent;
beforeAll(async () => {
  f = await startFixture({ dialCeiling: CEILING });
  await f.t.database.db.insert(users).values({
    accountId: 1,
    email: 'ceiling.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Cee Admin',
    role: 'admin',
  });
  admin = await login(f.t.app, 'ceiling.admin@example.com');
}, 60_000);
afterAll(() => f?.t.close());

beforeEach(async () => {
  const { db } = f.t.database;
  // Each test counts its own dials and texts: what earlier tests did is hours old.
  for (const table of [calls, dials, smsMessages]) {
    await db
      .update(table)
      .set({ createdAt: sql`${table.createdAt} - interval '3 hours'` })
      .where(sql`true`);
  }
  await db.update(accounts).set({ policy: STORED_WIDER }).where(eq(accounts.id, 1));
});

const inject = (options: InjectOptions) => f.t.app.inject(options);
const auditCount = async () => (await f.t.database.db.select({ n: count() }).from(auditLog))[0]!.n;

/** PATCH /api/v1/admin/account with `dial_policy`. */
const patchDialPolicy = (dialPolicy: Record<string, unknown>) =>
  inject({
    method: 'PATCH',
    url: '/api/v1/admin/account',
    headers: f.auth(admin),
    payload: { dial_policy: dialPolicy },
  });

/** The account's dial policy as GET /api/v1/admin/account shows it. */
async function shownPolicy(): Promise<AdminAccount['dial_policy']> {
  const res = await inject({ method: 'GET', url: '/api/v1/admin/account', headers: f.auth(admin) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AdminAccount }>().data.dial_policy;
}

/** Expects the change refused with 422 and `sentence`, the database and audit log unchanged. */
async function refusedAtPatch(dialPolicy: Record<string, unknown>, sentence: string) {
  const before = [await fingerprint(f.t.database.db), await auditCount()];
  const res = await patchDialPolicy(dialPolicy);
  expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({
    status: 422,
    body: { error: sentence },
  });
  expect([await fingerprint(f.t.database.db), await auditCount()]).toEqual(before);
}

const authed = (agent: Agent, url: string, payload: Record<string, unknown>) =>
  inject({ method: 'POST', url, headers: f.auth(agent), payload });

const newCall = (agent: Agent, phone: string) =>
  authed(agent, '/api/v1/calls/twilio/outbound', {
    fname: 'Cee',
    lname: 'Ling',
    phone_number: phone,
    agent_id: agent.userId,
  });

/** The agent's New Call placed (200), then withdrawn by the console's hang-up. */
async function placedAndHungUp(agent: Agent, phone: string): Promise<void> {
  const res = await newCall(agent, phone);
  expect(res.statusCode, res.body).toBe(200);
  const { id } = res.json<{ call: { id: number } }>().call;
  expect((await authed(agent, `/apps/webrtc/${id}/reject`, {})).statusCode).toBe(200);
}

/** Ages the dials of the last two hours so the oldest is `seconds` old. */
async function ageDials(seconds: number): Promise<void> {
  await f.t.database.db.execute(
    sql`update dials set created_at = now() - ${seconds} * interval '1 second'
        where created_at > now() - interval '2 hours'`,
  );
}

describe('the countries (DIAL_ALLOWED_COUNTRIES)', () => {
  it('an admin cannot add a country beyond it: 422 naming it, nothing stored', async () => {
    await refusedAtPatch(
      { call_countries: ['US', 'CA'] },
      "CA is beyond this server's limit: the call countries may only be among GB and US.",
    );
    await refusedAtPatch(
      { call_countries: ['mx', 'RU', 'US'] },
      "MX and RU are beyond this server's limit: the call countries may only be among GB and US.",
    );
    const within = await patchDialPolicy({ call_countries: ['US'] });
    expect(within.statusCode, within.body).toBe(200);
    expect(within.json<{ data: AdminAccount }>().data.dial_policy.call_countries).toEqual(['US']);
  });

  it('a country the stored policy lists beyond it is not called (New Call, intake) and not shown', async () => {
    expect((await shownPolicy()).call_countries).toEqual(['GB', 'US']);
    const sentence = 'Calls to Canada are not allowed for this account.';
    const before = await fingerprint(f.t.database.db);
    const call = await newCall(f.agent1, '+1 416 555 0123');
    expect({ status: call.statusCode, body: call.json<unknown>() }).toEqual({
      status: 403,
      body: { success: false, error: sentence },
    });
    const lead = await inject({
      method: 'POST',
      url: '/api/v1/leads',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: { fname: 'Cee', phone_number: '+1 416 555 0123' },
    });
    expect({ status: lead.statusCode, body: lead.json<unknown>() }).toEqual({
      status: 422,
      body: { error: sentence },
    });
    expect(await fingerprint(f.t.database.db)).toEqual(before);
    // Within both: called.
    await placedAndHungUp(f.agent1, '+44 20 7946 0958');
  });
});

describe('calls per minute per agent (DIAL_MAX_CALLS_PER_MINUTE_PER_AGENT)', () => {
  it('an admin cannot set more: 422 naming it, nothing stored', async () => {
    await refusedAtPatch(
      { calls_per_minute_per_agent: 3 },
      "The calls per minute per agent may be at most 2, this server's limit.",
    );
    expect((await patchDialPolicy({ calls_per_minute_per_agent: 2 })).statusCode).toBe(200);
  });

  it('the stored 10,000 is applied and shown as 2', async () => {
    expect((await shownPolicy()).calls_per_minute_per_agent).toBe(2);
    await placedAndHungUp(f.agent1, '+1 555 010 2101');
    await placedAndHungUp(f.agent1, '+1 555 010 2102');
    await ageDials(25);
    const res = await newCall(f.agent1, '+1 555 010 2103');
    expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({
      status: 429,
      body: {
        success: false,
        error: 'You may place at most 2 calls a minute: try again in 35 seconds.',
      },
    });
  });
});

describe('calls per minute per account (DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT)', () => {
  it('an admin cannot set more: 422 naming it, nothing stored', async () => {
    await refusedAtPatch(
      { calls_per_minute_per_account: 4 },
      "The calls per minute per account may be at most 3, this server's limit.",
    );
    expect((await patchDialPolicy({ calls_per_minute_per_account: 3 })).statusCode).toBe(200);
  });

  it('the stored 10,000 is applied and shown as 3', async () => {
    expect((await shownPolicy()).calls_per_minute_per_account).toBe(3);
    await placedAndHungUp(f.agent1, '+1 555 010 2201');
    await placedAndHungUp(f.agent2, '+1 555 010 2202');
    await placedAndHungUp(f.supervisor, '+1 555 010 2203');
    await ageDials(40);
    const res = await newCall(f.agent1, '+1 555 010 2204');
    expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({
      status: 429,
      body: {
        success: false,
        error: 'Your account may place at most 3 calls a minute: try again in 20 seconds.',
      },
    });
  });
});

describe('SMS per hour (DIAL_MAX_SMS_PER_HOUR)', () => {
  it('an admin cannot set more, for the account or an agent: 422 naming it, nothing stored', async () => {
    await refusedAtPatch(
      { sms_per_hour_per_account: 3 },
      "The texts per hour per account may be at most 2, this server's limit.",
    );
    await refusedAtPatch(
      { sms_per_hour_per_agent: 3 },
      "The texts per hour per agent may be at most 2, this server's limit.",
    );
    expect((await patchDialPolicy({ sms_per_hour_per_account: 2 })).statusCode).toBe(200);
  });

  it('the stored 10,000 is applied and shown as 2', async () => {
    expect(await shownPolicy()).toMatchObject({
      sms_per_hour_per_agent: 2,
      sms_per_hour_per_account: 2,
    });
    const call1 = (await f.liveCall(f.agent1)).call;
    await f.endCall(call1);
    const call2 = (await f.liveCall(f.agent2)).call;
    await f.endCall(call2);
    const text = (agent: Agent, callId: number) =>
      authed(agent, `/apps/webrtc/${callId}/sms`, { smsbody: 'Sorry we missed you' });
    expect((await text(f.agent1, call1.id)).json()).toEqual({ success: true });
    expect((await text(f.agent2, call2.id)).json()).toEqual({ success: true });
    await f.t.database.db.execute(
      sql`update sms_messages set created_at = now() - interval '15 minutes'
          where created_at > now() - interval '2 hours'`,
    );
    const before = await fingerprint(f.t.database.db);
    const res = await text(f.agent2, call2.id);
    expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({
      status: 429,
      body: {
        success: false,
        error: 'Your account may send at most 2 texts an hour: try again in 45 minutes.',
      },
    });
    expect(await fingerprint(f.t.database.db)).toEqual(before);
  });
});

describe('an account the ceiling leaves no country', () => {
  it('is named, with the countries it would call, so the start can tell the operator', async () => {
    const { db } = f.t.database;
    const made = await db
      .insert(accounts)
      .values([
        { name: 'Berlin Sales', countryCode: 'DE' },
        { name: 'Paris and Boston', countryCode: 'FR', policy: { call_countries: ['FR', 'US'] } },
        { name: 'Lyon only', countryCode: 'US', policy: { call_countries: ['FR'] } },
      ])
      .returning({ id: accounts.id });
    const [berlin, , lyon] = made.map((row) => row.id);
    const nowhere = await new DialGuard({ db, ceiling: CEILING }).accountsCallingNowhere();
    expect(nowhere).toEqual([
      { id: berlin, name: 'Berlin Sales', countries: ['DE'] },
      { id: lyon, name: 'Lyon only', countries: ['FR'] },
    ]);
    expect(callingNowhereWarning(nowhere[0]!)).toBe(
      `The account ${berlin} (Berlin Sales) calls DE, which DIAL_ALLOWED_COUNTRIES does not allow: its agents can call and text nobody. Add its countries to DIAL_ALLOWED_COUNTRIES on every instance (docs/deployment.md), or change its policy's call countries.`,
    );
    // With the countries allowed, nobody is left out.
    const wider = { ...CEILING, countries: new Set(['US', 'GB', 'DE', 'FR']) };
    expect(await new DialGuard({ db, ceiling: wider }).accountsCallingNowhere()).toEqual([]);
    await db.delete(accounts).where(
      inArray(
        accounts.id,
        made.map((row) => row.id),
      ),
    );
  });
});
