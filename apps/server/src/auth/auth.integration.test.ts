import { eq } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, loginThrottle, sessions, users } from '../db/schema';
import { fingerprint } from '../test-support/db-fingerprint';
import { login, startTestApp, type Agent, type TestApp } from '../test-support/test-app';
import { LoginThrottle } from './login-throttle';
import { hashPassword, needsRehash } from './password';
import { SessionStore } from './sessions';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('login', () => {
  it('refuses a wrong password with the spec text, and sets no cookie', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent1@example.com', password: 'wrong' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, error: 'Your login credentials are invalid.' });
    expect(res.cookies).toHaveLength(0);
  });

  it('refuses an unknown e-mail the same way', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'nobody@example.com', password: 'leadline-demo' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, error: 'Your login credentials are invalid.' });
  });

  it('signs in with an httpOnly, SameSite=Lax session cookie (case-insensitive e-mail)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'Agent1@Example.com', password: 'leadline-demo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    const cookie = res.cookies.find((c) => c.name === 'leadline_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.secure).toBeUndefined();
  });

  it('marks the cookie Secure behind TLS (a TLS-terminating proxy, trusted)', async () => {
    const behindProxy = await startTestApp({ trustProxy: ['127.0.0.1'] });
    try {
      const res = await behindProxy.app.inject({
        method: 'POST',
        url: '/api/v1/user/login',
        payload: { email: 'agent1@example.com', password: 'leadline-demo' },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.cookies.find((c) => c.name === 'leadline_session')!.secure).toBe(true);
    } finally {
      await behindProxy.close();
    }
  });

  it('validates the body with a sentence naming the field', async () => {
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'a@b.co' },
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ error: 'The password field is required.' });
    const badEmail = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'not-an-email', password: 'x' },
    });
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.json()).toEqual({ error: 'The email must be a valid email address.' });
  });

  it('gives a new session at every login and ends the previous one', async () => {
    const first = await login(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent1@example.com', password: 'leadline-demo' },
      headers: { cookie: first.cookie },
    });
    const second = res.cookies.find((c) => c.name === 'leadline_session')!.value;
    expect(`leadline_session=${second}`).not.toBe(first.cookie);
    const old = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie: first.cookie },
    });
    expect(old.statusCode).toBe(401);
  });
});

