/**
 * An instance without the voice engine (a follower of the media lease, or `VOICE_MEDIA_URL` set)
 * serves sign-in, the user, the history, the console, the realtime endpoint and channel auth
 * itself, and forwards every route that drives calls (leads, call users, dispositions, call
 * control, outbound calls, the network test, the agent's status and the agent lists, the
 * sandbox) to the media instance, which runs the calls (`docs/deployment.md`, several
 * instances). The signalling WebSocket is relayed by `signal-relay.ts`.
 *
 * What is forwarded, and where (`docs/security.md`, the relay):
 * - Each route is registered here with the authentication it has on the media instance, so a
 *   request without a login or API key is refused here and costs the leader nothing; the
 *   anonymous ones (API key) count in this instance's rate limit like any anonymous route.
 * - The upstream URL is the leader's origin and the matched route's path, rebuilt from the
 *   route's pattern and its decoded parameters (each encoded again), with the query re-encoded:
 *   never the raw request target, which could name another host or path. reply-from is given
 *   that origin as the request's base and refuses anything outside it.
 * - Only the headers the routes read go on (the login's cookie, CSRF, API key, Idempotency-Key,
 *   Range), with the relay's signed header (`relay-signature.ts`): the browser's address, whether
 *   it was counted here, and the leader's epoch, under the instances' shared secret.
 * - The media instance's answer comes back as it was given.
 */
import type { IncomingHttpHeaders } from 'node:http';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAuth } from '../auth/auth-plugin';
import { wasCounted } from '../http/anonymous-rate-limit';
import { requestClientAddress } from '../http/client-address';
import { AppError } from '../http/errors';
import { mediaTargetOf, type MediaTarget } from './media-target';
import {
  RELAY_HEADER,
  RELAY_REFUSED_HEADER,
  RelaySigner,
  type RelayedWire,
} from './relay-signature';

/** A route the media instance answers, as this instance registers it. */
export interface RelayedRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** The route's pattern, as Fastify matches it (parameters as `:name`). */
  url: string;
  /** Its authentication on the media instance (default there: a session). */
  auth: RouteAuth;
}

const session = (method: RelayedRoute['method'], url: string): RelayedRoute => ({
  method,
  url,
  auth: 'session',
});

/** The routes that drive calls: what the media instance answers. */
export const RELAYED_ROUTES: readonly RelayedRoute[] = [
  { method: 'POST', url: '/api/v1/leads', auth: 'api-key' },
  session('GET', '/api/v1/calls/:id/recording'),
  session('GET', '/api/v1/callusers/:id'),
  session('POST', '/apps/webrtc/:id/reject'),
  session('POST', '/apps/webrtc/:id/disposition'),
  session('POST', '/apps/webrtc/:id/disposition2'),
  session('POST', '/apps/webrtc/:id/sms'),
  session('POST', '/apps/webrtc/check'),
  session('POST', '/api/v1/notes'),
  session('POST', '/twilio/debug/webrtc'),
  session('POST', '/api/v1/calls/conference'),
  session('POST', '/api/v1/calls/conferencelead'),
  session('POST', '/api/v1/calls/:id/transfer'),
  session('POST', '/api/v1/calls/:id/listen'),
  session('POST', '/api/v1/calls/:id/whisper'),
  session('POST', '/api/v1/calls/:id/barge'),
  session('PUT', '/api/v1/calls/:id/hold'),
  session('PUT', '/api/v1/calls/:id/unhold'),
  session('POST', '/api/v1/calls/twilio/outbound'),
  session('POST', '/api/v1/calls/twilio'),
  session('POST', '/api/v1/network-test'),
  session('PUT', '/api/v1/user/status'),
  session('POST', '/api/v1/user/wrap-up/done'),
  session('GET', '/api/v1/users/paginated'),
  session('GET', '/api/v1/teams'),
  session('GET', '/api/v1/callerids'),
];

/** The sandbox network's routes (embedded mode). */
export const RELAYED_SANDBOX_ROUTES: readonly RelayedRoute[] = [
  { method: 'POST', url: '/api/v1/sandbox/inbound', auth: 'api-key' },
  { method: 'POST', url: '/api/v1/sandbox/calls/:id/hangup', auth: 'api-key' },
  session('GET', '/api/v1/sandbox/calls'),
  session('GET', '/api/v1/sandbox/sms'),
];

/**
 * How long a relayed request waits for a media instance during a failover (ms): the bound for
 * a follower to take over (10 s, `docs/deployment.md`) and some.
 */
export const FAILOVER_WAIT_MS = 15_000;

/** The request headers the relayed routes read; no other goes on. */
const FORWARDED_HEADERS = [
  'accept',
  'accept-language',
  'user-agent',
  'cookie',
  'authorization',
  'x-csrf-token',
  'idempotency-key',
  'range',
  'if-range',
  'if-none-match',
  'if-modified-since',
] as const;

/** The media instance's answer to a request signed for another leader's epoch. */
const MISDIRECTED = 421;

/** Connection errors: nothing reached the media instance's process (it may have moved). */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The code of reply-from's `error` (its cause's: reply-from wraps the connection's error). */
function connectionErrorOf(error: unknown): string | null {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && CONNECTION_ERRORS.has(code) ? code : null;
}

/**
 * `pattern` with each `:name` replaced by its parameter, percent-encoded as one segment; null
 * when a parameter is empty or a dot segment (which a URL would resolve away: no route of the
 * media instance has such an id).
 */
export function pathOf(
  pattern: string,
  params: Readonly<Record<string, string | undefined>>,
): string | null {
  let refused = false;
  const path = pattern.replace(/:([A-Za-z]+)/g, (_whole, name: string) => {
    const value = params[name] ?? '';
    if (value === '' || value === '.' || value === '..') refused = true;
    return encodeURIComponent(value);
  });
  return refused ? null : path;
}

