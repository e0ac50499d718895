/**
 * The admin API of the account and the audit log (issue 37) on the endpoint fixture: the account
 * read with its effective dial policy (the server's defaults where the policy sets none: its own
 * country, 10 and 120 calls a minute, 60 and 600 texts an hour, issue 36), changed field by
 * field with each change holding at the next request (no restart): the console's account
 * behaviours, single sign-on only, CRM defaults for new users; each sentence of a refused body;
 * 403 for agents and supervisors; the audit entries, newest first, paged, of the admin's account
 * only, the command line's and the seed's without an actor.
 */
import { count, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAccount, AdminAuditEntry, AdminUser, User } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import { accounts, auditLog, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { fingerprint } from '../test-support/db-fingerprint';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';
import { login, type Agent } from '../test-support/test-app';
import { appendAudit, SYSTEM_ACTOR } from './audit';
import { createAdminTeam } from './admin-teams';

let f: Fixture;
let admin: Agent;
/** The admin of account 9920, whose policy is left empty (every default applies). */
let plainAdmin: Agent;

async function addAdmin(accountId: number, email: string, fullName: string): Promise<Agent> {
  await f.t.database.db.insert(users).values({
    accountId,
    email,
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName,
    role: 'admin',
  });
  return login(f.t.app, email);
}

beforeAll(async () => {
  f = await startFixture();
  admin = await addAdmin(1, 'acca.admin@example.com', 'Acca Admin');
  await f.t.database.db.update(accounts).set({ policy: {} }).where(eq(accounts.id, 9920));
  plainAdmin = await addAdmin(9920, 'plain.admin@a9920.example.com', 'Plain Admin');
}, 60_000);
afterAll(() => f.t.close());

const inject = (options: InjectOptions) => f.t.app.inject(options);
const auditCount = async () => (await f.t.database.db.select({ n: count() }).from(auditLog))[0]!.n;

async function refused(options: InjectOptions, status: number): Promise<{ error: string }> {
  const before = [await fingerprint(f.t.database.db), await auditCount()];
  const res = await inject(options);
  expect(res.statusCode, res.body).toBe(status);
  expect([await fingerprint(f.t.database.db), await auditCount()]).toEqual(before);
  return res.json();
}

const getAccount = async (as: Agent = admin) => {
  const res = await inject({ method: 'GET', url: '/api/v1/admin/account', headers: f.auth(as) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AdminAccount }>().data;
};
const patchAccount = (payload: unknown, as: Agent = admin): InjectOptions => ({
  method: 'PATCH',
  url: '/api/v1/admin/account',
  headers: f.auth(as),
  payload: payload as Record<string, unknown>,
});
async function changed(payload: unknown): Promise<AdminAccount> {
  const res = await inject(patchAccount(payload));
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AdminAccount }>().data;
}
async function audit(query = '', as: Agent = admin) {
  const res = await inject({
    method: 'GET',
    url: `/api/v1/admin/audit${query}`,
    headers: f.auth(as),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AdminAuditEntry[]; meta: Record<string, number> }>();
}

describe('GET /api/v1/admin/account', () => {
  it('shows an account without a policy with the dial defaults filled in', async () => {
    expect(await getAccount(plainAdmin)).toEqual({
      id: 9920,
      name: expect.any(String) as string,
      country_code: 'US',
      time_zone: 'UTC',
      settings: expect.any(Object) as object,
      single_sign_on: { enabled: false, domain: null, sso_only: false },
      dial_policy: {
        call_countries: ['US'],
        calls_per_minute_per_agent: 10,
        calls_per_minute_per_account: 120,
        sms_per_hour_per_agent: 60,
        sms_per_hour_per_account: 600,
      },
      session_idle_minutes: null,
      service_level_seconds: 20,
      crm_defaults: { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
    });
  });

  it("shows the admin's own account with what its policy sets", async () => {
    const account = await getAccount();
    expect(account.id).toBe(admin.accountId);
    // The fixture's limits (no endpoint test reaches them).
    expect(account.dial_policy).toMatchObject({
      calls_per_minute_per_agent: 10_000,
      sms_per_hour_per_account: 10_000,
    });
  });

  it('is for admins only (403 for an agent and a supervisor)', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      const res = await inject({
        method: 'GET',
        url: '/api/v1/admin/account',
        headers: f.auth(who),
      });
      expect(res.statusCode).toBe(403);
    }
  });
});

describe('PATCH /api/v1/admin/account', () => {
  it('changes name, country and time zone; audited', async () => {
    const before = await getAccount();
    const after = await changed({
      name: 'Acme Solar West',
      country_code: 'ca',
      time_zone: 'America/Toronto',
    });
    expect(after).toMatchObject({
      name: 'Acme Solar West',
      country_code: 'CA',
      time_zone: 'America/Toronto',
    });
    expect(await getAccount()).toEqual(after);
    const [entry] = (await audit()).data;
    expect(entry).toMatchObject({
      actor: { id: admin.userId, full_name: 'Acca Admin' },
      action: 'account.update',
      target: `account:${admin.accountId}`,
      changes: {
        name: [before.name, 'Acme Solar West'],
        country_code: [before.country_code, 'CA'],
        time_zone: [before.time_zone, 'America/Toronto'],
      },
    });
    await changed({ country_code: before.country_code });
  });

  it("an account behaviour reaches the agents' console at its next load", async () => {
    await changed({ settings: { hide_lead_email: true } });
    const me = await inject({ method: 'GET', url: '/api/v1/user', headers: f.auth(f.agent1) });
    expect(me.json<{ user: User }>().user.settings.hide_lead_email).toBe(true);
    await changed({ settings: { hide_lead_email: false } });
    const again = await inject({ method: 'GET', url: '/api/v1/user', headers: f.auth(f.agent1) });
    expect(again.json<{ user: User }>().user.settings.hide_lead_email).toBe(false);
  });

  it('single sign-on only refuses password logins at once; the domain is kept in lower case', async () => {
    const after = await changed({ single_sign_on: { sso_only: true, domain: 'Example.COM' } });
    expect(after.single_sign_on).toMatchObject({ sso_only: true, domain: 'example.com' });
    const refusedLogin = await inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent2@example.com', password: DEMO_PASSWORD },
    });
    expect(refusedLogin.statusCode).toBe(403);
    await changed({ single_sign_on: { sso_only: false, domain: null } });
    const [row] = await f.t.database.db.select().from(accounts).where(eq(accounts.id, 1));
    expect(row!.policy.sso_only).toBe(false);
    expect(row!.ssoDomain).toBeNull();
  });

  it('changes the dial policy field by field, keeping the others', async () => {
    const after = await changed({
      dial_policy: { call_countries: ['us', 'mx', 'US'], calls_per_minute_per_agent: 5 },
    });
    expect(after.dial_policy).toEqual({
      call_countries: ['MX', 'US'],
      calls_per_minute_per_agent: 5,
      calls_per_minute_per_account: 10_000,
      sms_per_hour_per_agent: 10_000,
      sms_per_hour_per_account: 10_000,
    });
    const [row] = await f.t.database.db.select().from(accounts).where(eq(accounts.id, 1));
    expect(row!.policy).toMatchObject({
      call_countries: ['US', 'MX'],
      calls_per_minute_per_agent: 5,
    });
    await changed({ dial_policy: { calls_per_minute_per_agent: 1000 } });
  });

  it('sets and clears the session idle timeout', async () => {
    expect((await changed({ session_idle_minutes: 30 })).session_idle_minutes).toBe(30);
    expect((await changed({ session_idle_minutes: null })).session_idle_minutes).toBeNull();
    const [row] = await f.t.database.db.select().from(accounts).where(eq(accounts.id, 1));
    expect(row!.policy).not.toHaveProperty('session_idle_minutes');
  });

  it("sets the service level threshold: audited, and the floor's figures use it at once", async () => {
    const floor = async () => {
      const res = await inject({ method: 'GET', url: '/api/v1/floor', headers: f.auth(admin) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ kpis: { service_level_seconds: number } }>().kpis;
    };
    expect((await floor()).service_level_seconds).toBe(20);
    expect((await changed({ service_level_seconds: 45 })).service_level_seconds).toBe(45);
    expect((await getAccount()).service_level_seconds).toBe(45);
    expect((await floor()).service_level_seconds).toBe(45);
    const [entry] = (await audit()).data;
    expect(entry!.changes).toEqual({ service_level_seconds: [20, 45] });
    await changed({ service_level_seconds: 20 });
  });

  it('CRM defaults go to the users created after', async () => {
    const after = await changed({ crm_defaults: { hubspot_id: '4242' } });
    expect(after.crm_defaults).toEqual({
      hubspot_id: '4242',
      salesforce_domain: null,
      activecampaign_domain: null,
    });
    const res = await inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers: f.auth(admin),
      payload: { full_name: 'Crm Kid', email: 'crm.kid@example.com', role: 'agent' },
    });
    expect(res.json<{ data: AdminUser }>().data.integrations.hubspot_id).toBe('4242');
    await changed({ crm_defaults: { hubspot_id: null } });
  });

  it.each([
    [{ name: '' }, 'The name field is required.'],
    [{ country_code: 'USA' }, 'The country code must be two letters (ISO 3166-1), such as US.'],
    [
      { time_zone: 'Mars/Olympus' },
      'The time zone must be an IANA time zone, such as America/New_York.',
    ],
    [
      { settings: { hide_lead_email: 'yes' } },
      'The settings.hide_lead_email field: Invalid input: expected boolean, received string.',
    ],
    [
      { single_sign_on: { domain: 'not a domain' } },
      'The domain must be a domain such as example.com.',
    ],
    [
      { dial_policy: { call_countries: [] } },
      'The call countries must name at least one country agents may call.',
    ],
    [
      { dial_policy: { calls_per_minute_per_agent: 0 } },
      'The calls per minute per agent must be at least 1.',
    ],
    [
      { dial_policy: { sms_per_hour_per_account: 200_000 } },
      'The texts per hour per account may be at most 100,000.',
    ],
    [{ session_idle_minutes: 1 }, 'The session idle minutes must be at least 5.'],
    [{ service_level_seconds: 0 }, 'The service level seconds must be at least 1.'],
    [{ service_level_seconds: 3601 }, 'The service level seconds may be at most 3,600 (an hour).'],
    [{ service_level_seconds: 2.5 }, 'The service level seconds must be a whole number.'],
    [{ owner: 'me' }, 'Unrecognized key: "owner".'],
  ])('refuses %j with its sentence (422), nothing written', async (payload, sentence) => {
    expect(await refused(patchAccount(payload), 422)).toEqual({ error: sentence });
  });

  it('is refused for agents and supervisors (403), nothing written', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      expect(await refused(patchAccount({ name: 'Taken over' }, who), 403)).toEqual({
        error: 'Only an administrator of this account can do this.',
      });
    }
  });
});