describe('the signed-in user', () => {
  it('is 401 without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/user?time=123' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, error: 'Unauthenticated.' });
  });

  it('returns the user, the account settings and the csrf token', async () => {
    const agent = await login(t.app);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/user?time=${Date.now()}`,
      headers: { cookie: agent.cookie },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      success: boolean;
      csrf_token: string;
      user: Record<string, unknown>;
    }>();
    expect(body.success).toBe(true);
    expect(body.csrf_token).toMatch(/^[\w-]{20,}$/);
    expect(body.user).toMatchObject({
      email: 'agent1@example.com',
      full_name: 'Alex Rivera',
      csrf_token: body.csrf_token,
      permissions: ['app-sms', 'app-retry', 'app-autoaccept'],
      country_code: 'US',
      settings: {},
    });
  });
});

describe('CSRF', () => {
  it('refuses a mutating request without X-CSRF-TOKEN (403) and changes nothing', async () => {
    const agent = await login(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout',
      headers: { cookie: agent.cookie },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json<{ error: string }>().error).toMatch(/CSRF token mismatch/);
    const still = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie: agent.cookie },
    });
    expect(still.statusCode).toBe(200);
  });

  it('refuses a wrong token (403)', async () => {
    const agent = await login(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout',
      headers: { cookie: agent.cookie, 'x-csrf-token': `${agent.csrf}x` },
    });
    expect(res.statusCode).toBe(403);
  });

  it('logs out with the token, and the session is gone', async () => {
    const agent = await login(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
    });
    expect(res.statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie: agent.cookie },
    });
    expect(after.statusCode).toBe(401);
  });
});

describe('request hygiene', () => {
  it('refuses an oversize body with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'a@b.co', password: 'x'.repeat(100_000) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'The request body is too large.' });
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'The request body is not valid JSON.' });
  });

  it('refuses a non-JSON body with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(res.statusCode).toBe(415);
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found.' });
  });

  it('serves /healthz', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });
});

describe('token2', () => {
  it('issues a Twilio-shaped access token naming the user', async () => {
    const agent = await login(t.app);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/twilio/token2?time=1',
      headers: { cookie: agent.cookie },
    });
    expect(res.statusCode).toBe(200);
    const { token } = res.json<{ token: string }>();
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256', cty: 'twilio-fpa;v=1' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ grants: { identity: String(agent.userId) } });
    expect(claims.exp! - claims.iat!).toBe(3600);
    await expect(t.tokens.verify(token)).resolves.toMatchObject({ identity: String(agent.userId) });
  });

  it('refuses a tampered or foreign token', async () => {
    await expect(t.tokens.verify('a.b.c')).rejects.toMatchObject({ reason: 'invalid' });
  });

  it('is 401 without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/twilio/token2' });
    expect(res.statusCode).toBe(401);
  });
});

// ── Issue 36 item 3: sign-in that can face the internet ────────────────────────────────────

const WRONG = { email: 'agent1@example.com', password: 'not-the-password' };
const RIGHT = { email: 'agent1@example.com', password: 'leadline-demo' };

/** A login attempt from `remoteAddress` (the connection's peer) with `headers`. */
const attempt = (
  app: TestApp['app'],
  payload: { email: string; password: string },
  remoteAddress: string,
  headers: Record<string, string> = {},
) => app.inject({ method: 'POST', url: '/api/v1/user/login', payload, remoteAddress, headers });

describe('the login throttle', () => {
  let throttled: TestApp;
  let waits: number[];
  beforeAll(async () => {
    waits = [];
    throttled = await startTestApp({
      trustProxy: ['127.0.0.1'],
      loginThrottle: (db) =>
        new LoginThrottle(db, {
          sleep: async (ms) => {
            waits.push(ms);
          },
        }),
    });
  });
  afterAll(() => throttled.close());

  it('after 10 wrong passwords from one address, refuses that address 15 minutes, the right password too, and changes nothing', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await attempt(throttled.app, WRONG, '127.0.0.2')).statusCode).toBe(401);
    }
    const before = await fingerprint(throttled.database.db);
    const counts = await throttled.database.db.select().from(loginThrottle);
    const refused = await attempt(throttled.app, RIGHT, '127.0.0.2');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      success: false,
      error: 'Too many login attempts. Try again in 15 minutes.',
    });
    expect(refused.headers['retry-after']).toBe('900');
    expect(refused.cookies).toHaveLength(0);
    expect(await fingerprint(throttled.database.db)).toBe(before);
    expect(await throttled.database.db.select().from(loginThrottle)).toEqual(counts);
  });

  it('lets the right password in from an address without failures, after a wait of at most 5 s', async () => {
    waits.length = 0;
    const res = await attempt(throttled.app, RIGHT, '127.0.0.3');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    // The e-mail's delay: ten failures waited 4 s at most (the cap is 5 s).
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(5_000);
    // The locked-out address stays locked out: the success elsewhere did not clear it.
    expect((await attempt(throttled.app, RIGHT, '127.0.0.2')).statusCode).toBe(429);
  });

  it('behind a trusted proxy, keys on the X-Forwarded-For client, not on the proxy', async () => {
    const via = (client: string) => ({ 'x-forwarded-for': client });
    for (let i = 0; i < 10; i++) {
      const res = await attempt(throttled.app, WRONG, '127.0.0.1', via('203.0.113.7'));
      expect(res.statusCode).toBe(401);
    }
    expect((await attempt(throttled.app, RIGHT, '127.0.0.1', via('203.0.113.7'))).statusCode).toBe(
      429,
    );
    // Another client through the same proxy signs in.
    expect((await attempt(throttled.app, RIGHT, '127.0.0.1', via('198.51.100.4'))).statusCode).toBe(
      200,
    );
    // A client that is not the trusted proxy cannot choose its address with the header.
    expect((await attempt(throttled.app, RIGHT, '127.0.0.9', via('198.51.100.4'))).statusCode).toBe(
      200,
    );
    const [spoofed] = await throttled.database.db
      .select()
      .from(loginThrottle)
      .where(eq(loginThrottle.key, 'ip-email:127.0.0.9|agent1@example.com'));
    expect(spoofed).toBeUndefined();
  });
});

describe('password hashes', () => {
  it('are scrypt at N=2^17; an older hash is replaced at the next successful login', async () => {
    const { db } = t.database;
    const older = await hashPassword('leadline-demo', { N: 2 ** 14, r: 8, p: 1 });
    expect(older).toMatch(/^scrypt\$16384\$8\$1\$/);
    await db
      .update(users)
      .set({ passwordHash: older })
      .where(eq(users.email, 'agent2@example.com'));
    // A wrong password leaves it as it is.
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent2@example.com', password: 'nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const hashOf = async () =>
      (await db.select().from(users).where(eq(users.email, 'agent2@example.com')))[0]!.passwordHash;
    expect(await hashOf()).toBe(older);
    await login(t.app, 'agent2@example.com');
    const rehashed = await hashOf();
    expect(rehashed).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{88}$/);
    expect(needsRehash(rehashed)).toBe(false);
    // The new hash signs in, and is not made again.
    await login(t.app, 'agent2@example.com');
    expect(await hashOf()).toBe(rehashed);
  });
});

describe('the idle timeout', () => {
  const MINUTE = 60_000;
  let idle: TestApp;
  let now = Date.parse('2026-11-25T09:00:00Z');
  beforeAll(async () => {
    idle = await startTestApp({
      sessions: (db) =>
        new SessionStore(db, 24 * 60 * MINUTE, { idleMs: 60 * MINUTE, now: () => new Date(now) }),
    });
  });
  afterAll(() => idle.close());

  const me = (agent: Agent) =>
    idle.app.inject({ method: 'GET', url: '/api/v1/user', headers: { cookie: agent.cookie } });

  it('ends a session unused for SESSION_IDLE_MINUTES (60), counted from its last use', async () => {
    const agent = await login(idle.app);
    now += 59 * MINUTE;
    expect((await me(agent)).statusCode).toBe(200);
    // Used at minute 59: alive at 59 + 59 minutes, past a login's first hour.
    now += 59 * MINUTE;
    expect((await me(agent)).statusCode).toBe(200);
    now += 60 * MINUTE - 1;
    expect((await me(agent)).statusCode).toBe(200);
    now += 60 * MINUTE;
    const ended = await me(agent);
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toEqual({ success: false, error: 'Unauthenticated.' });
  });

  it("follows the account's session_idle_minutes", async () => {
    const agent = await login(idle.app);
    await idle.database.db
      .update(accounts)
      .set({ policy: { session_idle_minutes: 10 } })
      .where(eq(accounts.id, agent.accountId));
    try {
      now += 10 * MINUTE - 1;
      expect((await me(agent)).statusCode).toBe(200);
      now += 10 * MINUTE;
      expect((await me(agent)).statusCode).toBe(401);
    } finally {
      await idle.database.db
        .update(accounts)
        .set({ policy: {} })
        .where(eq(accounts.id, agent.accountId));
    }
  });

  it('writes the use at most once a minute, and never for a refused request', async () => {
    const agent = await login(idle.app);
    const seen = async () =>
      (await idle.database.db.select().from(sessions).where(eq(sessions.userId, agent.userId)))
        .map((row) => row.lastSeenAt.getTime())
        .sort()
        .at(-1);
    const loggedIn = await seen();
    now += 59_999;
    const before = await fingerprint(idle.database.db);
    expect((await me(agent)).statusCode).toBe(200);
    expect(await fingerprint(idle.database.db)).toBe(before);
    now += 1;
    // Refused (422): the session is not used by it.
    const refused = await idle.app.inject({
      method: 'PUT',
      url: '/api/v1/user/settings',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { autoaccept: 'maybe' },
    });
    expect(refused.statusCode).toBe(422);
    expect(await fingerprint(idle.database.db)).toBe(before);
    expect((await me(agent)).statusCode).toBe(200);
    expect(await seen()).toBe(loggedIn! + 60_000);
  });
});

describe('Log out everywhere', () => {
  const logoutEverywhere = (agent: Agent, csrf = true) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout-everywhere',
      headers: { cookie: agent.cookie, ...(csrf ? { 'x-csrf-token': agent.csrf } : {}) },
    });
  const status = async (agent: Agent) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/user', headers: { cookie: agent.cookie } }))
      .statusCode;

  it('is refused without the CSRF token (403) and without a session (401), changing nothing', async () => {
    const here = await login(t.app);
    const before = await fingerprint(t.database.db);
    const refused = await logoutEverywhere(here, false);
    expect(refused.statusCode).toBe(403);
    expect(refused.json<{ error: string }>().error).toMatch(/CSRF token mismatch/);
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/v1/user/logout-everywhere' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ success: false, error: 'Unauthenticated.' });
    expect(await fingerprint(t.database.db)).toBe(before);
    expect(await status(here)).toBe(200);
  });

  it("ends every session of the user, and only the user's", async () => {
    const here = await login(t.app);
    const elsewhere = await login(t.app);
    const colleague = await login(t.app, 'supervisor@example.com');
    const res = await logoutEverywhere(here);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    const cleared = res.cookies.find((c) => c.name === 'leadline_session');
    expect(cleared?.value).toBe('');
    expect(await status(here)).toBe(401);
    expect(await status(elsewhere)).toBe(401);
    expect(await status(colleague)).toBe(200);
    const left = await t.database.db
      .select()
      .from(sessions)
      .where(eq(sessions.userId, here.userId));
    expect(left).toEqual([]);
  });
});

describe('production: the demo’s published password', () => {
  /** A password of the operator's choosing, not the demo's. */
  const OWN_PASSWORD = 'violet harbour lantern 42';
  let production: TestApp;
  let admin: Agent;
  beforeAll(async () => {
    production = await startTestApp({ refuseDemoPassword: true });
    await production.database.db
      .update(users)
      .set({ passwordHash: await hashPassword(OWN_PASSWORD) })
      .where(eq(users.email, 'admin@example.com'));
    admin = await login(production.app, 'admin@example.com', OWN_PASSWORD);
  }, 60_000);
  afterAll(() => production?.close());

  const DEMO_REFUSAL = {
    success: false,
    error:
      "This password is the public demo's: it signs nobody in here. Ask your administrator for a new one.",
  };

  it('signs nobody in, though the user’s stored hash is of it; an e-mail nobody has gets the same answer', async () => {
    for (const email of ['agent1@example.com', 'nobody@example.com']) {
      const res = await production.app.inject({
        method: 'POST',
        url: '/api/v1/user/login',
        payload: { email, password: 'leadline-demo' },
      });
      expect(res.statusCode, email).toBe(403);
      expect(res.json()).toEqual(DEMO_REFUSAL);
      expect(res.cookies).toHaveLength(0);
    }
    // No session began: the admin's is the only one.
    const started = await production.database.db.select().from(sessions);
    expect(started.map((s) => s.userId)).toEqual([admin.userId]);
    // Any other wrong password is the usual refusal.
    const wrong = await production.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent1@example.com', password: 'not-the-password' },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it('is refused when an admin gives it, to a new user or an existing one: 422, nothing changes', async () => {
    const headers = { cookie: admin.cookie, 'x-csrf-token': admin.csrf };
    const before = await fingerprint(production.database.db);
    const created = await production.app.inject({
      method: 'POST',
      url: '/api/v1/admin/users',
      headers,
      payload: {
        full_name: 'Demo Copy',
        email: 'demo.copy@example.org',
        password: 'leadline-demo',
        role: 'agent',
        permissions: [],
        team_ids: [],
      },
    });
    expect(created.statusCode).toBe(422);
    expect(created.json()).toEqual({
      error: "The password may not be the public demo's (leadline-demo): choose another.",
    });
    const [agent2] = await production.database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, 'agent2@example.com'));
    const changed = await production.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/users/${agent2!.id}`,
      headers,
      payload: { password: 'leadline-demo' },
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toEqual(created.json());
    expect(await fingerprint(production.database.db)).toBe(before);
  });
});