/** The query of a raw target, parsed and encoded again (without the `?`; '' for none). */
export function queryOf(rawTarget: string): string {
  const at = rawTarget.indexOf('?');
  return at === -1 ? '' : new URLSearchParams(rawTarget.slice(at + 1)).toString();
}

/** The origin of a media instance's base URL (http or https only), or null. */
export function originOf(base: string): string | null {
  try {
    const url = new URL(base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The forwarding routes, as a Fastify plugin. `to` is the media instance's URL, or a target
 * that names the current one (the media lease's leader) at each request; `secret` the
 * instances' shared secret, which signs what this instance vouches for.
 */
export function relayedRoutes(options: {
  to: string | MediaTarget;
  sandbox: boolean;
  secret: string;
}) {
  const target = mediaTargetOf(options.to);
  const signer = new RelaySigner(options.secret);
  return async (app: FastifyInstance): Promise<void> => {
    // The base is each request's own (the leader known at that moment), given per request.
    await app.register(replyFrom, { disableRequestLogging: true });
    const refuse = (reply: FastifyReply) => {
      const refusal = new AppError('CALL_SERVICE_UNREACHABLE');
      return reply.code(refusal.status).send(refusal.body());
    };
    /** The headers sent: the body's and the host reply-from set, the routes' own, the relay's. */
    const headersOf = (
      request: FastifyRequest,
      set: IncomingHttpHeaders,
      wire: RelayedWire,
    ): IncomingHttpHeaders => {
      const headers: IncomingHttpHeaders = {};
      for (const name of ['host', 'content-type', 'content-length'] as const) {
        if (set[name] !== undefined) headers[name] = set[name];
      }
      for (const name of FORWARDED_HEADERS) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      headers[RELAY_HEADER] = signer.sign(
        {
          client: requestClientAddress(request),
          counted: wasCounted(request),
          epoch: target.epoch?.() ?? null,
        },
        wire,
        Date.now(),
      );
      return headers;
    };
    /**
     * Sends `wire` to the media instance at `base`. A connection refused reached nothing, and a
     * 421 (signed for another leader's epoch) was refused before anything ran, so either may go
     * again: to whom the target names next, until `deadline` (a failover takes a few seconds:
     * the row may name the dead leader until its heartbeat is stale, and the directory passes
     * over a leader that refused for a while, so the same base is tried at most that often).
     */
    const send = (
      request: FastifyRequest,
      reply: FastifyReply,
      base: string,
      wire: RelayedWire,
      deadline: number,
      misdirections = 0,
    ): void => {
      const origin = originOf(base);
      if (origin === null) return void refuse(reply);
      /** Sends again to whom the target names next, if time is left (and it may move). */
      const again = (after: Promise<unknown>, nextMisdirections: number) => {
        const left = deadline - Date.now();
        if (left <= 0) return void refuse(reply);
        void after
          .then(() => target.next(left))
          .then((next) => {
            if (next === null) return void refuse(reply);
            send(request, reply, next, wire, deadline, nextMisdirections);
          });
      };
      const query = queryOf(wire.target);
      let misdirected = false;
      void reply.from(wire.target.split('?')[0], {
        // reply-from refuses a destination outside this origin.
        getUpstream: () => origin,
        queryString: () => query,
        ...(wire.body === '' ? {} : { body: wire.body, contentType: 'application/json' }),
        rewriteRequestHeaders: (_incoming, set) => headersOf(request, set, wire),
        rewriteHeaders: (headers) => {
          // Refused for another leader's epoch: sent again, and nothing of that answer is kept.
          misdirected = headers[RELAY_REFUSED_HEADER] === 'misdirected' && misdirections < 3;
          return misdirected ? {} : headers;
        },
        onResponse: (_request, answering, response) => {
          if (misdirected && answering.statusCode === MISDIRECTED) {
            response.stream.resume();
            // The leader changed (or restarted): read who leads now, then send it there.
            return again(target.refresh?.() ?? Promise.resolve(), misdirections + 1);
          }
          void answering.send(response.stream);
        },
        onError: (failed, { error }) => {
          failed.log.warn({ err: error }, 'the media instance could not be reached');
          // Only a connection that reached nothing says the leader is gone (and may go again).
          if (connectionErrorOf(error) === null) return void refuse(failed as FastifyReply);
          // Only the leader's own origin is ever asked: it is the one that could not be reached.
          target.unreachable(base);
          if (target.fixed) return void refuse(failed as FastifyReply);
          again(Promise.resolve(), misdirections);
        },
      });
    };
    const routes = options.sandbox
      ? [...RELAYED_ROUTES, ...RELAYED_SANDBOX_ROUTES]
      : RELAYED_ROUTES;
    for (const route of routes) {
      // The media instance's API document describes these routes (`/api/docs`); not this one's.
      app.route({
        method: route.method,
        url: route.url,
        config: { auth: route.auth },
        schema: { hide: true },
        handler: async (request, reply) => {
          const deadline = Date.now() + FAILOVER_WAIT_MS;
          const path = pathOf(route.url, request.params as Record<string, string>);
          if (path === null) throw new AppError('NOT_FOUND');
          const query = queryOf(request.raw.url ?? '');
          const wire: RelayedWire = {
            method: request.method,
            target: query ? `${path}?${query}` : path,
            body: request.body === undefined ? '' : JSON.stringify(request.body),
          };
          // A failover under way: wait for the new leader rather than refuse at once.
          const base = target.current() ?? (await target.next(FAILOVER_WAIT_MS));
          if (base === null) return refuse(reply);
          send(request, reply, base, wire, deadline);
          return reply;
        },
      });
    }
  };
}
