/**
 * A new account and its first admin, in one transaction with their audit entries (issue 37):
 * what `npm run admin -- create-account` does on an empty production database, and what the
 * demo seed can build on (`insertAccount` alone makes an account without users).
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AdminEmail, CountryCode, TimeZone, type AccountSettings } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import type { DbOrTx } from '../db/database';
import { accounts, type AccountPolicy } from '../db/schema';
import { parseWith } from '../http/validate';
import { appendAudit, diffFields, type AuditActor } from './audit';
import { checkPasswordStrength, createAdminUser, type PasswordHashing } from './admin-users-write';

/** An account to make: name, country (default US) and time zone (default UTC). */
export const NewAccount = z.strictObject({
  name: z
    .string({ error: 'The account name is required.' })
    .trim()
    .min(1, { error: 'The account name is required.' })
    .max(100, { error: 'The account name may not be longer than 100 characters.' }),
  country_code: CountryCode.default('US'),
  time_zone: TimeZone.default('UTC'),
});
export type NewAccount = z.input<typeof NewAccount>;

/** What {@link createAccount} needs: the account and its first admin. */
export const NewAccountWithAdmin = NewAccount.extend({
  admin_email: AdminEmail,
  /** The admin's password (strength is checked with the e-mail). */
  admin_password: z.string({ error: 'The password is required.' }),
  /** The admin's name; default: the e-mail's name part. */
  admin_full_name: z
    .string()
    .trim()
    .min(1, { error: "The admin's name may not be empty." })
    .max(100, { error: "The admin's name may not be longer than 100 characters." })
    .optional(),
});
export type NewAccountWithAdmin = z.input<typeof NewAccountWithAdmin>;

/** Extra columns the seed sets (its accounts have fixed ids and behaviours). */
export interface AccountExtras {
  /** A fixed id (the spec's accounts 6671, 9920, …); default: the next one. */
  id?: number;
  settings?: AccountSettings;
  policy?: AccountPolicy;
  ssoEnabled?: boolean;
}

/**
 * Inserts an account (within `db`'s transaction if it is one) and its `account.create` audit
 * entry; resolves with its id. `input` is checked (422 with a sentence).
 */
export async function insertAccount(
  db: DbOrTx,
  actor: AuditActor,
  input: NewAccount,
  extras: AccountExtras = {},
): Promise<number> {
  const account = parseWith(NewAccount, input);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(accounts)
      .values({
        ...(extras.id === undefined ? {} : { id: extras.id }),
        name: account.name,
        countryCode: account.country_code,
        timeZone: account.time_zone,
        settings: extras.settings ?? {},
        policy: extras.policy ?? {},
        ssoEnabled: extras.ssoEnabled ?? false,
      })
      .returning({ id: accounts.id });
    if (extras.id !== undefined) {
      // An explicit id: the sequence moves past it, so the next account gets a free one.
      await tx.execute(
        sql`select setval(pg_get_serial_sequence('accounts', 'id'),
          greatest((select max(id) from accounts), 1))`,
      );
    }
    await appendAudit(tx, {
      accountId: row!.id,
      actor,
      action: 'account.create',
      target: `account:${row!.id}`,
      changes: diffFields(null, {
        name: account.name,
        country_code: account.country_code,
        time_zone: account.time_zone,
      }),
    });
    return row!.id;
  });
}

/**
 * Creates an account and its first admin (role admin, no call permissions) in one transaction;
 * resolves with their ids. Refuses (nothing written) a weak password (422), an e-mail another
 * user has (409), or a field it cannot read (422).
 */
export async function createAccount(
  db: DbOrTx,
  actor: AuditActor,
  input: NewAccountWithAdmin,
  options: PasswordHashing = {},
): Promise<{ accountId: number; userId: number }> {
  const parsed = parseWith(NewAccountWithAdmin, input);
  checkPasswordStrength(parsed.admin_password, parsed.admin_email, options);
  // Hashed before the transaction: it takes half a second, and holds nothing meanwhile.
  const hash = await (options.hashPassword ?? hashPassword)(parsed.admin_password);
  return db.transaction(async (tx) => {
    const accountId = await insertAccount(tx, actor, {
      name: parsed.name,
      country_code: parsed.country_code,
      time_zone: parsed.time_zone,
    });
    const user = await createAdminUser(
      tx,
      actor,
      accountId,
      {
        full_name: parsed.admin_full_name ?? parsed.admin_email.split('@')[0]!.slice(0, 100),
        email: parsed.admin_email,
        password: parsed.admin_password,
        role: 'admin',
        permissions: [],
        team_ids: [],
      },
      { hashPassword: async () => hash },
    );
    return { accountId, userId: user.id };
  });
}
