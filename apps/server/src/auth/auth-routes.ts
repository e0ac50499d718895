/** Login, logout and the signed-in user (spec section 7). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  LoginBody,
  LoginResponseSchema,
  RefusalSchema,
  SuccessResponseSchema,
  TimeQuery,
  TokenResponseSchema,
  UserResponseSchema,
  UserSettingsBody,
  UserSettingsResponseSchema,
  type UserResponse,
} from '@leadline/contracts';
import type { RouteDocs } from '../http/api-docs';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseRequest } from '../http/validate';
import {
  findUserByEmail,
  replacePasswordHash,
  setAutoaccept,
  toUserResource,
} from '../users/users-repo';
import type { LoginThrottle } from './login-throttle';
import { PERMISSION, requirePermission } from './permissions';
import { clearSessionCookie, sessionCookieOf, sessionOf, setSessionCookie } from './auth-plugin';
import { demoPasswordInUse, isDemoPassword } from './demo-password';
import { HashingBusyError, hashPassword, needsRehash, verifyPassword } from './password';
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

const TAGS = ['Sign-in'];

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
  /** Production: the demo's published password signs nobody in (`demo-password.ts`). */
  refuseDemoPassword?: boolean | undefined;
}) {
  const now = deps.now ?? (() => new Date());
  const softphone = {
    sdk: deps.voiceSdk,
    sounds: soundUrls(),
    ...(deps.edge ? { edge: deps.edge } : {}),
  };
  return async (app: FastifyInstance): Promise<void> => {
    const login = {
      summary: 'Signs in with e-mail and password',
      description:
        "Signs in with e-mail and password; sets the `leadline_session` cookie (httpOnly, SameSite=Lax, Secure behind TLS) and starts a new session. Failures: 422 for a malformed body, 401 `{ success: false, error: 'Your login credentials are invalid.' }`, 403 `{ success: false, error: 'Your account signs in with single sign-on only. Use Log in with Google.' }` for a user of an account whose policy is single sign-on only (`sso_only`; the password is not checked), 429 `{ success: false, error: 'Too many login attempts. Try again in 15 minutes.' }` (with `Retry-After`) to an address with 10 failures for that e-mail in 15 minutes, for 15 minutes, whatever the password; an attempt counts against those 10 from the moment it arrives, so of a burst only the first 10 are checked. Failures of one e-mail from anywhere only slow its next attempts (250 ms after the 3rd, doubling up to 5 s), so the right password from an address without failures gets in (`docs/deployment.md`). 429 `{ success: false, error: 'Too many sign-ins at once just now. Try again in a few seconds.' }` (with `Retry-After`) when 8 sign-ins already wait for a password check (2 run at a time): nobody waits behind an unbounded queue. An e-mail nobody has is answered as late as a check would be, without one. In production, the demo's published password `leadline-demo` signs nobody in: 403 `{ success: false, error: \"This password is the public demo's: it signs nobody in here. Ask your administrator for a new one.\" }` whoever the e-mail. A password hash of an older cost is replaced on success. The console reloads the page on success.",
      tags: TAGS,
      body: LoginBody,
      response: {
        200: LoginResponseSchema,
        401: RefusalSchema.describe('Wrong e-mail or password'),
        403: RefusalSchema.describe(
          "The account signs in with single sign-on only, or (production) the demo's password",
        ),
        429: RefusalSchema.describe(
          'Too many failed logins from this address for this e-mail, or too many sign-ins at once',
        ),
      },
    } satisfies RouteDocs;
    const loginRoute = { config: { auth: 'public' as const }, schema: login };
    app.post('/api/v1/user/login', loginRoute, async (request, reply) => {
      const body = parseRequest(request, 'body', login.body);
      // Refused while this address is locked out of this e-mail; else it may wait a moment. The
      // attempt counts as a failure from here on, until it succeeds or is given back.
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
      let ok: boolean;
      try {
        await refusePasswordLoginIfSsoOnly(deps.db, user, request.log);
        ok = await verifyPassword(body.password, found?.passwordHash ?? null);
      } catch (error) {
        // Not tried: the failure reserved for it is given back.
        await deps.loginThrottle.release(body.email, request.ip);
        if (!(error instanceof HashingBusyError)) throw error;
        reply.header('retry-after', Math.ceil(error.retryAfterMs / 1000));
        throw new AppError('SIGN_IN_BUSY');
      }
      // Production: the demo's published password signs nobody in, whoever has it. Every
      // attempt with it gets the same answer, so the answer tells nothing of the account.
      const demo = deps.refuseDemoPassword === true && isDemoPassword(body.password);
      if (!user || !ok) {
        await deps.loginThrottle.failed(body.email, request.ip);
        throw new AppError(demo ? 'DEMO_PASSWORD' : 'LOGIN_FAILED');
      }
      if (demo) {
        await deps.loginThrottle.release(body.email, request.ip);
        request.log.warn({ userId: user.id }, demoPasswordInUse(user.email));
        throw new AppError('DEMO_PASSWORD');
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

    const logout = {
      summary: 'Logs out: ends this session',
      description:
        "Ends the session and clears the cookie. The sockets this login let in close at once, on every instance: the softphone's signalling socket gets `error {code: 31204, message: 'Signed out: this session has ended.'}` (a call it carries ends at once, `hangup` with the same error) and the console's realtime socket is closed with 4009. The user's other logins keep theirs. A login that ends without a logout (expired, the user removed) loses its sockets within 5 s (`SOCKET_SWEEP_MS`, `apps/server/src/auth/socket-access.ts`).",
      tags: TAGS,
      response: { 200: SuccessResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/user/logout', { schema: logout }, async (request, reply) => {
      const session = sessionOf(request);
      await deps.sessions.destroy(session.sessionId);
      clearSessionCookie(request, reply);
      // The softphone and realtime sockets this login let in close now, on every instance.
      await deps.sockets?.sessionEnded(session.sessionId);
      return { success: true };
    });

    // Session + CSRF: ends every session of the user (this browser's and every other), and the
    // sockets they let in, on every instance.
    const logoutEverywhere = {
      summary: 'Log out everywhere: ends every session of the user',
      description:
        "Not in the spec's table: the profile menu's Log out everywhere. Ends every session of the user (this browser's and every other) and clears the cookie; the sockets those logins let in close at once, on every instance, as after a logout. Other users' sessions stay.",
      tags: TAGS,
      response: { 200: SuccessResponseSchema },
    } satisfies RouteDocs;
    const everywhere = { schema: logoutEverywhere };
    app.post('/api/v1/user/logout-everywhere', everywhere, async (request, reply) => {
      const session = sessionOf(request);
      const ended = await deps.sessions.destroyAllOf(session.user.id);
      clearSessionCookie(request, reply);
      await deps.sockets?.sessionsEnded(ended);
      return { success: true };
    });

    const me = {
      summary: 'The signed-in user, its CSRF token and the console’s settings',
      description:
        "The signed-in user with the account settings the console needs (the spec's account ids as settings), the `csrf_token` every later mutating request sends as `X-CSRF-TOKEN`, `softphone`: which SDK the console loads (`VOICE_SDK`: `leadline` or `twilio`) and the product's sound URLs, and `realtime`: what the console passes to pusher-js (`key`, `options` with the same `X-CSRF-TOKEN` for channel auth, and the two `channels` it subscribes to; `docs/realtime.md`). `user.status` is where the agent is now, as `PUT /api/v1/user/status` answers. 401 without a session (the console then shows the login view). The `time` query is a cache-buster and ignored.",
      tags: TAGS,
      querystring: TimeQuery,
      response: { 200: UserResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/user', { schema: me }, async (request): Promise<UserResponse> => {
      parseRequest(request, 'querystring', me.querystring);
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

    const settings = {
      summary: 'Auto Accept on or off',
      description: `${"Not in the spec's table: the Settings panel's Auto Accept toggle. Incoming calls rung to the user are then answered automatically (except on a profile with `auto_answer: false`, seeded as profile 7703)."} Permission \`app-autoaccept\` (403 without it).`,
      tags: TAGS,
      body: UserSettingsBody,
      response: { 200: UserSettingsResponseSchema, 403: RefusalSchema },
    } satisfies RouteDocs;
    app.put('/api/v1/user/settings', { schema: settings }, async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.autoaccept, 'change Auto Accept');
      const body = parseRequest(request, 'body', settings.body);
      await setAutoaccept(deps.db, user.id, body.autoaccept);
      return { success: true, autoaccept: body.autoaccept };
    });

    const token = {
      summary: 'An access token for the softphone',
      description:
        'An access token for the softphone: a JWT shaped like a Twilio access token (`cty: twilio-fpa;v=1`, `grants.identity` = the user id), lifetime `TOKEN_TTL_SECONDS`. With `TELEPHONY_PROVIDER=twilio` it is a real Twilio Voice access token signed with the API key (`iss` the key, `sub` the account, a Voice grant with incoming allowed and the TwiML App for outgoing calls).',
      tags: ['Softphone'],
      querystring: TimeQuery,
      response: { 200: TokenResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/twilio/token2', { schema: token }, async (request) => {
      parseRequest(request, 'querystring', token.querystring);
      const { user, sessionId } = sessionOf(request);
      return { token: await deps.tokens.issue(user.id, user.accountId, sessionTagOf(sessionId)) };
    });
  };
}
