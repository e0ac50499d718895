/** Database access for idempotency keys (`http/idempotency.ts` says what they mean). */
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/database';
import { idempotencyKeys } from '../db/schema';

/** A stored idempotency key. */
export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;

/** An answer as it is stored and given again: HTTP status and JSON body. */
export interface StoredAnswer {
  statusCode: number;
  body: unknown;
}

/**
 * Claims `key` for the user: inserts it as in progress and resolves with its id, or with null
 * when the user already holds the key. Inside a transaction, PostgreSQL makes a concurrent
 * claim of the same key wait on the unique index until this transaction ends: it then finds the
 * key (commit) or claims it itself (rollback).
 */
export async function claimIdempotencyKey(
  db: DbOrTx,
  values: { userId: number; key: string; fingerprint: string; at: Date },
): Promise<number | null> {
  const [row] = await db
    .insert(idempotencyKeys)
    .values({
      userId: values.userId,
      key: values.key,
      fingerprint: values.fingerprint,
      createdAt: values.at,
    })
    .onConflictDoNothing({ target: [idempotencyKeys.userId, idempotencyKeys.key] })
    .returning({ id: idempotencyKeys.id });
  return row?.id ?? null;
}

/** The user's stored key, or null. */
export async function findIdempotencyKey(
  db: DbOrTx,
  userId: number,
  key: string,
): Promise<IdempotencyKeyRow | null> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
  return row ?? null;
}

/**
 * Stores the answer of a claim still in progress (`createdBefore`: only if it was claimed
 * before that time, for a stale claim). Resolves with whether this call stored it: an answer
 * is stored at most once.
 */
export async function storeIdempotentAnswer(
  db: DbOrTx,
  id: number,
  answer: StoredAnswer,
  createdBefore?: Date,
): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ statusCode: answer.statusCode, response: answer.body })
    .where(
      and(
        eq(idempotencyKeys.id, id),
        isNull(idempotencyKeys.statusCode),
        createdBefore === undefined ? undefined : lt(idempotencyKeys.createdAt, createdBefore),
      ),
    )
    .returning({ id: idempotencyKeys.id });
  return rows.length > 0;
}

/** Gives up a claim still in progress (its request failed before it did anything). */
export async function releaseIdempotencyKey(db: DbOrTx, id: number): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.id, id), isNull(idempotencyKeys.statusCode)));
}

/** Deletes every key created before `before` (one statement on the `created_at` index). */
export async function deleteIdempotencyKeysBefore(db: DbOrTx, before: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before));
}
