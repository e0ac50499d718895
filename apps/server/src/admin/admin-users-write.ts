/**
 * An admin creates and changes the account's users (issue 37). Each write checks what it is
 * given (422 with a sentence), writes in one transaction with its audit entry, and refuses:
 * an e-mail address another user has, without regard to case (409); a team of another account
 * (422); the last active admin of the account demoted or deactivated (409 `LAST_ADMIN`).
 *
 * Deactivating a user keeps their history (their calls, notes and messages stay theirs), ends
 * their sessions in the same transaction and takes them out of routing (routing's queries
 * skip inactive users). The caller then withdraws the sockets of the ended sessions
 * (`SocketAccess.sessionsEnded`) and announces the change (`admin-changes.ts`).
 */
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import {
  passwordWeakness,
  type AdminUser,
  type AdminUserCreateBody,
  type AdminUserUpdateBody,
} from '@leadline/contracts';
import { DEMO_PASSWORD_NOT_ALLOWED, isDemoPassword } from '../auth/demo-password';
import { hashPassword } from '../auth/password';
import { endSessionsOf } from '../auth/sessions';
import type { DbOrTx } from '../db/database';
import { accounts, teamMembers, teams, users, type UserIntegrations } from '../db/schema';
import { AppError } from '../http/errors';
import { appendAudit, diffFields, REDACTED, type AuditActor } from './audit';
import { EMAIL_TAKEN, getAdminUser, toAdminUser } from './admin-users';
import { refuseDuplicates } from './admin-users-unique';

/**
 * How passwords are hashed (the seed passes one that hashes its shared password once), and
 * whether the demo's published password is refused (production, and the command line).
 */
export interface PasswordHashing extends PasswordRules {
  hashPassword?: (password: string) => Promise<string>;
}

/** What a password being set must be beyond its strength. */
export interface PasswordRules {
  /** Refuse the demo's published password (`auth/demo-password.ts`): production. */
  refuseDemoPassword?: boolean | undefined;
}

/** What {@link updateAdminUser} did. */
export interface AdminUserUpdate {
  user: AdminUser;
  /** The sessions it ended (deactivated, or a new password): withdraw their sockets. */
  endedSessionIds: string[];
}

/**
 * A password hash no password matches (`verifyPassword` reads no such hash): a user created
 * without a password signs in with single sign-on only.
 */
export const unusablePasswordHash = (): string => `!sso-only$${randomBytes(16).toString('hex')}`;

/** The sentence of a team id the account does not have. */
export const teamMissing = (teamId: number): string => `The team ${teamId} does not exist.`;

const emailTaken = () => new AppError('ALREADY_EXISTS', EMAIL_TAKEN);

/**
 * Throws 422 with the sentence when `password` is too weak for `email`, or is the demo's published
 * password where `rules` refuse it.
 */
export function checkPasswordStrength(
  password: string,
  email: string,
  rules: PasswordRules = {},
): void {
  if (rules.refuseDemoPassword && isDemoPassword(password)) {
    throw new AppError('VALIDATION_FAILED', DEMO_PASSWORD_NOT_ALLOWED);
  }
  const weakness = passwordWeakness(password, email);
  if (weakness) throw new AppError('VALIDATION_FAILED', weakness);
}

/** Throws 409 when a user (other than `exceptUserId`) has this e-mail, in any case. */
async function refuseTakenEmail(tx: DbOrTx, email: string, exceptUserId?: number): Promise<void> {
  const [taken] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        sql`lower(${users.email}) = ${email.toLowerCase()}`,
        exceptUserId === undefined ? undefined : ne(users.id, exceptUserId),
      ),
    )
    .limit(1);
  if (taken) throw emailTaken();
}

/** Throws 422 naming the first of `teamIds` the account does not have. */
async function refuseForeignTeams(tx: DbOrTx, accountId: number, teamIds: number[]): Promise<void> {
  if (teamIds.length === 0) return;
  const found = await tx
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.accountId, accountId), inArray(teams.id, teamIds)));
  const known = new Set(found.map((row) => row.id));
  const missing = teamIds.find((id) => !known.has(id));
  if (missing !== undefined) throw new AppError('VALIDATION_FAILED', teamMissing(missing));
}

