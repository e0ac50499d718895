/**
 * Single sign-on routes: 'Log in with Google' (`SSO_LOGIN_PATH`) sends the browser to the
 * provider; the provider sends it back to `SSO_CALLBACK_PATH`, which starts a session as password
 * login does and goes to the console, or goes back to the login view with `?sso_error=<code>`.
 * `GET /api/v1/login/options` tells the login view whether to offer the link at all.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  LoginOptionsResponseSchema,
  SSO_CALLBACK_PATH,
  SSO_ERROR_PARAM,
  SSO_LOGIN_PATH,
  type LoginOptionsResponse,
  type SsoErrorCode,
} from '@leadline/contracts';
import type { RouteDocs } from '../http/api-docs';
import { startSession } from './auth-routes';
import { SsoError, SSO_ATTEMPT_MS, type SingleSignOn } from './single-sign-on';
import type { SessionStore } from './sessions';

/** The cookie that binds a sign-on in progress to the browser that started it. */
export const SSO_COOKIE = 'leadline_sso';

const TAGS = ['Sign-in'];
const PUBLIC = { config: { auth: 'public' as const } };

/** The single sign-on routes; `sso` null: not configured. */
export function ssoRoutes(deps: { sso: SingleSignOn | null; sessions: SessionStore }) {
  return async (app: FastifyInstance): Promise<void> => {
    const backToLogin = (reply: FastifyReply, code: SsoErrorCode) =>
      reply.redirect(`/?${SSO_ERROR_PARAM}=${code}`, 302);

    const options = {
      summary: 'What the login view offers',
      description:
        "What the login view offers: `sso` says whether 'Log in with Google' (single sign-on through the configured OpenID Connect provider, `docs/deployment.md`) is configured. `GET /apps/workos/login/google` starts the sign-on (a redirect to the provider) and `GET /apps/workos/callback` finishes it (a session, then a redirect to `/`); either one that fails redirects to `/?sso_error=<code>`, whose sentence the login view shows (`SSO_ERRORS` in the contracts), and without a provider both redirect with `not_configured`.",
      tags: TAGS,
      response: { 200: LoginOptionsResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/login/options', { ...PUBLIC, schema: options }, async () => {
      const answer: LoginOptionsResponse = { success: true, sso: deps.sso !== null };
      return answer;
    });

    const start = {
      summary: 'Log in with Google: starts single sign-on',
      description:
        'Redirects the browser to the configured OpenID Connect provider, with a short-lived cookie binding the sign-on to this browser; without a provider, or when the provider cannot be reached, back to the login view with `/?sso_error=<code>`.',
      tags: TAGS,
      response: { 302: { description: 'To the provider, or to `/?sso_error=<code>`' } },
    } satisfies RouteDocs;
    app.get(SSO_LOGIN_PATH, { ...PUBLIC, schema: start }, async (request, reply) => {
      if (!deps.sso) return backToLogin(reply, 'not_configured');
      try {
        const { url, cookie } = await deps.sso.begin(`${request.protocol}://${request.host}`);
        // Lax (the policy's): the provider's redirect back is a top-level GET, which carries it.
        // Only the callback reads it (in production a `__Host-` cookie, which is `Path=/`).
        app.cookiePolicy.set(request, reply, SSO_COOKIE, cookie, {
          path: SSO_CALLBACK_PATH,
          maxAge: SSO_ATTEMPT_MS / 1000,
        });
        return reply.redirect(url.href, 302);
      } catch (error) {
        request.log.warn({ err: error }, 'single sign-on could not start');
        return backToLogin(reply, error instanceof SsoError ? error.code : 'provider_error');
      }
    });

    const callback = {
      summary: 'Single sign-on’s return from the provider',
      description:
        'The provider sends the browser back here: a user of an account whose single sign-on domain the provider vouched for gets a session (as `POST /api/v1/user/login` gives one) and goes to `/`; anything else goes back to the login view with `/?sso_error=<code>` (`SSO_ERRORS` in the contracts).',
      tags: TAGS,
      response: { 302: { description: 'To `/` signed in, or to `/?sso_error=<code>`' } },
    } satisfies RouteDocs;
    app.get(SSO_CALLBACK_PATH, { ...PUBLIC, schema: callback }, async (request, reply) => {
      if (!deps.sso) return backToLogin(reply, 'not_configured');
      app.cookiePolicy.clear(request, reply, SSO_COOKIE, SSO_CALLBACK_PATH);
      // The query only: the callback's address is the one registered when the sign-on began.
      const target = request.raw.url ?? '';
      const query = new URLSearchParams(
        target.includes('?') ? target.slice(target.indexOf('?') + 1) : '',
      );
      try {
        const { userId } = await deps.sso.finish(query, app.cookiePolicy.read(request, SSO_COOKIE));
        await startSession(request, reply, deps.sessions, userId);
        return reply.redirect('/', 302);
      } catch (error) {
        const code = error instanceof SsoError ? error.code : 'provider_error';
        request.log.info({ err: error, code }, 'single sign-on failed');
        return backToLogin(reply, code);
      }
    });
  };
}
