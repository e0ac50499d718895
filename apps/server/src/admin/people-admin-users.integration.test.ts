/**
 * The admin API of users (issue 37) on the endpoint fixture (account A, the demo, and B = 6671),
 * through `fastify.inject` against a real database: lists, creation and change, each sentence
 * of a refused body, 403 for agents and supervisors, 409 for an e-mail taken in any case, 404
 * for another account's user, the audit entry of each write (none when it is refused), the
 * last-admin rule (also two admins demoted at once), and what deactivation does: the user's
 * session no longer answers, their login is refused as a wrong password is, routing leaves them
 * out; reactivated, they log in again.
 */
import { count, eq, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_FAILED_MESSAGE, type AdminAuditEntry, type AdminUser } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import { routingCandidates } from '../routing/routing-repo';
import { auditLog, teamMembers, teams, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { fingerprint } from '../test-support/db-fingerprint';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';
import { login, type Agent } from '../test-support/test-app';

let f: Fixture;
let admin: Agent;
let teamA: number;
let teamB: number;

beforeAll(async () => {
  f = await startFixture();
  const { db } = f.t.database;
  await db.insert(users).values({
    accountId: 1,
    email: 'ada.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Ada Admin',
    role: 'admin',
  });
  admin = await login(f.t.app, 'ada.admin@example.com');
  const [a] = await db.insert(teams).values({ accountId: 1, name: 'Closers' }).returning();
  const [b] = await db.insert(teams).values({ accountId: ACCOUNT_B, name: 'B team' }).returning();
  teamA = a!.id;
  teamB = b!.id;
}, 60_000);
afterAll(() => f.t.close());

const inject = (options: InjectOptions) => f.t.app.inject(options);
const auditCount = async () => (await f.t.database.db.select({ n: count() }).from(auditLog))[0]!.n;

/** A request that must be refused with `status` and change nothing, audit log included. */
async function refused(options: InjectOptions, status: number): Promise<{ error: string }> {
  const before = [await fingerprint(f.t.database.db), await auditCount()];
  const res = await inject(options);
  expect(res.statusCode, res.body).toBe(status);
  expect([await fingerprint(f.t.database.db), await auditCount()]).toEqual(before);
  return res.json();
}

const post = (payload: unknown, as: Agent = admin): InjectOptions => ({
  method: 'POST',
  url: '/api/v1/admin/users',
  headers: f.auth(as),
  payload: payload as Record<string, unknown>,
});
const patch = (id: number, payload: unknown, as: Agent = admin): InjectOptions => ({
  method: 'PATCH',
  url: `/api/v1/admin/users/${id}`,
  headers: f.auth(as),
  payload: payload as Record<string, unknown>,
});

/** The newest audit entries of account A, through the API. */
async function latestAudit(): Promise<AdminAuditEntry[]> {
  const res = await inject({ method: 'GET', url: '/api/v1/admin/audit', headers: f.auth(admin) });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: AdminAuditEntry[] }>().data;
}

let emailCounter = 0;
const newEmail = () => `new.person${++emailCounter}@example.com`;
const STRONG = 'a-strong-password-42';

