/** Login, logout and the signed-in user (spec section 7). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LoginBody, TimeQuery, UserSettingsBody, type UserResponse } from '@leadline/contracts';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import {
  findUserByEmail,
  replacePasswordHash,
  setAutoaccept,
  toUserResource,
} from '../users/users-repo';
import type { LoginThrottle } from './login-throttle';
import { PERMISSION, requirePermission } from './permissions';
import { clearSessionCookie, sessionCookieOf, sessionOf, setSessionCookie } from './auth-plugin';
import { hashPassword, needsRehash, verifyPassword } from './password';
import { refusePasswordLoginIfSsoOnly } from './sso-only';
import type { SessionStore } from './sessions';
import { sessionTagOf, type SocketAccess } from './socket-access';
import type { TokenIssuer } from './twilio-access-tokens';
import { soundUrls } from '../sounds/sounds';
import type { PusherCredentials } from '../realtime/pusher-auth';
import {
  realtimeSettings,
  type BrowserOrigin,
  type RealtimeTarget,
} from '../realtime/realtime-target';

/** The address the browser reached the server at (`Host`, or `X-Forwarded-*` behind a proxy). */
export function browserOriginOf(request: FastifyRequest): BrowserOrigin {
  const https = request.protocol === 'https';
  return { hostname: request.hostname, port: request.port ?? (https ? 443 : 80), https };
}

/**
 * Signs `userId` in on this browser (password login and single sign-on alike): a fresh session
 * id at every login (no fixation), and the session of the cookie it had, if any, ends.
 */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionStore,
  userId: number,
): Promise<void> {
  const previous = sessionCookieOf(request);
  if (previous) {
    const old = await sessions.find(previous);
    if (old) await sessions.destroy(old.sessionId);
  }
  const { cookie, expiresAt } = await sessions.create(userId);
  setSessionCookie(request, reply, cookie, expiresAt);
}

/** Routes of signing in and out. */
export function authRoutes(deps: {
  db: Db;
  sessions: SessionStore;
  tokens: TokenIssuer;
  loginThrottle: LoginThrottle;
  /** The SDK the console loads. */
  voiceSdk: 'leadline' | 'twilio';
  /** `twilio`: the SDK connects to Twilio's edge (`TELEPHONY_PROVIDER=twilio`). */
  edge?: 'twilio' | undefined;
  /** The realtime service the console connects to. */
  realtime: { credentials: PusherCredentials; target: RealtimeTarget };
  /** The time (presence is read at it). */
  now?: () => Date;
  /** The sockets each login let in, closed when it logs out. */
  sockets?: SocketAccess | undefined;
}) {
  const now = deps.now ?? (() => new Date());
  const softphone = {
    sdk: deps.voiceSdk,
    sounds: soundUrls(),
    ...(deps.edge ? { edge: deps.edge } : {}),
  };
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/user/login', { config: { auth: 'public' } }, async (request, reply) => {
      const body = parseWith(LoginBody, request.body);
      // Refused while this address is locked out of this e-mail; else it may wait a moment.
      const verdict = await deps.loginThrottle.admit(body.email, request.ip);
      if ('refusedForMs' in verdict) {
        const minutes = Math.ceil(verdict.refusedForMs / 60_000);
        reply.header('retry-after', Math.ceil(verdict.refusedForMs / 1000));
        throw new AppError(
          'TOO_MANY_LOGINS',
          `Too many login attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        );
      }
      // A deactivated user (issue 37) is refused as a wrong password is: nothing tells them
      // apart, not even the single-sign-on-only refusal.
      const found = await findUserByEmail(deps.db, body.email);
      const user = found?.active ? found : null;
      await refusePasswordLoginIfSsoOnly(deps.db, user, request.log);
      const ok = await verifyPassword(body.password, found?.passwordHash ?? null);
      if (!user || !ok) {
        await deps.loginThrottle.failed(body.email, request.ip);
        throw new AppError('LOGIN_FAILED');
      }
      await deps.loginThrottle.succeeded(body.email, request.ip);
      // A hash made at an older cost is replaced now, while the password is at hand.
      if (needsRehash(user.passwordHash)) {
        const rehashed = await hashPassword(body.password);
        await replacePasswordHash(deps.db, user.id, user.passwordHash, rehashed);
      }
      await startSession(request, reply, deps.sessions, user.id);
      return { success: true };
    });

    app.post('/api/v1/user/logout', async (request, reply) => {
      const session = sessionOf(request);
      await deps.sessions.destroy(session.sessionId);
      clearSessionCookie(request, reply);
      // The softphone and realtime sockets this login let in close now, on every instance.
      await deps.sockets?.sessionEnded(session.sessionId);
      return { success: true };
    });

    // Session + CSRF: ends every session of the user (this browser's and every other), and the
    // sockets they let in, on every instance.
    app.post('/api/v1/user/logout-everywhere', async (request, reply) => {
      const session = sessionOf(request);
      const ended = await deps.sessions.destroyAllOf(session.user.id);
      clearSessionCookie(request, reply);
      await deps.sockets?.sessionsEnded(ended);
      return { success: true };
    });

    app.get('/api/v1/user', async (request): Promise<UserResponse> => {
      parseWith(TimeQuery, request.query, 'query');
      const session = sessionOf(request);
      const user = await toUserResource(deps.db, session.user, session.csrfToken, now());
      const realtime = realtimeSettings(
        deps.realtime.credentials,
        deps.realtime.target,
        browserOriginOf(request),
        { id: user.id, accountId: user.account_id, csrfToken: session.csrfToken },
      );
      return { success: true, user, csrf_token: session.csrfToken, softphone, realtime };
    });

    app.put('/api/v1/user/settings', async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.autoaccept, 'change Auto Accept');
      const body = parseWith(UserSettingsBody, request.body);
      await setAutoaccept(deps.db, user.id, body.autoaccept);
      return { success: true, autoaccept: body.autoaccept };
    });

    app.get('/api/v1/twilio/token2', async (request) => {
      parseWith(TimeQuery, request.query, 'query');
      const { user, sessionId } = sessionOf(request);
      return { token: await deps.tokens.issue(user.id, user.accountId, sessionTagOf(sessionId)) };
    });
  };
}
