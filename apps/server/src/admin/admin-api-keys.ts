/**
 * The account's lead-intake API keys as its admin manages them (issue 37). A new key is made
 * here from 32 random bytes and shown once, in the create's answer; only its SHA-256 is kept
 * (`api_keys.key_hash`, as the auth plugin looks keys up) with its first characters
 * (`prefix`) to tell keys apart. A lead posted with a key gets the key's profile. Every write
 * appends its audit entry (the key itself redacted) in its own transaction.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, count, eq, ilike, sql } from 'drizzle-orm';
import {
  ADMIN_PAGE_SIZE,
  type AdminApiKey,
  type AdminApiKeyBody,
  type AdminApiKeyCreated,
  type AdminApiKeyList,
  type AdminListQuery,
} from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { apiKeys, profiles } from '../db/schema';
import { AppError } from '../http/errors';
import { REDACTED, appendAudit, type AuditActor } from './audit';
import { containing, pageOf } from './catalog-admin-lists';

type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What every key made here starts with (so a leaked one is recognisable as Leadline's). */
export const API_KEY_PREFIX = 'll_';
/** Random bytes in a key (base64url: 43 characters after the prefix). */
export const API_KEY_RANDOM_BYTES = 32;
/** How many of the key's first characters are kept and shown (`prefix`). */
export const API_KEY_SHOWN_CHARS = 8;
/** The sentence of a `profile_id` that is not a profile of the account. */
export const KEY_PROFILE_NOT_FOUND = 'The profile does not exist.';

/** A new key: `ll_` and 32 random bytes as base64url. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
}

/** What is kept of a key: its SHA-256 (hex), as the auth plugin looks it up. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The key as the admin screens list it (never the key itself). */
export function toAdminApiKey(row: ApiKeyRow): AdminApiKey {
  return {
    id: row.id,
    name: row.name,
    profile_id: row.profileId,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
  };
}

/** A page of the account's keys (by name), optionally those whose name contains `search`. */
export async function listApiKeys(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminApiKeyList> {
  const where = and(
    eq(apiKeys.accountId, accountId),
    query.search ? ilike(apiKeys.name, containing(query.search)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(apiKeys).where(where);
  const { offset, meta } = pageOf(query.page, total);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(where)
    .orderBy(sql`lower(${apiKeys.name})`, asc(apiKeys.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset(offset);
  return { data: rows.map(toAdminApiKey), meta };
}

/**
 * Makes a key (with `profile_id`, a profile of the account, or none: leads get the account's
 * first profile); audit `api_key.create` with the key redacted. The answer carries the key:
 * the only time it is ever shown.
 */
export async function createApiKey(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminApiKeyBody,
  key: string = generateApiKey(),
): Promise<AdminApiKeyCreated['data']> {
  return db.transaction(async (tx) => {
    if (body.profile_id !== null && body.profile_id !== undefined) {
      const [profile] = await tx
        .select({ id: profiles.id })
        .from(profiles)
        .where(and(eq(profiles.accountId, accountId), eq(profiles.id, body.profile_id)));
      if (!profile) throw new AppError('VALIDATION_FAILED', KEY_PROFILE_NOT_FOUND);
    }
    const [row] = await tx
      .insert(apiKeys)
      .values({
        accountId,
        name: body.name,
        keyHash: apiKeyHash(key),
        prefix: key.slice(0, API_KEY_SHOWN_CHARS),
        profileId: body.profile_id ?? null,
      })
      .returning();
    const created = toAdminApiKey(row!);
    await appendAudit(tx, {
      accountId,
      actor,
      action: 'api_key.create',
      target: `api_key:${created.id}`,
      changes: {
        name: [null, created.name],
        profile_id: [null, created.profile_id],
        prefix: [null, created.prefix],
        key: [null, REDACTED],
      },
    });
    return { ...created, key };
  });
}

/**
 * Removes one of the account's keys (404 for another's); audit `api_key.delete`. The caller
 * announces the change so every instance forgets the key at once (`catalog-changes.ts`).
 */
export async function deleteApiKey(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  id: number,
): Promise<{ id: number }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id)))
      .returning();
    if (!row) throw new AppError('NOT_FOUND');
    await appendAudit(tx, {
      accountId,
      actor,
      action: 'api_key.delete',
      target: `api_key:${id}`,
      changes: {
        name: [row.name, null],
        profile_id: [row.profileId, null],
        prefix: [row.prefix, null],
      },
    });
    return { id };
  });
}
