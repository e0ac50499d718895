/**
 * The request target every instance accepts: origin-form only (`/path?query`, RFC 9112 §3.2.1).
 * Node's HTTP parser hands on whatever the client wrote after the method, and the router matches
 * an absolute-form target (`GET http://169.254.169.254/api/v1/teams`) by its path alone, so a
 * URL resolved from the raw target against a base (WHATWG URL's base argument) points wherever
 * the client says: another host for an absolute or protocol-relative target (`//host/…`), another
 * path for dot segments (`..`, `%2e%2e`) and backslashes (which WHATWG URL reads as `/`).
 *
 * These targets are refused with 400 before any route runs (HTTP requests and socket upgrades
 * alike). Nothing of the product's own needs them: browsers and HTTP clients send origin-form
 * with dot segments already removed and never percent-encode a dot.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from './errors';

/**
 * Why `target` (a request's raw target, as `IncomingMessage.url` has it) is refused, or null
 * when it is an origin-form path this server accepts.
 */
export function requestTargetProblem(target: string | undefined): string | null {
  if (target === undefined || target === '') return 'an empty target';
  if (target[0] !== '/') return 'not a path (absolute-form, authority-form or asterisk-form)';
  if (target.startsWith('//')) return 'a network-path reference (//host)';
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (target.includes('\\') || /%5c/i.test(path)) return 'a backslash';
  if (/%2e/i.test(path)) return 'a percent-encoded dot';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) {
    return 'a dot segment';
  }
  return null;
}

/** Refuses (400) every request of `app` whose target is not an origin-form path. */
export function refuseBadRequestTargets(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (requestTargetProblem(request.raw.url) !== null) {
      throw new AppError('BAD_REQUEST_TARGET');
    }
  });
}
