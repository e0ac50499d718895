/**
 * Test support: the demo seed's users as a production start's tests use them. Production refuses
 * the demo's published password at sign-in (`auth/demo-password.ts`), so tests that start the
 * product in production mode on the demo seed's cast give those users another password first.
 */
import { hashPassword } from '../auth/password';
import type { Db } from '../db/database';
import { users } from '../db/schema';

/** The password {@link givePasswordToAll} gives. */
export const PRODUCTION_TEST_PASSWORD = 'production-test-password-0123';

/** Gives every user of the database {@link PRODUCTION_TEST_PASSWORD} (one hash for all). */
export async function givePasswordToAll(db: Db): Promise<void> {
  await db.update(users).set({ passwordHash: await hashPassword(PRODUCTION_TEST_PASSWORD) });
}
