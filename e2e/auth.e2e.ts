/**
 * Login refusal in the browser; CSRF and session checks over HTTP against the started product;
 * the login throttle (a second loopback address locked out, the agent still in) and Log out
 * everywhere across two browsers (issue 36 item 3).
 */
import { request } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import { logInToConsole } from './support/console';
import { startProduct, type Product } from './support/product';

let product: Product;
let browser: Browser;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(1000, 1));
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

it("shows 'Your login credentials are invalid.' for a wrong password", async () => {
  const { context } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  await page.goto(product.url);
  await page.getByLabel('Email').fill('agent1@example.com');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect
    .poll(() => page.getByText('Your login credentials are invalid.').isVisible(), {
      timeout: 10_000,
    })
    .toBe(true);
  await context.close();
});

it('refuses a request without a session (401) and a mutating one without X-CSRF-TOKEN (403)', async () => {
  expect((await fetch(`${product.url}/api/v1/user`)).status).toBe(401);
  const login = await fetch(`${product.url}/api/v1/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'agent1@example.com', password: 'leadline-demo' }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const logout = await fetch(`${product.url}/api/v1/user/logout`, {
    method: 'POST',
    headers: { cookie },
  });
  expect(logout.status).toBe(403);
  expect((await fetch(`${product.url}/api/v1/user`, { headers: { cookie } })).status).toBe(200);
});

/** `POST /api/v1/user/login` sent from `localAddress` (a second loopback address). */
function loginFrom(
  localAddress: string,
  password: string,
): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(product.url);
  const payload = JSON.stringify({ email: 'agent1@example.com', password });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/api/v1/user/login',
        method: 'POST',
        localAddress,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

it('after ten wrong passwords from 127.0.0.2, that address is refused but the agent logs in from 127.0.0.1', async () => {
  for (let i = 0; i < 10; i++) {
    expect(await loginFrom('127.0.0.2', 'not-the-password')).toEqual({
      status: 401,
      body: { success: false, error: 'Your login credentials are invalid.' },
    });
  }
  // The address that failed is locked out of this e-mail, even with the right password.
  expect(await loginFrom('127.0.0.2', 'leadline-demo')).toEqual({
    status: 429,
    body: { success: false, error: 'Too many login attempts. Try again in 15 minutes.' },
  });
  // The agent, in Chromium from 127.0.0.1, signs in (after the e-mail's short delay).
  const { context } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  await logInToConsole(page, product.url, 'agent1@example.com');
  await context.close();
});

it('Log out everywhere in one browser sends the agent’s other browser to the login view', async () => {
  const here = await loopbackOnlyContext(browser);
  const there = await loopbackOnlyContext(browser);
  const herePage = await here.context.newPage();
  const therePage = await there.context.newPage();
  await logInToConsole(herePage, product.url, 'agent2@example.com');
  await logInToConsole(therePage, product.url, 'agent2@example.com');

  await herePage.getByRole('button', { name: /^Blake Chen/ }).click();
  await herePage.getByRole('button', { name: 'Log out everywhere' }).click();
  const loginHeading = (page: typeof herePage) =>
    page.getByRole('heading', { name: 'Log in' }).isVisible();
  await expect.poll(() => loginHeading(herePage), { timeout: 10_000 }).toBe(true);
  // The other browser is told (its softphone's and realtime sockets are withdrawn) and shows
  // the login view without anyone touching it.
  await expect.poll(() => loginHeading(therePage), { timeout: 20_000 }).toBe(true);
  // Both browsers' cookies are dead: neither gets the user.
  for (const context of [here.context, there.context]) {
    const answer = await context.request.get(`${product.url}/api/v1/user`);
    expect(answer.status()).toBe(401);
  }
  await here.context.close();
  await there.context.close();
});