describe('GET /api/v1/admin/users', () => {
  it("lists the account's users by name, with roles, teams and whether active", async () => {
    const res = await inject({ method: 'GET', url: '/api/v1/admin/users', headers: f.auth(admin) });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: AdminUser[]; meta: Record<string, number> }>();
    const emails = body.data.map((u) => u.email);
    expect(emails).toEqual(
      expect.arrayContaining([
        'agent1@example.com',
        'agent2@example.com',
        'supervisor@example.com',
        'basic@example.com',
        'ada.admin@example.com',
      ]),
    );
    expect(emails).not.toContain(`agent@a${ACCOUNT_B}.example.com`);
    const names = body.data.map((u) => u.full_name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(body.meta).toMatchObject({ current_page: 1, per_page: 25, total: body.data.length });
    const ada = body.data.find((u) => u.email === 'ada.admin@example.com')!;
    expect(ada).toMatchObject({ role: 'admin', active: true, team_ids: [], sso_bound: false });
  });

  it('searches names and e-mails without regard to case, and pages', async () => {
    const byEmail = await inject({
      method: 'GET',
      url: '/api/v1/admin/users?search=SUPERVISOR@',
      headers: f.auth(admin),
    });
    expect(byEmail.json<{ data: AdminUser[] }>().data.map((u) => u.email)).toEqual([
      'supervisor@example.com',
    ]);
    const byName = await inject({
      method: 'GET',
      url: '/api/v1/admin/users?search=basil',
      headers: f.auth(admin),
    });
    expect(byName.json<{ data: AdminUser[] }>().data.map((u) => u.email)).toEqual([
      'basic@example.com',
    ]);
    const page2 = await inject({
      method: 'GET',
      url: '/api/v1/admin/users?page=2',
      headers: f.auth(admin),
    });
    expect(page2.json<{ data: AdminUser[] }>().data).toEqual([]);
    const bad = await inject({
      method: 'GET',
      url: '/api/v1/admin/users?page=0',
      headers: f.auth(admin),
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ error: 'The page must be at least 1.' });
  });

  it('is for admins only: 403 for an agent and a supervisor, 401 without a session', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      const res = await inject({ method: 'GET', url: '/api/v1/admin/users', headers: f.auth(who) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Only an administrator of this account can do this.' });
    }
    const anonymous = await inject({ method: 'GET', url: '/api/v1/admin/users' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('POST /api/v1/admin/users', () => {
  it('creates an agent (201 {data}) who can then log in, with the audit entry (password redacted)', async () => {
    const email = newEmail();
    const res = await inject(
      post({
        full_name: '  Nina New ',
        email,
        password: STRONG,
        role: 'agent',
        permissions: ['app-sms', 'app-sms', 'app-retry'],
        team_ids: [teamA],
        phone_number: '(555) 010-4242',
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const { data } = res.json<{ data: AdminUser }>();
    expect(data).toMatchObject({
      full_name: 'Nina New',
      email,
      role: 'agent',
      permissions: ['app-sms', 'app-retry'],
      team_ids: [teamA],
      phone_number: '+15550104242',
      country_code: 'US',
      active: true,
      sso_bound: false,
    });
    expect(data.id).toBeGreaterThan(0);
    const ok = await inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: email.toUpperCase(), password: STRONG },
    });
    expect(ok.statusCode).toBe(200);
    const [entry] = await latestAudit();
    expect(entry).toMatchObject({
      actor: { id: admin.userId, full_name: 'Ada Admin' },
      action: 'user.create',
      target: `user:${data.id}`,
    });
    expect(entry!.changes).toMatchObject({
      email: [null, email],
      role: [null, 'agent'],
      password: [null, '[redacted]'],
    });
    expect(JSON.stringify(entry)).not.toContain(STRONG);
  });

  it("gives a new user the account's CRM defaults unless the admin gives their own", async () => {
    await f.t.database.db.execute(
      sql`update accounts set policy = policy || '{"crm_defaults":{"hubspot_id":"777","salesforce_domain":"acme.my.salesforce.com"}}'::jsonb where id = 1`,
    );
    try {
      const res = await inject(
        post({
          full_name: 'Crm Default',
          email: newEmail(),
          role: 'agent',
          integrations: { salesforce_domain: 'own.my.salesforce.com' },
        }),
      );
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<{ data: AdminUser }>().data.integrations).toEqual({
        hubspot_id: '777',
        salesforce_domain: 'own.my.salesforce.com',
        activecampaign_domain: null,
      });
    } finally {
      await f.t.database.db.execute(
        sql`update accounts set policy = policy - 'crm_defaults' where id = 1`,
      );
    }
  });

  it('without a password, the user cannot log in with one (single sign-on only)', async () => {
    const email = newEmail();
    const res = await inject(post({ full_name: 'Sso Only', email, role: 'supervisor' }));
    expect(res.statusCode).toBe(201);
    for (const password of ['', 'leadline-demo', '!sso-only']) {
      const attempt = await inject({
        method: 'POST',
        url: '/api/v1/user/login',
        payload: { email, password: password || 'x' },
      });
      expect(attempt.statusCode).toBe(401);
    }
  });

  it.each([
    [
      { full_name: 'Weak', email: 'weak1@example.com', role: 'agent', password: 'short' },
      'The password must be at least 12 characters.',
    ],
    [
      {
        full_name: 'Weak',
        email: 'weakling@example.com',
        role: 'agent',
        password: 'weakling-2024-pass',
      },
      'The password may not contain the e-mail address.',
    ],
    [
      { full_name: 'Weak', email: 'weak3@example.com', role: 'agent', password: '111111111111111' },
      'The password must use at least 5 different characters.',
    ],
    [{ email: 'x1@example.com', role: 'agent' }, 'The full name field is required.'],
    [
      { full_name: 'X', email: 'not-an-address', role: 'agent' },
      'The email must be a valid email address.',
    ],
    [
      { full_name: 'X', email: 'x2@example.com', role: 'owner' },
      'The role must be admin, supervisor or agent.',
    ],
    [
      { full_name: 'X', email: 'x3@example.com', role: 'agent', permissions: ['fly'] },
      'The permissions may only be app-sms, app-retry, app-autoaccept, listen, whisper, barge.',
    ],
    [
      { full_name: 'X', email: 'x4@example.com', role: 'agent', phone_number: 'call me' },
      'The phone number is not a valid phone number.',
    ],
    [
      { full_name: 'X', email: 'x5@example.com', role: 'agent', country_code: 'USA' },
      'The country code must be two letters (ISO 3166-1), such as US.',
    ],
    [
      { full_name: 'X', email: 'x6@example.com', role: 'agent', active: 'yes' },
      'The active field must be true or false.',
    ],
  ])('refuses %j with its sentence (422), nothing written', async (payload, sentence) => {
    expect(await refused(post(payload), 422)).toEqual({ error: sentence });
  });

  it('refuses a team of another account (422 naming it), nothing written', async () => {
    const body = await refused(
      post({ full_name: 'X', email: newEmail(), role: 'agent', team_ids: [teamA, teamB] }),
      422,
    );
    expect(body).toEqual({ error: `The team ${teamB} does not exist.` });
  });

  it('refuses an e-mail another user has, in another case or another account (409)', async () => {
    for (const email of ['AGENT1@Example.COM', `Agent@A${ACCOUNT_B}.example.com`]) {
      const body = await refused(post({ full_name: 'Dup', email, role: 'agent' }), 409);
      expect(body).toEqual({ error: 'A user with this email already exists.' });
    }
  });

  it('two creations of one e-mail at once: one is made (one audit entry), the other is 409', async () => {
    const email = newEmail();
    const before = await auditCount();
    const answers = await Promise.all(
      [email, email.toUpperCase()].map((e) =>
        inject(post({ full_name: 'Racer', email: e, role: 'agent', password: STRONG })),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect(await auditCount()).toBe(before + 1);
  });

  it('is refused for agents and supervisors (403) and without the CSRF token (403), nothing written', async () => {
    const payload = { full_name: 'X', email: newEmail(), role: 'admin' };
    for (const who of [f.agent1, f.supervisor]) {
      expect(await refused(post(payload, who), 403)).toEqual({
        error: 'Only an administrator of this account can do this.',
      });
    }
    const { 'x-csrf-token': _csrf, ...headers } = f.auth(admin);
    await refused({ ...post(payload), headers }, 403);
  });
});

describe('PATCH /api/v1/admin/users/{id}', () => {
  let userId: number;
  let email: string;

  beforeAll(async () => {
    email = newEmail();
    const res = await inject(
      post({ full_name: 'Pat Patch', email, role: 'agent', password: STRONG, team_ids: [teamA] }),
    );
    userId = res.json<{ data: AdminUser }>().data.id;
  });

  it('changes only the fields given, and audits the difference', async () => {
    const res = await inject(
      patch(userId, {
        full_name: 'Pat Patched',
        role: 'supervisor',
        permissions: ['listen'],
        team_ids: [],
      }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: AdminUser }>().data).toMatchObject({
      id: userId,
      full_name: 'Pat Patched',
      email,
      role: 'supervisor',
      permissions: ['listen'],
      team_ids: [],
      active: true,
    });
    const members = await f.t.database.db
      .select()
      .from(teamMembers)
      .where(eq(teamMembers.userId, userId));
    expect(members).toEqual([]);
    const [entry] = await latestAudit();
    expect(entry).toMatchObject({ action: 'user.update', target: `user:${userId}` });
    expect(entry!.changes).toEqual({
      full_name: ['Pat Patch', 'Pat Patched'],
      role: ['agent', 'supervisor'],
      permissions: [[], ['listen']],
      team_ids: [[teamA], []],
    });
  });

  it('a new password ends the user’s sessions and is audited redacted', async () => {
    const session = await inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email, password: STRONG },
    });
    const cookie = `leadline_session=${session.cookies.find((c) => c.name === 'leadline_session')!.value}`;
    const res = await inject(patch(userId, { password: 'another-strong-one-7' }));
    expect(res.statusCode, res.body).toBe(200);
    const me = await inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } });
    expect(me.statusCode).toBe(401);
    const [entry] = await latestAudit();
    expect(entry!.changes).toEqual({ password: ['[redacted]', '[redacted]'] });
  });

  it.each([
    [{ email: 'nope' }, 'The email must be a valid email address.'],
    [{ full_name: '   ' }, 'The full name field is required.'],
    [{ role: 'boss' }, 'The role must be admin, supervisor or agent.'],
    [{ password: '12345678901234' }, 'The password may not be only digits.'],
    [{ team_ids: [0] }, 'The team id must be a positive number.'],
    [{ unknown_field: 1 }, 'Unrecognized key: "unknown_field".'],
  ])('refuses %j with its sentence (422), nothing written', async (payload, sentence) => {
    const body = await refused(patch(userId, payload), 422);
    expect(body.error).toBe(sentence);
  });

  it('refuses an e-mail another user has, in any case (409); its own in another case is fine', async () => {
    expect(await refused(patch(userId, { email: 'Agent2@Example.com' }), 409)).toEqual({
      error: 'A user with this email already exists.',
    });
    const res = await inject(patch(userId, { email: email.toUpperCase() }));
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: AdminUser }>().data.email).toBe(email.toUpperCase());
  });

  it("answers 404 for another account's user and a missing one, nothing written", async () => {
    for (const id of [f.agentB.userId, 999_999]) {
      expect(await refused(patch(id, { full_name: 'Taken Over' }), 404)).toEqual({
        error: 'User not found.',
      });
    }
    expect(await refused(patch(userId, { team_ids: [teamB] }), 422)).toEqual({
      error: `The team ${teamB} does not exist.`,
    });
  });

  it('is refused for agents and supervisors (403)', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      await refused(patch(userId, { role: 'admin' }, who), 403);
    }
  });
});