describe('GET /api/v1/admin/audit', () => {
  it('shows the newest first; the command line and the seed (no actor) with actor null', async () => {
    await createAdminTeam(f.t.database.db, SYSTEM_ACTOR, 1, { name: 'Made by the system' });
    const [entry] = (await audit()).data;
    expect(entry).toMatchObject({
      actor: null,
      action: 'team.create',
      changes: { name: [null, 'Made by the system'] },
    });
    expect(new Date(entry!.at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("pages 25 entries at a time, of the admin's own account only, and searches", async () => {
    const { db } = f.t.database;
    for (let i = 0; i < 30; i++) {
      await appendAudit(db, {
        accountId: 1,
        actor: { userId: admin.userId },
        action: 'test.entry',
        target: `thing:${i}`,
        changes: {},
      });
    }
    await appendAudit(db, {
      accountId: ACCOUNT_B,
      actor: SYSTEM_ACTOR,
      action: 'test.other-account',
      target: 'thing:b',
      changes: {},
    });
    const first = await audit('?search=test.');
    expect(first.meta).toMatchObject({ current_page: 1, last_page: 2, per_page: 25, total: 30 });
    expect(first.data.map((e) => e.target).slice(0, 3)).toEqual([
      'thing:29',
      'thing:28',
      'thing:27',
    ]);
    const second = await audit('?search=test.&page=2');
    expect(second.data.map((e) => e.target)).toEqual([
      'thing:4',
      'thing:3',
      'thing:2',
      'thing:1',
      'thing:0',
    ]);
    const everything = await audit('?search=other-account');
    expect(everything.data).toEqual([]);
  });

  it('is for admins only (403), and refuses a bad page (422)', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      const res = await inject({ method: 'GET', url: '/api/v1/admin/audit', headers: f.auth(who) });
      expect(res.statusCode).toBe(403);
    }
    const res = await inject({
      method: 'GET',
      url: '/api/v1/admin/audit?page=x',
      headers: f.auth(admin),
    });
    expect(res.statusCode).toBe(422);
  });
});
