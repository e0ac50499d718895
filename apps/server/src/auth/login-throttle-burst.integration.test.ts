/**
 * Sign-in under a burst, through the real login route with real scrypt hashing (on PGlite and, in
 * CI's second pass, PostgreSQL, where the attempts really run side by side):
 *
 * - 100 wrong guesses at one e-mail from one address, all at once: at most the lockout's 10 are
 *   checked, the rest are refused with 429 and `Retry-After` before any check, and the address is
 *   then locked out of that e-mail (the right password too);
 * - more sign-ins at once than the hashing queue holds (2 checks running, 8 waiting): the rest are
 *   refused at once with 429 and `Retry-After` instead of waiting, and their attempts are not
 *   counted against their addresses.
 */
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginThrottle } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { startTestApp, type TestApp } from '../test-support/test-app';
import { LOGIN_LIMITS } from './login-throttle';
import { CONCURRENT_HASHES, MAX_WAITING_SIGN_INS } from './password';

let t: TestApp;
beforeAll(async () => {
  // The anonymous rate limit (100 sign-ins a minute per address) is not what is tested here.
  t = await startTestApp({
    rateLimits: { 'sign-in': 10_000, intake: 600, webhooks: 3000, sockets: 300 },
  });
}, 60_000);
afterAll(() => t?.close());

const attempt = (email: string, password: string, remoteAddress: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/user/login',
    payload: { email, password },
    remoteAddress,
  });

describe('a burst at one e-mail from one address', () => {
  it('has at most the lockout’s 10 guesses checked; the rest are refused before any check', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        attempt('agent2@example.com', `guess-${i}`, '10.7.0.1'),
      ),
    );
    const checked = answers.filter((a) => a.statusCode === 401);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(checked.length + refused.length).toBe(100);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(LOGIN_LIMITS.maxFailures);
    for (const answer of refused) {
      expect(answer.json()).toEqual({
        success: false,
        error: 'Too many login attempts. Try again in 15 minutes.',
      });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    // What the throttle counted for the pair: the guesses checked, no more.
    const [pair] = await t.database.db
      .select()
      .from(loginThrottle)
      .where(eq(loginThrottle.key, 'ip-email:10.7.0.1|agent2@example.com'));
    expect(pair!.failures).toBe(checked.length);

    // Locked out: the right password from that address is refused too, and gets in elsewhere.
    expect((await attempt('agent2@example.com', DEMO_PASSWORD, '10.7.0.1')).statusCode).toBe(429);
    expect((await attempt('agent2@example.com', DEMO_PASSWORD, '10.7.0.2')).statusCode).toBe(200);
  }, 120_000);
});

describe('more sign-ins at once than the hashing queue holds', () => {
  it('refuses the rest at once with 429 and Retry-After, and does not count them', async () => {
    const held = CONCURRENT_HASHES + MAX_WAITING_SIGN_INS;
    const tried = held + 4;
    // One wrong password each, from addresses of their own: no lockout is near.
    const answers = await Promise.all(
      Array.from({ length: tried }, (_, i) =>
        attempt('supervisor@example.com', `wrong-${i}`, `10.8.0.${i + 1}`),
      ),
    );
    const checked = answers.filter((a) => a.statusCode === 401);
    const busy = answers.filter((a) => a.statusCode === 429);
    expect(checked.length + busy.length).toBe(tried);
    expect(checked.length).toBeGreaterThanOrEqual(CONCURRENT_HASHES);
    expect(busy.length).toBeGreaterThanOrEqual(tried - held);
    for (const answer of busy) {
      expect(answer.json()).toEqual({
        success: false,
        error: 'Too many sign-ins at once just now. Try again in a few seconds.',
      });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Only the checked ones count as failures of their address.
    const pairs = await t.database.db
      .select({ failures: loginThrottle.failures })
      .from(loginThrottle)
      .where(and(like(loginThrottle.key, 'ip-email:10.8.0.%'), eq(loginThrottle.failures, 1)));
    expect(pairs).toHaveLength(checked.length);
  }, 120_000);
});
