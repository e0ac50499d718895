/**
 * 'Log in with Google' in Chromium against the started product, configured for a real OpenID
 * Connect provider on loopback (oidc-provider with its own login and consent pages): the agent
 * signs in on the provider's page and lands on the console as that user, phone registered.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startTestProvider,
  TEST_CLIENT,
  type TestProvider,
} from '../apps/server/src/test-support/oidc-test-provider';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import { startProduct, type Product } from './support/product';

let provider: TestProvider;
let product: Product;
let browser: Browser;

beforeAll(async () => {
  provider = await startTestProvider();
  product = await startProduct({
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: TEST_CLIENT.id,
    OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
  });
  provider.configure([`${product.url}/apps/workos/callback`], {
    'agent-one': { email: 'agent1@example.com', email_verified: true },
    // Another person at the provider (another `sub`) with agent1's address.
    'agent-one-again': { email: 'agent1@example.com', email_verified: true },
  });
  browser = await launchChromium(await toneWav(1000, 1));
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await provider?.close();
});

it('signs in with the provider and lands on the console with the phone registered', async () => {
  const { context, foreignRequests } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  const registered = new Promise<void>((resolve) => {
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (typeof frame.payload === 'string' && frame.payload.includes('"type":"ready"'))
          resolve();
      }),
    );
  });
  await page.goto(product.url);
  await page.getByRole('link', { name: 'Log in with Google' }).click();

  // The provider's own pages: any login name with any password, then consent.
  await page.getByPlaceholder('Enter any login').fill('agent-one');
  await page.getByPlaceholder('and password').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect
    .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 20_000 })
    .toBe(true);
  await registered;
  expect(new URL(page.url()).pathname).toBe('/');
  const me = await page.evaluate(async () => {
    const response = await fetch('/api/v1/user');
    return ((await response.json()) as { user: { email: string } }).user.email;
  });
  expect(me).toBe('agent1@example.com');
  // The test provider's development pages ask for a web font (blocked here); nothing else,
  // and nothing of the product, left the machine.
  expect(foreignRequests.filter((url) => !url.startsWith('https://fonts.googleapis.com/'))).toEqual(
    [],
  );
  await context.close();
});

it('refuses another person with the same e-mail once agent1 is bound, and says so on the login view', async () => {
  // The test above bound agent1 to 'agent-one' at its first sign-on.
  const { context } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  await page.goto(product.url);
  await page.getByRole('link', { name: 'Log in with Google' }).click();
  await page.getByPlaceholder('Enter any login').fill('agent-one-again');
  await page.getByPlaceholder('and password').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect
    .poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 })
    .toBe(
      'Your Leadline user is linked to a different sign-in account. Sign in with that account, or ask your administrator to unlink it.',
    );
  expect(await page.getByRole('heading', { name: 'Log in' }).isVisible()).toBe(true);
  expect(new URL(page.url()).search).toBe('?sso_error=identity_mismatch');
  const session = await page.evaluate(async () => (await fetch('/api/v1/user')).status);
  expect(session).toBe(401);
  await context.close();
});
