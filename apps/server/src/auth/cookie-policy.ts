/**
 * How the server's cookies (the login session's, a single sign-on in progress's) are named and
 * flagged, in one place for every route that sets, reads or clears one.
 *
 * - Embedded mode: the plain name (`leadline_session`), `Secure` when the request came over TLS
 *   (the server's own, or a proxy's it trusts), so a plain-HTTP trial on one machine works.
 * - Production (`httpsOnly`): browsers reach the install over HTTPS only, whatever the scheme
 *   looks like to this process (a proxy may end TLS without `TRUST_PROXY`). Every cookie is
 *   `Secure` and carries the `__Host-` prefix, which browsers accept only with `Secure`,
 *   `Path=/` and no `Domain`: a sibling subdomain or a plain-HTTP page cannot plant or overwrite
 *   it, and the unprefixed name is never read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The options a cookie is set and cleared with (`@fastify/cookie`'s serialize options). */
export interface CookieOptions {
  path: string;
  httpOnly: true;
  sameSite: 'lax';
  secure: boolean;
}

/** The prefix browsers hold to `Secure`, `Path=/` and no `Domain`. */
export const HOST_COOKIE_PREFIX = '__Host-';

/** The cookies' names and flags for one install. */
export class CookiePolicy {
  /** `httpsOnly`: production (see the module's comment). */
  constructor(readonly httpsOnly: boolean) {}

  /** The name a cookie goes by: `__Host-<base>` in production, `base` otherwise. */
  nameOf(base: string): string {
    return this.httpsOnly ? `${HOST_COOKIE_PREFIX}${base}` : base;
  }

  /**
   * The options to set or clear a cookie with. `path` narrows it outside production; a
   * `__Host-` cookie is always `Path=/`.
   */
  optionsFor(request: FastifyRequest, path = '/'): CookieOptions {
    return {
      path: this.httpsOnly ? '/' : path,
      httpOnly: true,
      // Lax: top-level navigations back from a provider carry it; cross-site posts do not.
      sameSite: 'lax',
      secure: this.httpsOnly || request.protocol === 'https',
    };
  }

  /** The cookie's value in the request, under this install's name only. */
  read(request: FastifyRequest, base: string): string | undefined {
    return request.cookies[this.nameOf(base)];
  }

  /** Sets the cookie (`extra`: its expiry or max age). */
  set(
    request: FastifyRequest,
    reply: FastifyReply,
    base: string,
    value: string,
    extra: { path?: string; expires?: Date; maxAge?: number } = {},
  ): void {
    const { path, ...lifetime } = extra;
    reply.setCookie(this.nameOf(base), value, { ...this.optionsFor(request, path), ...lifetime });
  }

  /** Clears the cookie (same name, path and flags as it was set with). */
  clear(request: FastifyRequest, reply: FastifyReply, base: string, path?: string): void {
    reply.clearCookie(this.nameOf(base), this.optionsFor(request, path));
  }
}