describe('the last active admin', () => {
  beforeAll(async () => {
    // Ada is the account's only active admin (the seed may have made one of its own).
    await f.t.database.db.execute(
      sql`update users set role = 'agent' where account_id = 1 and role = 'admin' and id <> ${admin.userId}`,
    );
  });

  it('can be neither demoted nor deactivated (409), nothing written', async () => {
    for (const change of [
      { role: 'agent' },
      { active: false },
      { role: 'supervisor', active: false },
    ]) {
      expect(await refused(patch(admin.userId, change), 409)).toEqual({
        error: 'The account must keep at least one active administrator.',
      });
    }
  });

  it('two admins demoting each other at once: one succeeds, the other is refused', async () => {
    const res = await inject(
      post({
        full_name: 'Second Admin',
        email: newEmail(),
        role: 'admin',
        password: DEMO_PASSWORD,
      }),
    );
    const second = res.json<{ data: AdminUser }>().data;
    const secondLogin = await login(f.t.app, second.email);
    const answers = await Promise.all([
      inject(patch(second.id, { role: 'agent' }, admin)),
      inject(patch(admin.userId, { role: 'agent' }, secondLogin)),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    const admins = await f.t.database.db
      .select({ id: users.id })
      .from(users)
      .where(sql`${users.accountId} = 1 and ${users.role} = 'admin' and ${users.active}`);
    expect(admins).toHaveLength(1);
    // Put Ada back as the one admin for the tests after this one.
    const [survivor] = admins;
    if (survivor!.id !== admin.userId) {
      const restore = await inject(patch(admin.userId, { role: 'admin' }, secondLogin));
      expect(restore.statusCode).toBe(200);
    }
  });
});

describe('deactivation', () => {
  let target: AdminUser;
  let targetLogin: Agent;

  beforeAll(async () => {
    const res = await inject(
      post({
        full_name: 'Dee Activated',
        email: newEmail(),
        role: 'agent',
        password: DEMO_PASSWORD,
        team_ids: [teamA],
      }),
    );
    target = res.json<{ data: AdminUser }>().data;
    targetLogin = await login(f.t.app, target.email);
    f.t.telephony.emit({ type: 'device.online', identity: String(target.id) });
    await f.t.flows.idle();
  });

  it('ends their session at once, refuses their login as a wrong password, takes them out of routing, keeps their row', async () => {
    const eligible = async () =>
      (await routingCandidates(f.t.database.db, 1, teamA, new Date())).agents.map((a) => a.id);
    expect(await eligible()).toContain(target.id);

    const res = await inject(patch(target.id, { active: false }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: AdminUser }>().data).toMatchObject({ id: target.id, active: false });

    const me = await inject({ method: 'GET', url: '/api/v1/user', headers: f.auth(targetLogin) });
    expect(me.statusCode).toBe(401);
    const relogin = await inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: target.email, password: DEMO_PASSWORD },
    });
    expect(relogin.statusCode).toBe(401);
    expect(relogin.json()).toEqual({ success: false, error: LOGIN_FAILED_MESSAGE });

    expect(await eligible()).not.toContain(target.id);
    // The transfer panel's list leaves them out too.
    const agents = await inject({
      method: 'GET',
      url: '/api/v1/users/paginated?status=all&search=Dee',
      headers: f.auth(f.agent1),
    });
    expect(agents.json<{ data: Array<{ id: number }> }>().data).toEqual([]);

    const [row] = await f.t.database.db.select().from(users).where(eq(users.id, target.id));
    expect(row).toMatchObject({ active: false, isOnlineApp: false });
    const [entry] = await latestAudit();
    expect(entry).toMatchObject({
      action: 'user.deactivate',
      target: `user:${target.id}`,
      changes: { active: [true, false] },
    });
  });

  it('a session made for them anyway does not authenticate while they are inactive', async () => {
    const { cookie } = await new SessionStore(f.t.database.db, 3_600_000).create(target.id);
    const me = await inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie: `leadline_session=${cookie}` },
    });
    expect(me.statusCode).toBe(401);
  });

  it('reactivated, they log in again (audited as user.reactivate)', async () => {
    const res = await inject(patch(target.id, { active: true }));
    expect(res.statusCode).toBe(200);
    const again = await login(f.t.app, target.email);
    expect(again.userId).toBe(target.id);
    const [entry] = await latestAudit();
    expect(entry).toMatchObject({ action: 'user.reactivate', changes: { active: [false, true] } });
  });
});
