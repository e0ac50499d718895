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

const IDENTITIES = {
  agent: { email: 'AGENT1@example.com', email_verified: true },
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
  await main.database.db.update(accounts).set({ ssoEnabled: true, ssoDomain: null });
});

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
