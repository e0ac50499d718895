/**
 * Users as the admin screens read them (issue 37): one user, or the account's users paged and
 * searched by name or e-mail, each with its teams. Every read is scoped by the account: another
 * account's user is not found.
 */
import { and, asc, count, eq, ilike, inArray, or } from 'drizzle-orm';
import {
  ADMIN_PAGE_SIZE,
  type AdminListQuery,
  type AdminUser,
  type AdminUserList,
} from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { teamMembers, users } from '../db/schema';
import { AppError } from '../http/errors';
import { escapeLike } from '../users/agents-repo';
import type { UserRow } from '../users/users-repo';

/** The sentence of a user id the account does not have. */
export const USER_NOT_FOUND = 'User not found.';

/** The sentence of an e-mail address another user has (in any account, in any case). */
export const EMAIL_TAKEN = 'A user with this email already exists.';

/** The team ids of each of `userIds` (ascending); users without a team are absent. */
export async function teamIdsOf(db: DbOrTx, userIds: number[]): Promise<Map<number, number[]>> {
  const byUser = new Map<number, number[]>();
  if (userIds.length === 0) return byUser;
  const rows = await db
    .select({ userId: teamMembers.userId, teamId: teamMembers.teamId })
    .from(teamMembers)
    .where(inArray(teamMembers.userId, userIds))
    .orderBy(asc(teamMembers.teamId));
  for (const row of rows) {
    const list = byUser.get(row.userId) ?? [];
    list.push(row.teamId);
    byUser.set(row.userId, list);
  }
  return byUser;
}

/** A user row as the admin API shows it. */
export function toAdminUser(row: UserRow, teamIds: number[]): AdminUser {
  return {
    id: row.id,
    full_name: row.fullName,
    email: row.email,
    role: row.role,
    permissions: row.permissions,
    team_ids: teamIds,
    country_code: row.countryCode,
    phone_number: row.phoneNumber,
    integrations: {
      hubspot_id: row.integrations.hubspot_id ?? null,
      salesforce_domain: row.integrations.salesforce_domain ?? null,
      activecampaign_domain: row.integrations.activecampaign_domain ?? null,
    },
    active: row.active,
    sso_bound: row.ssoSubject !== null,
    created_at: row.createdAt.toISOString(),
  };
}

/** The user of the account as the admin API shows it; 404 when the account has none by that id. */
export async function getAdminUser(
  db: DbOrTx,
  accountId: number,
  userId: number,
): Promise<AdminUser> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, userId)));
  if (!row) throw new AppError('NOT_FOUND', USER_NOT_FOUND);
  const teams = await teamIdsOf(db, [row.id]);
  return toAdminUser(row, teams.get(row.id) ?? []);
}

/**
 * A page ({@link ADMIN_PAGE_SIZE} users) of the account's users, active or not, by name; with
 * `search`, only those whose name or e-mail contains it (without regard to case).
 */
export async function listAdminUsers(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminUserList> {
  const pattern = query.search ? `%${escapeLike(query.search)}%` : null;
  const where = and(
    eq(users.accountId, accountId),
    pattern ? or(ilike(users.fullName, pattern), ilike(users.email, pattern)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(users).where(where);
  const rows = await db
    .select()
    .from(users)
    .where(where)
    .orderBy(asc(users.fullName), asc(users.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset((query.page - 1) * ADMIN_PAGE_SIZE);
  const teams = await teamIdsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    data: rows.map((row) => toAdminUser(row, teams.get(row.id) ?? [])),
    meta: {
      current_page: query.page,
      last_page: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)),
      per_page: ADMIN_PAGE_SIZE,
      total,
    },
  };
}
