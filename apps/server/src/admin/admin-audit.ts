/**
 * The audit log as the admin reads it (GET /api/v1/admin/audit, issue 37): who changed what,
 * when, newest first, paged; with `search`, the entries whose action or target contains it. An
 * entry of the command line or the seed (no actor) shows no actor.
 */
import { and, count, desc, eq, ilike, or } from 'drizzle-orm';
import { ADMIN_PAGE_SIZE, type AdminAuditList, type AdminListQuery } from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { auditLog, users } from '../db/schema';
import { escapeLike } from '../users/agents-repo';

/** A page of the account's audit log, newest first. */
export async function listAdminAudit(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminAuditList> {
  const pattern = query.search ? `%${escapeLike(query.search)}%` : null;
  const where = and(
    eq(auditLog.accountId, accountId),
    pattern ? or(ilike(auditLog.action, pattern), ilike(auditLog.target, pattern)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(auditLog)
    .where(where);
  const rows = await db
    .select({
      id: auditLog.id,
      at: auditLog.createdAt,
      actorId: users.id,
      actorName: users.fullName,
      action: auditLog.action,
      target: auditLog.target,
      changes: auditLog.changes,
    })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(where)
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset((query.page - 1) * ADMIN_PAGE_SIZE);
  return {
    data: rows.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor:
        row.actorId === null || row.actorName === null
          ? null
          : { id: row.actorId, full_name: row.actorName },
      action: row.action,
      target: row.target,
      changes: row.changes,
    })),
    meta: {
      current_page: query.page,
      last_page: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)),
      per_page: ADMIN_PAGE_SIZE,
      total,
    },
  };
}
