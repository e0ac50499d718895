/**
 * Authentication for every route: by default a route needs a session (cookie) and, for
 * mutating methods, the session's CSRF token in `X-CSRF-TOKEN`. Routes opt out with
 * `config: { auth: 'public' }` or use `config: { auth: 'api-key' }` (lead intake).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/database';
import { apiKeys } from '../db/schema';
import { AppError } from '../http/errors';
import { ApiKeyCache } from './api-key-cache';
import { CookiePolicy } from './cookie-policy';
import { SESSION_COOKIE, type SessionStore, type SessionUser } from './sessions';

/** How a route authenticates. */
export type RouteAuth = 'session' | 'public' | 'api-key';

declare module 'fastify' {
  interface FastifyInstance {
    /** How this install names and flags its cookies (production: `Secure`, `__Host-`). */
    cookiePolicy: CookiePolicy;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** The session of a session route (set before the handler runs). */
    auth: SessionUser | null;
    /** The account of an API-key route. */
    apiAccountId: number | null;
    /** The profile of an API-key route's key (null: none, the account's first applies). */
    apiProfileId: number | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The session of a session route; throws 401 if there is none. */
export function sessionOf(request: FastifyRequest): SessionUser {
  if (!request.auth) throw new AppError('UNAUTHENTICATED');
  return request.auth;
}

/** The session cookie's value in the request (under this install's name), if any. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  return request.server.cookiePolicy.read(request, SESSION_COOKIE);
}

/** Sets the session cookie. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  value: string,
  expires: Date,
): void {
  request.server.cookiePolicy.set(request, reply, SESSION_COOKIE, value, { expires });
}

/** Clears the session cookie. */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  request.server.cookiePolicy.clear(request, reply, SESSION_COOKIE);
}

async function authPlugin(
  app: FastifyInstance,
  opts: {
    db: Db;
    sessions: SessionStore;
    /** Default: embedded mode's (the plain names, `Secure` over TLS only). */
    cookies?: CookiePolicy;
    /** Admin changes (every instance's): API keys changed, the remembered keys are dropped. */
    changes?: { onChange(listener: (change: { what: string }) => void): () => void };
  },
) {
  app.decorate('cookiePolicy', opts.cookies ?? new CookiePolicy(false));
  app.decorateRequest('auth', null);
  app.decorateRequest('apiAccountId', null);
  app.decorateRequest('apiProfileId', null);
  const apiKeyOwners = new ApiKeyCache({
    load: async (keyHash) => {
      const [row] = await opts.db
        .select({ accountId: apiKeys.accountId, profileId: apiKeys.profileId })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, keyHash))
        .limit(1);
      return row ?? null;
    },
  });
  // A key an admin removes stops working at once, here and on every other instance.
  const stopForgetting = opts.changes?.onChange((change) => {
    if (change.what === 'api-keys') apiKeyOwners.forget();
  });
  if (stopForgetting) app.addHook('onClose', async () => stopForgetting());
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config.auth ?? 'session';
    if (mode === 'public' || !request.routeOptions.url) return;
    if (mode === 'api-key') {
      const header = request.headers.authorization ?? '';
      const key = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      if (!key) throw new AppError('INVALID_API_KEY');
      const hash = createHash('sha256').update(key).digest('hex');
      const owner = await apiKeyOwners.ownerOf(hash);
      if (owner === null) throw new AppError('INVALID_API_KEY');
      request.apiAccountId = owner.accountId;
      request.apiProfileId = owner.profileId;
      return;
    }
    const cookie = sessionCookieOf(request);
    const session = cookie ? await opts.sessions.find(cookie) : null;
    if (!session) throw new AppError('UNAUTHENTICATED');
    if (!SAFE_METHODS.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      if (typeof header !== 'string' || !sameSecret(header, session.csrfToken)) {
        throw new AppError('CSRF_MISMATCH');
      }
    }
    request.auth = session;
  });
  // The session was used (its idle timeout starts again): written before the answer leaves, at
  // most once a minute per session, and never for a refusal (a refused request changes nothing).
  app.addHook('onSend', async (request, reply) => {
    if (!request.auth || reply.statusCode >= 400) return;
    await opts.sessions
      .touch(request.auth)
      .catch((error: unknown) =>
        request.log.warn({ err: error }, 'writing that the session was used failed'),
      );
  });
}

/** The authentication plugin. */
export default fp(authPlugin, { name: 'leadline-auth' });
