import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startTestApp, type TestApp } from '../test-support/test-app';

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
    const behindProxy = await startTestApp({ trustProxy: true });
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
