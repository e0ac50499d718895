/**
 * Single sign-on end to end over HTTP: Leadline listening on loopback, a real OpenID Connect
 * provider (oidc-provider, its own login and consent pages) on another port, and a small
 * browser (cookies per origin and path, redirects followed by hand) going between them.
 */
import { eq } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SSO_CALLBACK_PATH, SSO_ERRORS, SSO_LOGIN_PATH } from '@leadline/contracts';
import { accounts, sessions, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { startTestApp, type TestApp } from '../test-support/test-app';
import {
  startTestProvider,
  TEST_CLIENT,
  type TestProvider,
} from '../test-support/oidc-test-provider';
import { SingleSignOn, SSO_ATTEMPT_MS } from './single-sign-on';

/** A browser's cookies and its trips between servers. */
class Browser {
  readonly #cookies = new Map<string, Map<string, { value: string; path: string }>>();

  /** One request (no redirect followed); stores the cookies it sets. */
  async request(url: string, form?: Record<string, string>): Promise<Response> {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(target, {
      method: form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) this.#store(target, line);
    return response;
  }

  /** Follows redirects from `url` until `stop` says so or a page answers; returns the last. */
  async follow(
    url: string,
    stop: (url: URL) => boolean = () => false,
  ): Promise<{ url: URL; response: Response | null }> {
    let current = new URL(url);
    for (let hops = 0; hops < 20; hops++) {
      if (stop(current)) return { url: current, response: null };
      const response = await this.request(current.href);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        return { url: current, response };
      }
      current = new URL(location, current);
    }
    throw new Error('too many redirects');
  }

  /** Submits the page's one form (the provider's login or consent page). */
  async submit(page: Response, pageUrl: URL, fields: Record<string, string>): Promise<URL> {
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form on ${pageUrl.href}: ${html.slice(0, 300)}`);
    const hidden = Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const response = await this.request(new URL(action, pageUrl).href, { ...hidden, ...fields });
    return new URL(response.headers.get('location')!, pageUrl);
  }

  cookieHeader(url: URL): string {
    const jar = this.#cookies.get(url.origin);
    if (!jar) return '';
    return [...jar]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  #store(url: URL, line: string): void {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const [name, ...rest] = pair!.split('=');
    const value = rest.join('=');
    const attr = (key: string) =>
      attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const jar = this.#cookies.get(url.origin) ?? new Map<string, { value: string; path: string }>();
    this.#cookies.set(url.origin, jar);
    const expires = attr('expires');
    if (value === '' || attr('max-age') === '0' || (expires && Date.parse(expires) < Date.now())) {
      jar.delete(name!);
    } else {
      jar.set(name!, { value, path: attr('path') ?? '/' });
    }
  }
}

/** Two Entra tenants (directory ids). */
const TENANT_A = '9188040d-6c67-4c5b-b112-36a304b66dad';
const TENANT_B = '72f988bf-86f1-41af-91ab-2d7cd011db47';

/** People at the provider by login name (= their `sub`); several claim agent1's address. */
const IDENTITIES = {
  agent: { email: 'AGENT1@example.com', email_verified: true },
  'agent-twin': { email: 'agent1@example.com', email_verified: true },
  'agent-acme': { email: 'agent1@example.com', email_verified: true, hd: 'ACME.example' },
  'agent-other-workspace': {
    email: 'agent1@example.com',
    email_verified: true,
    hd: 'other.example',
  },
  'agent-tenant-a': {
    email: 'agent1@example.com',
    email_verified: true,
    tid: TENANT_A.toUpperCase(),
  },
  'agent-tenant-b': { email: 'agent1@example.com', email_verified: true, tid: TENANT_B },
  unverified: { email: 'agent1@example.com', email_verified: false },
  stranger: { email: 'nobody@example.com', email_verified: true },
  supervisor: { email: 'supervisor@example.com', email_verified: true },
};

let provider: TestProvider;
/** How far the main server's clock for sign-on attempts runs ahead (an attempt left too long). */
let mainClockAheadMs = 0;
let main: TestApp;
let mainOrigin: string;
/** A second Leadline whose clock runs two hours ahead: every ID token has expired for it. */
let late: TestApp;
let lateOrigin: string;

async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  provider = await startTestProvider();
  const settings = {
    issuer: provider.issuer,
    clientId: TEST_CLIENT.id,
    clientSecret: TEST_CLIENT.secret,
  };
  main = await startTestApp({
    sso: (db) =>
      new SingleSignOn({ db, provider: settings, now: () => Date.now() + mainClockAheadMs }),
  });
  late = await startTestApp({
    sso: (db) => new SingleSignOn({ db, provider: settings, clockSkewSeconds: 2 * 3600 }),
  });
  mainOrigin = await listen(main);
  lateOrigin = await listen(late);
  provider.configure(
    [mainOrigin, lateOrigin].map((origin) => `${origin}${SSO_CALLBACK_PATH}`),
    IDENTITIES,
  );
});

afterAll(async () => {
  await main?.close();
  await late?.close();
  await provider?.close();
});

beforeEach(async () => {
  mainClockAheadMs = 0;
  await main.database.db.update(accounts).set({ ssoEnabled: true, ssoDomain: null, policy: {} });
  await main.database.db.update(users).set({ ssoIssuer: null, ssoSubject: null });
});

/** The demo user with this e-mail. */
async function userNamed(email: string) {
  const [user] = await main.database.db.select().from(users).where(eq(users.email, email));
  return user!;
}

/** The single sign-on identity the user with this e-mail is bound to (null: none). */
async function boundIdentity(email: string): Promise<[string, string] | null> {
  const user = await userNamed(email);
  return user.ssoIssuer === null && user.ssoSubject === null
    ? null
    : [user.ssoIssuer ?? '', user.ssoSubject ?? ''];
}

/** Sets the security policy of agent1's account. */
async function setAgentPolicy(policy: Record<string, unknown>): Promise<void> {
  const agent = await userNamed('agent1@example.com');
  await main.database.db.update(accounts).set({ policy }).where(eq(accounts.id, agent.accountId));
}

/** A whole sign-on as `login` on the main server: where Leadline sends the browser at the end. */
async function signOn(
  login: keyof typeof IDENTITIES,
): Promise<{ location: string; as: string | null }> {
  const browser = new Browser();
  const callback = await signInAtProvider(browser, mainOrigin, login);
  const location = await arrive(browser, callback);
  return { location, as: await signedInAs(browser, mainOrigin) };
}

/**
 * Clicks 'Log in with Google' on `origin` and signs in on the provider's pages as `login`;
 * returns the callback address the provider sends the browser to (not visited yet).
 */
async function signInAtProvider(browser: Browser, origin: string, login: string): Promise<URL> {
  const isCallback = (url: URL) => url.origin === origin && url.pathname === SSO_CALLBACK_PATH;
  let step = await browser.follow(`${origin}${SSO_LOGIN_PATH}`, isCallback);
  for (let pages = 0; step.response && pages < 4; pages++) {
    const html = await step.response.clone().text();
    const fields: Record<string, string> = html.includes('name="login"')
      ? { login, password: 'any' }
      : {};
    const next = await browser.submit(step.response, step.url, fields);
    step = await browser.follow(next.href, isCallback);
  }
  if (step.response) throw new Error(`stuck at ${step.url.href}`);
  return step.url;
}

/** Visits the callback; returns where Leadline sends the browser. */
async function arrive(browser: Browser, callback: URL): Promise<string> {
  const response = await browser.request(callback.href);
  expect(response.status).toBe(302);
  return response.headers.get('location')!;
}

/** Who the browser is signed in as on `origin` (null: nobody). */
async function signedInAs(browser: Browser, origin: string): Promise<string | null> {
  const response = await browser.request(`${origin}/api/v1/user`);
  if (response.status !== 200) return null;
  const body = (await response.json()) as { user: { email: string } };
  return body.user.email;
}

const errorAt = (code: keyof typeof SSO_ERRORS) => `/?sso_error=${code}`;

async function sessionCount(app: TestApp): Promise<number> {
  return (await app.database.db.select().from(sessions)).length;
}

describe('single sign-on through OpenID Connect', () => {
  it('offers the link when a provider is configured', async () => {
    const response = await fetch(`${mainOrigin}/api/v1/login/options`);
    expect(await response.json()).toEqual({ success: true, sso: true });
  });

  it('signs a known user in (e-mail in any case) and lands on the console', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(await arrive(browser, callback)).toBe('/');
    expect(await signedInAs(browser, mainOrigin)).toBe('agent1@example.com');
  });

  it('refuses an e-mail no user has', async () => {
    const browser = new Browser();
    const before = await sessionCount(main);
    const callback = await signInAtProvider(browser, mainOrigin, 'stranger');
    expect(await arrive(browser, callback)).toBe(errorAt('unknown_user'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
    expect(await sessionCount(main)).toBe(before);
  });

  it('refuses a user an admin deactivated, as one it does not know (issue 37)', async () => {
    const { db } = main.database;
    await db.update(users).set({ active: false }).where(eq(users.email, 'supervisor@example.com'));
    try {
      const before = await sessionCount(main);
      expect(await signOn('supervisor')).toEqual({ location: errorAt('unknown_user'), as: null });
      expect(await sessionCount(main)).toBe(before);
    } finally {
      await db.update(users).set({ active: true }).where(eq(users.email, 'supervisor@example.com'));
    }
  });

  it('refuses an e-mail the provider has not verified', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'unverified');
    expect(await arrive(browser, callback)).toBe(errorAt('email_not_verified'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
  });

  it('refuses a callback whose state is not the one it sent', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    callback.searchParams.set('state', 'forged-state');
    expect(await arrive(browser, callback)).toBe(errorAt('expired'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
  });

  it('refuses a callback used a second time (the code replayed)', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    const cookies = browser.cookieHeader(callback);
    expect(await arrive(browser, callback)).toBe('/');
    // The same address and the same sign-on cookie again, as an attacker who saw both would.
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: cookies } });
    expect(replay.headers.get('location')).toBe(errorAt('expired'));
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('leadline_session='))).toBe(
      false,
    );
  });

  it('refuses a sign-on finished after its ten minutes', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    mainClockAheadMs = SSO_ATTEMPT_MS;
    expect(await arrive(browser, callback)).toBe(errorAt('expired'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
  });

  it('refuses an ID token minted for another nonce', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    // The attempt this browser started now expects another nonce than the provider put in the
    // token: as if the token had been issued to a different sign-on.
    const { ssoAttempts } = await import('../db/schema');
    await main.database.db.update(ssoAttempts).set({ nonce: 'another-nonce' });
    expect(await arrive(browser, callback)).toBe(errorAt('invalid_response'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
  });

  it('refuses an expired ID token', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, lateOrigin, 'agent');
    expect(await arrive(browser, callback)).toBe(errorAt('invalid_response'));
    expect(await signedInAs(browser, lateOrigin)).toBeNull();
  });

  it('refuses a user whose account has single sign-on off', async () => {
    await main.database.db.update(accounts).set({ ssoEnabled: false });
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    expect(await arrive(browser, callback)).toBe(errorAt('sso_disabled'));
    expect(await signedInAs(browser, mainOrigin)).toBeNull();
  });

  it("refuses an e-mail outside the account's allowed domain, and accepts one inside", async () => {
    const [agent] = await main.database.db
      .select()
      .from(users)
      .where(eq(users.email, 'agent1@example.com'));
    await main.database.db
      .update(accounts)
      .set({ ssoDomain: 'acme.example' })
      .where(eq(accounts.id, agent!.accountId));
    const outside = new Browser();
    const refused = await signInAtProvider(outside, mainOrigin, 'agent');
    expect(await arrive(outside, refused)).toBe(errorAt('domain_not_allowed'));
    expect(await signedInAs(outside, mainOrigin)).toBeNull();

    await main.database.db
      .update(accounts)
      .set({ ssoDomain: 'EXAMPLE.com' })
      .where(eq(accounts.id, agent!.accountId));
    const inside = new Browser();
    const accepted = await signInAtProvider(inside, mainOrigin, 'agent');
    expect(await arrive(inside, accepted)).toBe('/');
  });

  it('refuses a callback from a browser that never started a sign-on', async () => {
    const browser = new Browser();
    const callback = await signInAtProvider(browser, mainOrigin, 'agent');
    const stranger = await fetch(callback, { redirect: 'manual' });
    expect(stranger.headers.get('location')).toBe(errorAt('expired'));
  });
});

describe("the identity a user is bound to (the ID token's iss and sub)", () => {
  it('is bound at the first sign-in; the same identity signs in again', async () => {
    expect(await boundIdentity('agent1@example.com')).toBeNull();
    expect(await signOn('agent')).toEqual({ location: '/', as: 'agent1@example.com' });
    expect(await boundIdentity('agent1@example.com')).toEqual([provider.issuer, 'agent']);
    expect(await signOn('agent')).toEqual({ location: '/', as: 'agent1@example.com' });
    expect(await boundIdentity('agent1@example.com')).toEqual([provider.issuer, 'agent']);
  });

  it('refuses another sub with the same e-mail, and changes nothing', async () => {
    await signOn('agent');
    const before = await sessionCount(main);
    expect(await signOn('agent-twin')).toEqual({
      location: errorAt('identity_mismatch'),
      as: null,
    });
    expect(await boundIdentity('agent1@example.com')).toEqual([provider.issuer, 'agent']);
    expect(await sessionCount(main)).toBe(before);
  });

  it('refuses the same sub from another issuer', async () => {
    const agent = await userNamed('agent1@example.com');
    await main.database.db
      .update(users)
      .set({ ssoIssuer: 'https://login.example.org', ssoSubject: 'agent' })
      .where(eq(users.id, agent.id));
    expect(await signOn('agent')).toEqual({ location: errorAt('identity_mismatch'), as: null });
    expect(await boundIdentity('agent1@example.com')).toEqual([
      'https://login.example.org',
      'agent',
    ]);
  });

  it('refuses an identity already bound to another user, and binds nothing', async () => {
    const supervisor = await userNamed('supervisor@example.com');
    await main.database.db
      .update(users)
      .set({ ssoIssuer: provider.issuer, ssoSubject: 'agent' })
      .where(eq(users.id, supervisor.id));
    const before = await sessionCount(main);
    expect(await signOn('agent')).toEqual({ location: errorAt('identity_in_use'), as: null });
    expect(await boundIdentity('agent1@example.com')).toBeNull();
    expect(await sessionCount(main)).toBe(before);
  });

  it('is not bound by a sign-on refused for another reason', async () => {
    await main.database.db.update(accounts).set({ ssoEnabled: false });
    expect(await signOn('agent-twin')).toEqual({ location: errorAt('sso_disabled'), as: null });
    expect(await boundIdentity('agent1@example.com')).toBeNull();
    await main.database.db.update(accounts).set({ ssoEnabled: true });
    expect(await signOn('agent')).toEqual({ location: '/', as: 'agent1@example.com' });
  });
});

describe("allowed Google Workspaces (the ID token's hd) and Entra tenants (tid)", () => {
  it("lets in only the listed Workspaces, by the hd claim, not by the e-mail's text", async () => {
    await setAgentPolicy({ sso_hosted_domains: ['acme.example'] });
    // No hd: a personal Google account, whatever its address.
    expect(await signOn('agent')).toEqual({
      location: errorAt('workspace_not_allowed'),
      as: null,
    });
    expect(await signOn('agent-other-workspace')).toEqual({
      location: errorAt('workspace_not_allowed'),
      as: null,
    });
    // The e-mail's own domain listed: still no hd, still refused.
    await setAgentPolicy({ sso_hosted_domains: ['example.com'] });
    expect(await signOn('agent')).toEqual({
      location: errorAt('workspace_not_allowed'),
      as: null,
    });
    expect(await boundIdentity('agent1@example.com')).toBeNull();
    // An address outside the Workspace's domain, but an account it manages (hd in any case).
    await setAgentPolicy({ sso_hosted_domains: ['other.example', 'acme.example'] });
    expect(await signOn('agent-acme')).toEqual({ location: '/', as: 'agent1@example.com' });
    expect(await boundIdentity('agent1@example.com')).toEqual([provider.issuer, 'agent-acme']);
  });

  it('lets in only the listed Entra tenants, by the tid claim', async () => {
    await setAgentPolicy({ sso_tenant_ids: [TENANT_A] });
    expect(await signOn('agent')).toEqual({ location: errorAt('tenant_not_allowed'), as: null });
    expect(await signOn('agent-tenant-b')).toEqual({
      location: errorAt('tenant_not_allowed'),
      as: null,
    });
    expect(await boundIdentity('agent1@example.com')).toBeNull();
    expect(await signOn('agent-tenant-a')).toEqual({ location: '/', as: 'agent1@example.com' });
  });

  it('checks both lists when both are set', async () => {
    await setAgentPolicy({ sso_hosted_domains: ['acme.example'], sso_tenant_ids: [TENANT_A] });
    expect(await signOn('agent-acme')).toEqual({
      location: errorAt('tenant_not_allowed'),
      as: null,
    });
    expect(await signOn('agent-tenant-a')).toEqual({
      location: errorAt('workspace_not_allowed'),
      as: null,
    });
  });

  it('lets anyone in with an empty list, and no one with a list it cannot read', async () => {
    await setAgentPolicy({ sso_hosted_domains: [], sso_tenant_ids: [] });
    expect(await signOn('agent')).toEqual({ location: '/', as: 'agent1@example.com' });
    // A string where a list belongs: applied as its strictest, not ignored.
    await setAgentPolicy({ sso_hosted_domains: 'acme.example' });
    expect(await signOn('agent-acme')).toEqual({
      location: errorAt('workspace_not_allowed'),
      as: null,
    });
  });

  it("applies the account's e-mail domain (sso_domain) as well", async () => {
    await setAgentPolicy({ sso_hosted_domains: ['acme.example'] });
    const agent = await userNamed('agent1@example.com');
    await main.database.db
      .update(accounts)
      .set({ ssoDomain: 'acme.example' })
      .where(eq(accounts.id, agent.accountId));
    expect(await signOn('agent-acme')).toEqual({
      location: errorAt('domain_not_allowed'),
      as: null,
    });
  });
});

describe('single sign-on only accounts (policy sso_only)', () => {
  const SSO_ONLY = 'Your account signs in with single sign-on only. Use Log in with Google.';
  const passwordLogin = (email: string, password = DEMO_PASSWORD) =>
    main.app.inject({ method: 'POST', url: '/api/v1/user/login', payload: { email, password } });

  it("refuses password login for the account's users, right password or not, and changes nothing", async () => {
    await setAgentPolicy({ sso_only: true });
    const before = await sessionCount(main);
    for (const [email, password] of [
      ['agent1@example.com', DEMO_PASSWORD],
      ['Supervisor@example.com', DEMO_PASSWORD],
      ['agent1@example.com', 'not the password'],
    ] as const) {
      const response = await passwordLogin(email, password);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ success: false, error: SSO_ONLY });
      expect(response.cookies.find((c) => c.name.endsWith('leadline_session'))).toBeUndefined();
    }
    expect(await sessionCount(main)).toBe(before);
    // Another account's users, and an unknown address, are answered as before.
    expect((await passwordLogin('agent@a6671.example.com')).statusCode).toBe(200);
    expect((await passwordLogin('nobody@example.com')).statusCode).toBe(401);
  });

  it('still signs them in through the provider', async () => {
    await setAgentPolicy({ sso_only: true });
    expect(await signOn('agent')).toEqual({ location: '/', as: 'agent1@example.com' });
  });

  it('refuses password login when sso_only cannot be read (its strictest), allows it when false', async () => {
    await setAgentPolicy({ sso_only: 'no' });
    const refused = await passwordLogin('agent1@example.com');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, error: SSO_ONLY });
    await setAgentPolicy({ sso_only: false });
    expect((await passwordLogin('agent1@example.com')).statusCode).toBe(200);
  });
});

describe('single sign-on not configured', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp();
  });
  afterAll(() => bare.close());

  it('hides the link and sends the path back to the login view with a sentence', async () => {
    const options = await bare.app.inject({ method: 'GET', url: '/api/v1/login/options' });
    expect(options.json()).toEqual({ success: true, sso: false });
    for (const url of [SSO_LOGIN_PATH, `${SSO_CALLBACK_PATH}?code=x&state=y`]) {
      const response = await bare.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(errorAt('not_configured'));
    }
    expect(SSO_ERRORS.not_configured).toBe('Single sign-on is not configured.');
  });
});