/** Makes the user's teams exactly `teamIds`. */
async function setTeams(tx: DbOrTx, userId: number, teamIds: number[]): Promise<void> {
  await tx.delete(teamMembers).where(eq(teamMembers.userId, userId));
  if (teamIds.length > 0) {
    await tx.insert(teamMembers).values(teamIds.map((teamId) => ({ teamId, userId })));
  }
}

/**
 * Locks the account's row for the rest of the transaction (admin changes of one account happen
 * one after another: two admins demoted at once cannot both see the other still an admin);
 * resolves with the account, or throws 404.
 */
async function lockAccount(tx: DbOrTx, accountId: number) {
  const [account] = await tx
    .select({ id: accounts.id, countryCode: accounts.countryCode, policy: accounts.policy })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for('no key update');
  if (!account) throw new AppError('NOT_FOUND', 'Account not found.');
  return account;
}

/** Throws 409 `LAST_ADMIN` unless the account has an active admin besides `userId`. */
async function refuseLosingLastAdmin(tx: DbOrTx, accountId: number, userId: number) {
  const [other] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.accountId, accountId),
        eq(users.role, 'admin'),
        eq(users.active, true),
        ne(users.id, userId),
      ),
    )
    .limit(1);
  if (!other) throw new AppError('LAST_ADMIN');
}

/** The CRM ids a new user gets: the account's defaults, under the ones the admin gave. */
function integrationsFor(policy: unknown, given: UserIntegrations | undefined): UserIntegrations {
  const defaults =
    typeof policy === 'object' && policy !== null
      ? ((policy as { crm_defaults?: UserIntegrations }).crm_defaults ?? {})
      : {};
  return {
    hubspot_id: null,
    salesforce_domain: null,
    activecampaign_domain: null,
    ...defaults,
    ...given,
  };
}

/** The fields of a user the audit compares (what the admin can change). */
const audited = (user: AdminUser): Record<string, unknown> => {
  const { id: _id, created_at: _created, sso_bound: _sso, ...fields } = user;
  return fields;
};

/**
 * Creates a user of the account (POST /api/v1/admin/users); resolves with it as the admin API
 * shows it. Without a password the user can sign in with single sign-on only. The account's
 * CRM defaults fill the integrations the admin did not give; the country defaults to the
 * account's.
 */
export async function createAdminUser(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminUserCreateBody,
  options: PasswordHashing = {},
): Promise<AdminUser> {
  if (body.password !== undefined) checkPasswordStrength(body.password, body.email, options);
  const passwordHash =
    body.password === undefined
      ? unusablePasswordHash()
      : await (options.hashPassword ?? hashPassword)(body.password);
  return db.transaction(async (tx) => {
    const account = await lockAccount(tx, accountId);
    await refuseTakenEmail(tx, body.email);
    await refuseForeignTeams(tx, accountId, body.team_ids);
    const [row] = await refuseDuplicates(
      () =>
        tx
          .insert(users)
          .values({
            accountId,
            email: body.email,
            passwordHash,
            fullName: body.full_name,
            role: body.role,
            permissions: body.permissions,
            countryCode: body.country_code ?? account.countryCode,
            phoneNumber: body.phone_number ?? null,
            integrations: integrationsFor(account.policy, body.integrations),
            active: body.active ?? true,
          })
          .returning(),
      emailTaken,
    );
    await setTeams(tx, row!.id, body.team_ids);
    const user = toAdminUser(
      row!,
      [...body.team_ids].sort((a, b) => a - b),
    );
    await appendAudit(tx, {
      accountId,
      actor,
      action: 'user.create',
      target: `user:${user.id}`,
      changes: {
        ...diffFields(null, audited(user)),
        ...(body.password === undefined ? {} : { password: [null, REDACTED] }),
      },
    });
    return user;
  });
}

/**
 * Changes a user of the account (PATCH /api/v1/admin/users/{id}): only the fields given.
 * `active: false` deactivates them (sessions ended, out of routing, history kept); a new
 * password ends their sessions too, except `keepSessionId` (an admin changing their own keeps
 * the session they are using). The last active admin can be neither demoted nor deactivated.
 */
