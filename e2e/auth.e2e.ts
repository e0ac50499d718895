/** Login refusal in the browser; CSRF and session checks over HTTP against the started product. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
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
