import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { callerNumbers, profiles } from '../db/schema';
import { seedDemo } from '../db/seed';
import { openTestDatabase } from '../test-support/test-database';
import { SettingsCache } from './settings-cache';

let database: Database;
let accountId: number;
let profileId: number;

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemo(database.db);
  const [profile] = await database.db.select().from(profiles).orderBy(profiles.id).limit(1);
  accountId = profile!.accountId;
  profileId = profile!.id;
});
afterAll(() => database.close());

/** A cache on the test database with a clock the test moves. */
function cache(ttlMs = 1000) {
  let now = 0;
  const settings = new SettingsCache({ db: database.db, now: () => now, ttlMs });
  return { settings, advance: (ms: number) => (now += ms) };
}

const setRingTimeout = (ms: number | null) =>
  database.db.update(profiles).set({ ringTimeoutMs: ms }).where(eq(profiles.id, profileId));

describe('SettingsCache', () => {
  it('reads the default profile and a profile from the database', async () => {
    await setRingTimeout(4000);
    const { settings } = cache();
    expect((await settings.defaultProfile(accountId))?.id).toBe(profileId);
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBe(4000);
    expect(await settings.profile(null)).toBeNull();
    expect(await settings.profile(999_999)).toBeNull();
  });

  it('keeps a profile it read until the TTL passes, then reads it again', async () => {
    await setRingTimeout(4000);
    const { settings, advance } = cache(1000);
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBe(4000);
    await setRingTimeout(9000);
    advance(999);
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBe(4000);
    advance(1);
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBe(9000);
  });

  it('reads everything again after forget() (a settings change)', async () => {
    await setRingTimeout(4000);
    const { settings } = cache(60_000);
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBe(4000);
    await setRingTimeout(null);
    settings.forget();
    expect((await settings.profile(profileId))?.ringTimeoutMs).toBeNull();
  });

  it("answers the profile's own caller number first, else the account's first", async () => {
    const rows = await database.db
      .select()
      .from(callerNumbers)
      .where(eq(callerNumbers.accountId, accountId))
      .orderBy(callerNumbers.id);
    const own = rows.find((r) => r.profileId === profileId) ?? rows[0];
    const { settings } = cache();
    expect((await settings.defaultCallerNumber(accountId, profileId))?.id).toBe(own?.id);
    expect((await settings.defaultCallerNumber(accountId, null))?.id).toBe(rows[0]?.id);
  });

  it('shares one read among callers asking at once', async () => {
    const { settings } = cache();
    const [a, b] = await Promise.all([settings.profile(profileId), settings.profile(profileId)]);
    expect(a).toBe(b);
  });
});