export async function updateAdminUser(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  userId: number,
  body: AdminUserUpdateBody,
  options: PasswordHashing & { keepSessionId?: string | null } = {},
): Promise<AdminUserUpdate> {
  let passwordHash: string | undefined;
  if (body.password !== undefined) {
    const email = body.email ?? (await getAdminUser(db, accountId, userId)).email;
    checkPasswordStrength(body.password, email, options);
    passwordHash = await (options.hashPassword ?? hashPassword)(body.password);
  }
  return db.transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const before = await getAdminUser(tx, accountId, userId);
    const role = body.role ?? before.role;
    const active = body.active ?? before.active;
    if (before.role === 'admin' && before.active && (role !== 'admin' || !active)) {
      await refuseLosingLastAdmin(tx, accountId, userId);
    }
    if (body.email !== undefined) await refuseTakenEmail(tx, body.email, userId);
    if (body.team_ids !== undefined) await refuseForeignTeams(tx, accountId, body.team_ids);
    const deactivated = before.active && !active;
    await refuseDuplicates(
      () =>
        tx
          .update(users)
          .set({
            ...(body.full_name === undefined ? {} : { fullName: body.full_name }),
            ...(body.email === undefined ? {} : { email: body.email }),
            ...(body.role === undefined ? {} : { role: body.role }),
            ...(body.permissions === undefined ? {} : { permissions: body.permissions }),
            ...(body.country_code === undefined ? {} : { countryCode: body.country_code }),
            ...(body.phone_number === undefined ? {} : { phoneNumber: body.phone_number }),
            ...(body.integrations === undefined
              ? {}
              : { integrations: { ...before.integrations, ...body.integrations } }),
            ...(passwordHash === undefined ? {} : { passwordHash }),
            // Out of routing at once: no device of theirs counts as online any more.
            ...(deactivated ? { active: false, isOnlineApp: false } : { active }),
          })
          .where(and(eq(users.accountId, accountId), eq(users.id, userId))),
      emailTaken,
    );
    if (body.team_ids !== undefined) await setTeams(tx, userId, body.team_ids);
    const endedSessionIds =
      deactivated || passwordHash !== undefined
        ? await endSessionsOf(tx, userId, deactivated ? null : options.keepSessionId)
        : [];
    const user = await getAdminUser(tx, accountId, userId);
    const changes = {
      ...diffFields(audited(before), audited(user)),
      ...(passwordHash === undefined ? {} : { password: [REDACTED, REDACTED] }),
    };
    if (Object.keys(changes).length > 0) {
      await appendAudit(tx, {
        accountId,
        actor,
        action:
          before.active === user.active
            ? 'user.update'
            : user.active
              ? 'user.reactivate'
              : 'user.deactivate',
        target: `user:${userId}`,
        changes,
      });
    }
    return { user, endedSessionIds };
  });
}

/** What {@link resetUserPassword} did. */
export interface PasswordReset {
  userId: number;
  accountId: number;
  /** The user's sessions it ended: withdraw their sockets (or let the sweep do it). */
  endedSessionIds: string[];
}

/**
 * Gives the user with this e-mail (any account, without regard to case) a new password
 * (`npm run admin -- reset-password`): strength checked, every session of theirs ended, the
 * audit entry written; 404 when nobody has the e-mail.
 */
export async function resetUserPassword(
  db: DbOrTx,
  actor: AuditActor,
  email: string,
  password: string,
  options: PasswordHashing = {},
): Promise<PasswordReset> {
  checkPasswordStrength(password, email, options);
  const passwordHash = await (options.hashPassword ?? hashPassword)(password);
  return db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({ passwordHash })
      .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
      .returning({ id: users.id, accountId: users.accountId });
    if (!user) throw new AppError('NOT_FOUND', 'No user has this email.');
    const endedSessionIds = await endSessionsOf(tx, user.id);
    await appendAudit(tx, {
      accountId: user.accountId,
      actor,
      action: 'user.update',
      target: `user:${user.id}`,
      changes: { password: [REDACTED, REDACTED] },
    });
    return { userId: user.id, accountId: user.accountId, endedSessionIds };
  });
}
