/**
 * Who may call the admin API (`/api/v1/admin/…`, issue 37): a session (the auth plugin's
 * default, CSRF on writes) of an active user whose role is `admin`; everyone else gets a 403.
 * Every admin query is scoped by the admin's own account: another account's ids answer 404.
 */
import type { FastifyRequest } from 'fastify';
import { sessionOf } from '../auth/auth-plugin';
import { AppError } from '../http/errors';

/** The admin behind a request: their id (the audit's actor) and their account. */
export interface AdminActor {
  userId: number;
  accountId: number;
}

/** The admin of the request's session; throws 401 without a session, 403 for non-admins. */
export function requireAdmin(request: FastifyRequest): AdminActor {
  const { user } = sessionOf(request);
  if (user.role !== 'admin') throw new AppError('ADMIN_ONLY');
  return { userId: user.id, accountId: user.accountId };
}
