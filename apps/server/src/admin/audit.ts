/**
 * The audit log (issue 37): every admin write appends what it changed, in the same transaction
 * as the change, so an entry exists exactly when the change does.
 */
import type { DbOrTx } from '../db/database';
import { auditLog } from '../db/schema';

/** Who made a change: an admin, or nobody (`npm run admin`, the demo seed). */
export interface AuditActor {
  /** The admin's user id; null for the command line and the seed. */
  userId: number | null;
}

/** The command line's and the seed's actor. */
export const SYSTEM_ACTOR: AuditActor = { userId: null };

/** What stands in the log for a secret (a password, an API key). */
export const REDACTED = '[redacted]';

/** One entry: `action` such as `user.create`, `target` such as `user:12`. */
export interface AuditEntry {
  accountId: number;
  actor: AuditActor;
  action: string;
  target: string;
  /** `{ field: [before, after] }` (a create: `[null, value]`); secrets as `REDACTED`. */
  changes: Record<string, unknown>;
}

/** Appends `entry` (call it with the transaction that makes the change). */
export async function appendAudit(tx: DbOrTx, entry: AuditEntry): Promise<void> {
  await tx.insert(auditLog).values({
    accountId: entry.accountId,
    actorUserId: entry.actor.userId,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
  });
}

/**
 * The `{ field: [before, after] }` of the fields of `after` that differ from `before` (compared
 * as JSON); fields named in `secret` are written as `REDACTED` on both sides.
 */
export function diffFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
  secret: readonly string[] = [],
): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before ? before[field] : null;
    if (before && JSON.stringify(old ?? null) === JSON.stringify(value ?? null)) continue;
    changes[field] = secret.includes(field)
      ? [before ? REDACTED : null, REDACTED]
      : [old ?? null, value];
  }
  return changes;
}
