/** Login, logout and the signed-in user (spec section 7). */
import type { FastifyInstance } from 'fastify';
import { LoginBody, TimeQuery, type UserResponse } from '@leadline/contracts';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { findUserByEmail, toUserResource } from '../users/users-repo';
import { clearSessionCookie, sessionOf, setSessionCookie } from './auth-plugin';
import { verifyPassword } from './password';
import { SESSION_COOKIE, type SessionStore } from './sessions';
import type { AccessTokens } from './access-token';

/** Routes of signing in and out. */
export function authRoutes(deps: { db: Db; sessions: SessionStore; tokens: AccessTokens }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/user/login', { config: { auth: 'public' } }, async (request, reply) => {
      const body = parseWith(LoginBody, request.body);
      const user = await findUserByEmail(deps.db, body.email);
      const ok = await verifyPassword(body.password, user?.passwordHash ?? null);
      if (!user || !ok) throw new AppError('LOGIN_FAILED');
      // A fresh session id at every login (no fixation); the old cookie's session ends.
      const previous = request.cookies[SESSION_COOKIE];
      if (previous) {
        const old = await deps.sessions.find(previous);
        if (old) await deps.sessions.destroy(old.sessionId);
      }
      const { cookie, expiresAt } = await deps.sessions.create(user.id);
      setSessionCookie(request, reply, cookie, expiresAt);
      return { success: true };
    });

    app.post('/api/v1/user/logout', async (request, reply) => {
      const session = sessionOf(request);
      await deps.sessions.destroy(session.sessionId);
      clearSessionCookie(request, reply);
      return { success: true };
    });

    app.get('/api/v1/user', async (request): Promise<UserResponse> => {
      parseWith(TimeQuery, request.query, 'query');
      const session = sessionOf(request);
      const user = await toUserResource(deps.db, session.user, session.csrfToken);
      return { success: true, user, csrf_token: session.csrfToken };
    });

    app.get('/api/v1/twilio/token2', async (request) => {
      parseWith(TimeQuery, request.query, 'query');
      const { user } = sessionOf(request);
      return { token: await deps.tokens.issue(user.id, user.accountId) };
    });
  };
}
