/**
 * Binding users to single sign-on identities on the database itself: first sign-ins racing
 * (two instances, or two tabs) are decided by the unique `iss` + `sub` pair and the conditional
 * update, never by what each one read before.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { users } from '../db/schema';
import { seedDemo } from '../db/seed';
import { openTestDatabase } from '../test-support/test-database';
import { checkSsoIdentity, type SsoBoundUser } from './sso-identity';

const ISSUER = 'https://accounts.google.com';

let database: Database;

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemo(database.db);
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.db.update(users).set({ ssoIssuer: null, ssoSubject: null });
});

async function user(email: string): Promise<SsoBoundUser> {
  const [row] = await database.db
    .select({ id: users.id, ssoIssuer: users.ssoIssuer, ssoSubject: users.ssoSubject })
    .from(users)
    .where(eq(users.email, email));
  return row!;
}

describe('checkSsoIdentity', () => {
  it('binds at the first sign-in, then accepts only that identity', async () => {
    const agent = await user('agent1@example.com');
    expect(await checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: '111' })).toBe(
      'bound_now',
    );
    const bound = await user('agent1@example.com');
    expect(bound).toMatchObject({ ssoIssuer: ISSUER, ssoSubject: '111' });
    expect(await checkSsoIdentity(database.db, bound, { issuer: ISSUER, subject: '111' })).toBe(
      'bound',
    );
    expect(await checkSsoIdentity(database.db, bound, { issuer: ISSUER, subject: '222' })).toBe(
      'bound_to_another',
    );
    expect(
      await checkSsoIdentity(database.db, bound, {
        issuer: 'https://other.example',
        subject: '111',
      }),
    ).toBe('bound_to_another');
    expect(await user('agent1@example.com')).toMatchObject({
      ssoIssuer: ISSUER,
      ssoSubject: '111',
    });
  });

  it('two first sign-ins of one user with different subs: one binds, the other is refused', async () => {
    const agent = await user('agent1@example.com');
    const results = await Promise.all([
      checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: 'first' }),
      checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: 'second' }),
    ]);
    expect(results.sort()).toEqual(['bound_now', 'bound_to_another']);
    const winner = results[0] === 'bound_now' ? 'first' : 'second';
    const bound = await user('agent1@example.com');
    expect(bound.ssoSubject).toBe(winner);
  });

  it('two first sign-ins of one user with the same identity: both sign in', async () => {
    const agent = await user('agent1@example.com');
    const results = await Promise.all([
      checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: 'same' }),
      checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: 'same' }),
    ]);
    expect(results.sort()).toEqual(['bound', 'bound_now']);
  });

  it('one identity racing to bind two users: the database lets one have it', async () => {
    const [agent, supervisor] = [
      await user('agent1@example.com'),
      await user('supervisor@example.com'),
    ];
    const identity = { issuer: ISSUER, subject: 'contested' };
    const results = await Promise.all([
      checkSsoIdentity(database.db, agent, identity),
      checkSsoIdentity(database.db, supervisor, identity),
    ]);
    expect(results.sort()).toEqual(['bound_now', 'taken']);
    const holders = await database.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.ssoSubject, 'contested'));
    expect(holders).toHaveLength(1);
  });

  it('refuses an identity another user holds, and binds nothing', async () => {
    const supervisor = await user('supervisor@example.com');
    await checkSsoIdentity(database.db, supervisor, { issuer: ISSUER, subject: 'held' });
    const agent = await user('agent1@example.com');
    expect(await checkSsoIdentity(database.db, agent, { issuer: ISSUER, subject: 'held' })).toBe(
      'taken',
    );
    expect(await user('agent1@example.com')).toMatchObject({ ssoIssuer: null, ssoSubject: null });
  });
});
