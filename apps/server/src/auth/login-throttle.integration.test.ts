import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { loginThrottle } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { addressKeyOf, LOGIN_LIMITS, LoginThrottle } from './login-throttle';

const MINUTE = 60_000;
let database: Database;
let now: number;
let waits: number[];

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());
beforeEach(async () => {
  await database.db.delete(loginThrottle);
  now = Date.parse('2026-11-25T10:00:00Z');
  waits = [];
});

/** A throttle on the test database with the test's clock; each one is an instance. */
const instance = () =>
  new LoginThrottle(database.db, {
    now: () => new Date(now),
    sleep: async (ms) => {
      waits.push(ms);
    },
  });

/** An attempt that failed: admitted (its failure reserved), then its password found wrong. */
const fail = async (t: LoginThrottle, email: string, address: string) => {
  await t.admit(email, address);
  await t.failed(email, address);
};

const failTimes = async (t: LoginThrottle, n: number, email: string, address: string) => {
  for (let i = 0; i < n; i++) await fail(t, email, address);
};

describe('the e-mail from one address: a hard limit', () => {
  it('refuses the 11th attempt for 15 minutes after 10 failures, to the millisecond', async () => {
    const t = instance();
    await failTimes(t, 9, 'agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).not.toHaveProperty('refusedForMs');
    await t.failed('agent1@example.com', '127.0.0.2');
    expect(await t.admit('Agent1@Example.com', '127.0.0.2')).toEqual({ refusedForMs: 15 * MINUTE });
    now += 15 * MINUTE - 1;
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toEqual({ refusedForMs: 1 });
    now += 1;
    expect(await t.admit('agent1@example.com', '127.0.0.2')).not.toHaveProperty('refusedForMs');
    // The lockout served, the next failure starts a new count: one failure is not a lockout.
    await t.failed('agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).not.toHaveProperty('refusedForMs');
  });

  it('never refuses the e-mail from an address without failures: it only waits, at most 5 s', async () => {
    const t = instance();
    await failTimes(t, 50, 'agent1@example.com', '127.0.0.2');
    waits = [];
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toHaveProperty('refusedForMs');
    expect(await t.admit('agent1@example.com', '127.0.0.1')).toEqual({ waitedMs: 5_000 });
    expect(waits).toEqual([5_000]);
    // Other e-mails from the locked-out address are not its concern (the rate limit's).
    expect(await t.admit('agent2@example.com', '127.0.0.2')).toEqual({ waitedMs: 0 });
  });

  it('counts failures in a 15-minute window: 9, then a quarter hour later 1, is no lockout', async () => {
    const t = instance();
    await failTimes(t, 9, 'agent1@example.com', '127.0.0.2');
    now += 15 * MINUTE;
    await fail(t, 'agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).not.toHaveProperty('refusedForMs');
  });

  it('keys an IPv6 client by its /64, and an IPv4-mapped address as IPv4', async () => {
    expect(addressKeyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('::ffff:127.0.0.2')).toBe('127.0.0.2');
    const t = instance();
    for (let i = 0; i < 10; i++) await fail(t, 'agent1@example.com', `2001:db8:1:2::${i + 1}`);
    expect(await t.admit('agent1@example.com', '2001:db8:1:2:ffff::9')).toHaveProperty(
      'refusedForMs',
    );
    expect(await t.admit('agent1@example.com', '2001:db8:1:3::1')).not.toHaveProperty(
      'refusedForMs',
    );
  });
});

describe('attempts in flight: each counted as it arrives, before its password is checked', () => {
  it('of 100 at once at one e-mail from one address, 10 are let through; the rest refused and not counted', async () => {
    const t = instance();
    const verdicts = await Promise.all(
      Array.from({ length: 100 }, () => t.admit('agent1@example.com', '127.0.0.2')),
    );
    expect(verdicts.filter((v) => 'waitedMs' in v)).toHaveLength(LOGIN_LIMITS.maxFailures);
    expect(verdicts.filter((v) => 'refusedForMs' in v)).toEqual(
      Array.from({ length: 90 }, () => ({ refusedForMs: 15 * MINUTE })),
    );
    const [pair] = await database.db
      .select()
      .from(loginThrottle)
      .where(eq(loginThrottle.key, 'ip-email:127.0.0.2|agent1@example.com'));
    expect(pair!.failures).toBe(LOGIN_LIMITS.maxFailures);
    // The ten fail: the lockout begins with the last.
    for (let i = 0; i < 10; i++) await t.failed('agent1@example.com', '127.0.0.2');
    now += 1_000;
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toEqual({
      refusedForMs: 15 * MINUTE - 1_000,
    });
  });

  it('one of them succeeding starts the count again', async () => {
    const t = instance();
    await Promise.all(Array.from({ length: 10 }, () => t.admit('agent1@example.com', '127.0.0.2')));
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toHaveProperty('refusedForMs');
    await t.succeeded('agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toEqual({ waitedMs: 0 });
  });

  it('one given back (not tried) frees its place: nine tried, one given back, is no lockout', async () => {
    const t = instance();
    await Promise.all(Array.from({ length: 10 }, () => t.admit('agent1@example.com', '127.0.0.2')));
    await t.release('agent1@example.com', '127.0.0.2');
    for (let i = 0; i < 9; i++) await t.failed('agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).not.toHaveProperty('refusedForMs');
  });
});

describe('the e-mail alone: a short growing delay', () => {
  it('lets 3 failures pass, then waits 250 ms, doubling to at most 5 s', async () => {
    const t = instance();
    const seen: number[] = [];
    for (let i = 1; i <= 10; i++) {
      // Each failure from elsewhere: only the e-mail's key grows.
      await t.failed('agent1@example.com', `10.0.0.${i}`);
      const verdict = await t.admit('agent1@example.com', '10.9.9.9');
      seen.push('waitedMs' in verdict ? verdict.waitedMs : -1);
    }
    expect(seen).toEqual([0, 0, 0, 250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(waits).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });

  it('waits only what is left of the delay', async () => {
    const t = instance();
    await failTimes(t, 6, 'agent1@example.com', '10.0.0.1');
    now += 600;
    expect(await t.admit('agent1@example.com', '10.0.0.2')).toEqual({ waitedMs: 400 });
    now += 400;
    expect(await t.admit('agent1@example.com', '10.0.0.2')).toEqual({ waitedMs: 0 });
  });
});

describe('the counts', () => {
  it('are shared by instances and kept across a restart (they are rows)', async () => {
    await failTimes(instance(), 10, 'agent1@example.com', '127.0.0.2');
    const restarted = instance();
    expect(await restarted.admit('agent1@example.com', '127.0.0.2')).toEqual({
      refusedForMs: 15 * MINUTE,
    });
  });

  it('start again after a successful login (both keys)', async () => {
    const t = instance();
    await failTimes(t, 8, 'agent1@example.com', '127.0.0.2');
    await t.succeeded('agent1@example.com', '127.0.0.2');
    await failTimes(t, 2, 'agent1@example.com', '127.0.0.2');
    expect(await t.admit('agent1@example.com', '127.0.0.2')).toEqual({ waitedMs: 0 });
  });

  it('are deleted once their window and lockout are over, so the table stays bounded', async () => {
    const t = instance();
    for (let i = 0; i < 200; i++)
      await fail(t, `user${i}@example.com`, `10.1.${i >> 8}.${i & 255}`);
    const rows = async () => (await database.db.select({ n: count() }).from(loginThrottle))[0]!.n;
    expect(await rows()).toBe(400);
    now += LOGIN_LIMITS.windowMs + LOGIN_LIMITS.lockoutMs + 1;
    await fail(t, 'late@example.com', '10.9.9.9');
    // Only the two keys of the last failure are left.
    expect(await rows()).toBe(2);
  });
});
