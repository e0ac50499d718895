/**
 * "Single sign-on only" accounts (policy `sso_only`): their users sign in through the
 * provider, never with a password. Password login asks here before it checks the password, so
 * a password is never tried (nor confirmed to a guesser) for such a user.
 */
import type { FastifyBaseLogger } from 'fastify';
import { loadAccountPolicy, ssoPolicyOf } from '../accounts/account-policy';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';

/**
 * Refuses password login (403 `SSO_ONLY`) for a user whose account signs in with single sign-on
 * only; does nothing for any other user, or for no user (the login fails as usual then).
 */
export async function refusePasswordLoginIfSsoOnly(
  db: Db,
  user: { accountId: number } | null,
  log: Pick<FastifyBaseLogger, 'warn'>,
): Promise<void> {
  if (!user) return;
  const policy = ssoPolicyOf(await loadAccountPolicy(db, user.accountId));
  if (policy.problems.length) {
    log.warn(
      { accountId: user.accountId, problems: policy.problems },
      "the account's policy has fields that cannot be read: applied as their strictest",
    );
  }
  if (policy.ssoOnly) throw new AppError('SSO_ONLY');
}
