/**
 * The single sign-on identity a user is bound to: the ID token's `iss` and `sub` (the provider's
 * stable id for a person, unlike the e-mail address, which can be renamed, recycled or claimed
 * by another of the provider's accounts). The first sign-in binds it; every later sign-in must
 * present the same pair. The pair is unique among users (`users_sso_identity_unique`), so two
 * sign-ins racing to bind are decided by the database, on any instance.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/database';
import { users } from '../db/schema';

/** The ID token's issuer and subject. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
}

/**
 * How a sign-in's identity stands to its user:
 * - `bound`: the user was bound to it before;
 * - `bound_now`: this first sign-in bound the user to it;
 * - `bound_to_another`: the user is bound to another identity (another `sub` or issuer);
 * - `taken`: another user is bound to this identity.
 */
export type SsoIdentityCheck = 'bound' | 'bound_now' | 'bound_to_another' | 'taken';

/** The user's side of the check: its id and the identity it is bound to (null: none yet). */
export interface SsoBoundUser {
  id: number;
  ssoIssuer: string | null;
  ssoSubject: string | null;
}

const sameIdentity = (user: SsoBoundUser, identity: SsoIdentity): boolean =>
  user.ssoIssuer === identity.issuer && user.ssoSubject === identity.subject;

const isBound = (user: SsoBoundUser): boolean =>
  user.ssoIssuer !== null || user.ssoSubject !== null;

/**
 * Checks `identity` against `user` (as read with the sign-in) and binds it at the user's first
 * sign-in. Binds nothing in any other case.
 */
export async function checkSsoIdentity(
  db: Db,
  user: SsoBoundUser,
  identity: SsoIdentity,
): Promise<SsoIdentityCheck> {
  if (isBound(user)) return sameIdentity(user, identity) ? 'bound' : 'bound_to_another';
  const [holder] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.ssoIssuer, identity.issuer), eq(users.ssoSubject, identity.subject)))
    .limit(1);
  if (holder && holder.id !== user.id) return 'taken';
  let updated: { id: number }[];
  try {
    updated = await db
      .update(users)
      .set({ ssoIssuer: identity.issuer, ssoSubject: identity.subject })
      .where(and(eq(users.id, user.id), isNull(users.ssoIssuer), isNull(users.ssoSubject)))
      .returning({ id: users.id });
  } catch (error) {
    // Another user was bound to this identity since the look-up above.
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
  if (updated.length === 1) return 'bound_now';
  // Another sign-in bound this user since it was read: compare with what it bound.
  const [current] = await db
    .select({ id: users.id, ssoIssuer: users.ssoIssuer, ssoSubject: users.ssoSubject })
    .from(users)
    .where(eq(users.id, user.id));
  return current && sameIdentity(current, identity) ? 'bound' : 'bound_to_another';
}

/** PostgreSQL's unique_violation (23505), from PGlite or `pg`, bare or wrapped by Drizzle. */
function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
