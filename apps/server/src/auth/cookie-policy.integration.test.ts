/**
 * Production's cookies and HSTS (issue 36, item 1): over a plain-HTTP request (as behind a proxy
 * that ends TLS and is not trusted), the session cookie is `__Host-leadline_session`, `Secure`,
 * `Path=/`; only that name signs a request in, a new login ends the session it replaces, logout
 * clears it; the single sign-on cookie is `__Host-leadline_sso` the same way and the callback
 * reads only that name; HSTS is on every answer. Embedded mode keeps the plain names and sends
 * no HSTS over plain HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSO_CALLBACK_PATH, SSO_LOGIN_PATH } from '@leadline/contracts';
import { DEMO_PASSWORD } from '../db/seed';
import {
  startTestProvider,
  TEST_CLIENT,
  type TestProvider,
} from '../test-support/oidc-test-provider';
import { startTestApp, type TestApp } from '../test-support/test-app';
import { SingleSignOn } from './single-sign-on';

const HSTS = 'max-age=31536000; includeSubDomains';

let provider: TestProvider;
let production: TestApp;
let embedded: TestApp;

beforeAll(async () => {
  provider = await startTestProvider();
  const settings = {
    issuer: provider.issuer,
    clientId: TEST_CLIENT.id,
    clientSecret: TEST_CLIENT.secret,
  };
  production = await startTestApp({
    httpsOnly: true,
    sso: (db) => new SingleSignOn({ db, provider: settings }),
  });
  embedded = await startTestApp();
  // No one signs in at the provider here: the tests stop at Leadline's side of the sign-on.
  provider.configure([`http://localhost${SSO_CALLBACK_PATH}`], {});
});

afterAll(async () => {
  await production?.close();
  await embedded?.close();
  await provider?.close();
});

/** Logs agent1 in over plain HTTP, sending `cookie` if given; the answer. */
const login = (app: TestApp, cookie?: string) =>
  app.app.inject({
    method: 'POST',
    url: '/api/v1/user/login',
    payload: { email: 'agent1@example.com', password: DEMO_PASSWORD },
    ...(cookie ? { headers: { cookie } } : {}),
  });

describe('in production', () => {
  it('the session cookie is __Host-leadline_session, Secure, Path=/, over plain HTTP too; HSTS is sent', async () => {
    const res = await login(production);
    expect(res.statusCode).toBe(200);
    expect(res.cookies).toHaveLength(1);
    expect(res.cookies[0]).toMatchObject({
      name: '__Host-leadline_session',
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
    });
    expect(res.cookies[0]).not.toHaveProperty('domain');
    expect(res.headers['strict-transport-security']).toBe(HSTS);
    const health = await production.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['strict-transport-security']).toBe(HSTS);
  });

  it('only the prefixed name signs a request in', async () => {
    const value = (await login(production)).cookies[0]!.value;
    const me = (cookie: string) =>
      production.app.inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } });
    expect((await me(`__Host-leadline_session=${value}`)).statusCode).toBe(200);
    const plain = await me(`leadline_session=${value}`);
    expect(plain.statusCode).toBe(401);
  });

  it('a new login ends the session of the cookie it replaces; logout clears the cookie', async () => {
    const first = (await login(production)).cookies[0]!.value;
    const second = await login(production, `__Host-leadline_session=${first}`);
    const cookie = `__Host-leadline_session=${second.cookies[0]!.value}`;
    const old = await production.app.inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie: `__Host-leadline_session=${first}` },
    });
    expect(old.statusCode).toBe(401);

    const me = await production.app.inject({
      method: 'GET',
      url: '/api/v1/user',
      headers: { cookie },
    });
    const csrf = me.json<{ csrf_token: string }>().csrf_token;
    const out = await production.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(out.statusCode).toBe(200);
    expect(out.cookies).toEqual([
      expect.objectContaining({
        name: '__Host-leadline_session',
        value: '',
        path: '/',
        secure: true,
      }),
    ]);
  });

  it('the single sign-on cookie is __Host-leadline_sso, and the callback reads only that name', async () => {
    const begin = await production.app.inject({ method: 'GET', url: SSO_LOGIN_PATH });
    expect(begin.statusCode).toBe(302);
    expect(begin.headers['strict-transport-security']).toBe(HSTS);
    const [sso] = begin.cookies;
    expect(sso).toMatchObject({
      name: '__Host-leadline_sso',
      path: '/',
      secure: true,
      httpOnly: true,
    });
    const callback = (cookie: string) =>
      production.app.inject({
        method: 'GET',
        url: `${SSO_CALLBACK_PATH}?error=access_denied&state=x`,
        headers: { cookie },
      });
    // Under the plain name the attempt is not found: as if this browser never started one.
    const plain = await callback(`leadline_sso=${sso!.value}`);
    expect(plain.headers.location).toBe('/?sso_error=expired');
    // Under its own name it is: the provider's refusal is what the agent is told.
    const own = await callback(`__Host-leadline_sso=${sso!.value}`);
    expect(own.headers.location).toBe('/?sso_error=provider_error');
    expect(own.cookies).toEqual([
      expect.objectContaining({ name: '__Host-leadline_sso', value: '', path: '/', secure: true }),
    ]);
  });
});

describe('in embedded mode', () => {
  it('the session cookie keeps its plain name, Secure only over TLS, and no HSTS over plain HTTP', async () => {
    const res = await login(embedded);
    expect(res.cookies[0]).toMatchObject({ name: 'leadline_session', path: '/' });
    expect(res.cookies[0]!.secure).toBeFalsy();
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});
