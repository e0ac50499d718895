/**
 * An account's teams as its admin keeps them (issue 37): listed with how many users each has,
 * created, renamed and deleted. Team names are unique in the account without regard to case
 * (409). Deleting a team removes its members from it and leaves its profiles without a team
 * (their calls then go to every agent of the account); calls keep their history.
 */
import { and, asc, count, eq, ilike, ne, sql } from 'drizzle-orm';
import {
  ADMIN_PAGE_SIZE,
  type AdminListQuery,
  type AdminTeam,
  type AdminTeamBody,
  type AdminTeamList,
} from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { teamMembers, teams } from '../db/schema';
import { AppError } from '../http/errors';
import { escapeLike } from '../users/agents-repo';
import { appendAudit, type AuditActor } from './audit';
import { refuseDuplicates } from './admin-users-unique';

/** The sentence of a team id the account does not have. */
export const TEAM_NOT_FOUND = 'Team not found.';

/** The sentence of a name another team of the account has (in any case). */
export const TEAM_NAME_TAKEN = 'A team with this name already exists.';

const nameTaken = () => new AppError('ALREADY_EXISTS', TEAM_NAME_TAKEN);

const memberCount = sql<number>`(select count(*) from ${teamMembers}
  where ${teamMembers.teamId} = ${teams.id})::int`;

const toAdminTeam = (row: { id: number; name: string; memberCount: number; createdAt: Date }) => ({
  id: row.id,
  name: row.name,
  member_count: Number(row.memberCount),
  created_at: row.createdAt.toISOString(),
});

const teamColumns = {
  id: teams.id,
  name: teams.name,
  memberCount,
  createdAt: teams.createdAt,
};

/** The team of the account as the admin API shows it; 404 when the account has none by that id. */
export async function getAdminTeam(
  db: DbOrTx,
  accountId: number,
  teamId: number,
): Promise<AdminTeam> {
  const [row] = await db
    .select(teamColumns)
    .from(teams)
    .where(and(eq(teams.accountId, accountId), eq(teams.id, teamId)));
  if (!row) throw new AppError('NOT_FOUND', TEAM_NOT_FOUND);
  return toAdminTeam(row);
}

/**
 * A page of the account's teams by name (without regard to case); with `search`, those whose
 * name contains it.
 */
export async function listAdminTeams(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminTeamList> {
  const where = and(
    eq(teams.accountId, accountId),
    query.search ? ilike(teams.name, `%${escapeLike(query.search)}%`) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(teams).where(where);
  const rows = await db
    .select(teamColumns)
    .from(teams)
    .where(where)
    .orderBy(sql`lower(${teams.name})`, asc(teams.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset((query.page - 1) * ADMIN_PAGE_SIZE);
  return {
    data: rows.map(toAdminTeam),
    meta: {
      current_page: query.page,
      last_page: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)),
      per_page: ADMIN_PAGE_SIZE,
      total,
    },
  };
}

/** Throws 409 when another team of the account (not `exceptTeamId`) has this name, in any case. */
async function refuseTakenName(
  tx: DbOrTx,
  accountId: number,
  name: string,
  exceptTeamId?: number,
): Promise<void> {
  const [taken] = await tx
    .select({ id: teams.id })
    .from(teams)
    .where(
      and(
        eq(teams.accountId, accountId),
        sql`lower(${teams.name}) = ${name.toLowerCase()}`,
        exceptTeamId === undefined ? undefined : ne(teams.id, exceptTeamId),
      ),
    )
    .limit(1);
  if (taken) throw nameTaken();
}

/** Creates a team of the account (POST /api/v1/admin/teams). */
export async function createAdminTeam(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminTeamBody,
): Promise<AdminTeam> {
  return db.transaction(async (tx) => {
    await refuseTakenName(tx, accountId, body.name);
    const [row] = await refuseDuplicates(
      () => tx.insert(teams).values({ accountId, name: body.name }).returning(),
      nameTaken,
    );
    const team = toAdminTeam({ ...row!, memberCount: 0 });
    await appendAudit(tx, {
      accountId,
      actor,
      action: 'team.create',
      target: `team:${team.id}`,
      changes: { name: [null, team.name] },
    });
    return team;
  });
}

/** Renames a team of the account (PATCH /api/v1/admin/teams/{id}). */
export async function renameAdminTeam(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  teamId: number,
  body: AdminTeamBody,
): Promise<AdminTeam> {
  return db.transaction(async (tx) => {
    const before = await getAdminTeam(tx, accountId, teamId);
    await refuseTakenName(tx, accountId, body.name, teamId);
    await refuseDuplicates(
      () =>
        tx
          .update(teams)
          .set({ name: body.name })
          .where(and(eq(teams.accountId, accountId), eq(teams.id, teamId))),
      nameTaken,
    );
    if (before.name !== body.name) {
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'team.update',
        target: `team:${teamId}`,
        changes: { name: [before.name, body.name] },
      });
    }
    return { ...before, name: body.name };
  });
}

/**
 * Deletes a team of the account (DELETE /api/v1/admin/teams/{id}): its members leave it, its
 * profiles have no team any more.
 */
export async function deleteAdminTeam(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  teamId: number,
): Promise<AdminTeam> {
  return db.transaction(async (tx) => {
    const before = await getAdminTeam(tx, accountId, teamId);
    await tx.delete(teams).where(and(eq(teams.accountId, accountId), eq(teams.id, teamId)));
    await appendAudit(tx, {
      accountId,
      actor,
      action: 'team.delete',
      target: `team:${teamId}`,
      changes: { name: [before.name, null], member_count: [before.member_count, null] },
    });
    return before;
  });
}
