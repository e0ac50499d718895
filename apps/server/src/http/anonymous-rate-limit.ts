/**
 * The anonymous routes' rate limit: what anyone on the network can reach without a login (sign-in
 * and single sign-on, lead intake by API key, the providers' webhooks, the signalling and
 * realtime sockets) is limited per client address, in fixed one-minute windows counted in the
 * database (`rate-limit-hits.ts`), so every instance counts the same hits. This is a coarse
 * guard against floods; the sign-in throttle (`auth/login-throttle.ts`) is the finer one of
 * password guessing.
 *
 * Each anonymous route counts in one group ({@link anonymousGroupOf}); a group's count is per
 * address (an IPv6 client by its /64), whichever route of the group was hit. Routes that need a
 * login are not limited here. A refusal is 429 with `Retry-After` (seconds) and the sentence
 * 'Too many requests from your address. Try again in N seconds.'; nothing else runs for it.
 *
 * The client address is Fastify's `request.ip`, which follows `TRUST_PROXY`; a socket upgrade's
 * is found the same way ({@link clientAddressOf}).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { requestClientAddress, type RelayedBy } from './client-address';
import { PUSHER_WEBHOOK_PATH } from '../realtime/pusher-auth';
import { SOUNDS_PATH } from '../sounds/sounds';
import { AppError } from './errors';
import { rateLimitStoreOf, type RateLimitHits } from './rate-limit-hits';
import {
  RATE_LIMIT_WINDOW_MS,
  type AnonymousGroup,
  type AnonymousRateLimits,
} from './rate-limit-settings';

/** Anonymous routes that are not limited, and why. */
const UNLIMITED: ReadonlyArray<{ matches: (method: string, url: string) => boolean; why: string }> =
  [
    {
      matches: (_method, url) => url === '/healthz',
      why: "the balancer's health check; answers without the database",
    },
    {
      matches: (method, url) => method === 'GET' && url.startsWith(`${SOUNDS_PATH}/`),
      why: 'static sound files',
    },
    {
      matches: (_method, url) => /^\/apps\/:appId\/(events|batch_events)$/.test(url),
      why: "the embedded realtime endpoint's events API: signed with the app secret, called by the instances themselves",
    },
    {
      matches: (method, url) =>
        (method === 'GET' || method === 'HEAD') &&
        !['/api/', '/apps/', '/twilio/', '/pusher/'].some((prefix) => url.startsWith(prefix)),
      why: "the console's static files",
    },
  ];

/**
 * The group an anonymous route counts in, or null: a route that needs a login, or an anonymous
 * one that is not limited (see `UNLIMITED`). `url` is the route's pattern, as Fastify has it.
 */
export function anonymousGroupOf(route: {
  method: string;
  url: string | undefined;
  auth: 'session' | 'public' | 'api-key' | undefined;
}): Exclude<AnonymousGroup, 'sockets'> | null {
  const { method, url, auth } = route;
  // Not found: answered without the database.
  if (url === undefined) return null;
  if (auth === 'api-key') return 'intake';
  if (auth !== 'public') return null;
  if (UNLIMITED.some((rule) => rule.matches(method, url))) return null;
  if (url.startsWith('/twilio/') || url === PUSHER_WEBHOOK_PATH) return 'webhooks';
  // Sign-in, its options, single sign-on's start and callback, and any anonymous route to come.
  return 'sign-in';
}

/** Requests this instance counted in the anonymous rate limit (see {@link wasCounted}). */
const counted = new WeakSet<object>();

/**
 * Whether this instance counted `request` in the anonymous rate limit: a relaying instance
 * vouches for it to the media instance (`relay/relay-signature.ts`), which does not count it again.
 */
export function wasCounted(request: { raw: object }): boolean {
  return counted.has(request.raw);
}

/** The refusal's sentence for a wait of `seconds`. */
export const rateLimitedMessage = (seconds: number): string =>
  `Too many requests from your address. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;

/**
 * Limits the anonymous routes of `app`: registers `@fastify/rate-limit` on the shared counts and
 * an `onRequest` hook that counts each anonymous request in its group. Register it before the
 * authentication plugin, so a refused request costs no session or API-key lookup.
 */
export async function registerAnonymousRateLimit(
  app: FastifyInstance,
  options: {
    hits: RateLimitHits;
    limits: AnonymousRateLimits;
    log?: FastifyBaseLogger;
  },
): Promise<void> {
  const log = options.log ?? app.log;
  await app.register(rateLimit, {
    global: false,
    store: rateLimitStoreOf(options.hits),
    // The database failing must not lock everyone out; it is logged below.
    skipOnError: true,
  });
  const limiterOf = (group: AnonymousGroup) =>
    app.createRateLimit({
      max: options.limits[group],
      timeWindow: RATE_LIMIT_WINDOW_MS,
      keyGenerator: (request) => `${group}:${normalizeIP(requestClientAddress(request))}`,
    });
  const limiters = {
    'sign-in': limiterOf('sign-in'),
    intake: limiterOf('intake'),
    webhooks: limiterOf('webhooks'),
  };
  app.addHook('onRequest', async (request, reply) => {
    const group = anonymousGroupOf({
      method: request.method,
      url: request.routeOptions.url,
      auth: request.routeOptions.config.auth,
    });
    // Another instance relayed it and counted it there, under the browser's address.
    if (group === null || request.relayed?.counted) return;
    counted.add(request.raw);
    const limit = await limiters[group](request).catch((error: unknown) => {
      log.warn({ err: error, group }, 'counting a rate-limited request failed; let through');
      return null;
    });
    if (limit === null || limit.isAllowed || !limit.isExceeded) return;
    const seconds = Math.max(1, limit.ttlInSeconds);
    reply.header('retry-after', String(seconds));
    throw new AppError('RATE_LIMITED', rateLimitedMessage(seconds));
  });
}

/** Fastify's `trustProxy` setting. */
export type TrustProxy = FastifyServerOptions['trustProxy'];

/**
 * The client address of a raw request as Fastify's `request.ip` finds it under `trustProxy`
 * (`X-Forwarded-For` read only as far as the proxies trusted): for socket upgrades, which do not
 * go through Fastify's routes.
 */
export function clientAddressOf(request: IncomingMessage, trustProxy: TrustProxy): string {
  const direct = request.socket.remoteAddress ?? '';
  if (!trustProxy) return direct;
  const trust =
    typeof trustProxy === 'function'
      ? trustProxy
      : trustProxy === true
        ? () => true
        : proxyAddr.compile(
            typeof trustProxy === 'string'
              ? trustProxy.split(',').map((value) => value.trim())
              : trustProxy,
          );
  return proxyAddr(request, trust);
}

/** Admits or refuses socket upgrades by the `sockets` group's count. */
export class SocketRateLimit {
  readonly #hits: RateLimitHits;
  readonly #max: number;
  readonly #trustProxy: TrustProxy;
  readonly #log: Pick<FastifyBaseLogger, 'warn'>;

  constructor(options: {
    hits: RateLimitHits;
    limits: AnonymousRateLimits;
    trustProxy: TrustProxy;
    log: Pick<FastifyBaseLogger, 'warn'>;
  }) {
    this.#hits = options.hits;
    this.#max = options.limits.sockets;
    this.#trustProxy = options.trustProxy;
    this.#log = options.log;
  }

  /**
   * Counts the upgrade (not one another instance relayed and counted: `relayed`); resolves with
   * null when it may go on, or with the seconds to wait when it is refused (`refuse` answers it).
   */
  async admit(request: IncomingMessage, relayed: RelayedBy | null = null): Promise<number | null> {
    if (relayed?.counted) return null;
    const address = normalizeIP(relayed?.client ?? clientAddressOf(request, this.#trustProxy));
    try {
      const count = await this.#hits.hit(`sockets:${address}`, RATE_LIMIT_WINDOW_MS);
      return count.hits > this.#max ? Math.max(1, Math.ceil(count.ttlMs / 1000)) : null;
    } catch (error) {
      this.#log.warn({ err: error }, 'counting a socket upgrade failed; let through');
      return null;
    }
  }

  /** Answers a refused upgrade: 429, `Retry-After` and the sentence, then closes. */
  static refuse(socket: Duplex, retryAfterS: number): void {
    const body = JSON.stringify(
      new AppError('RATE_LIMITED', rateLimitedMessage(retryAfterS)).body(),
    );
    if (!socket.writable) return void socket.destroy();
    socket.end(
      [
        'HTTP/1.1 429 Too Many Requests',
        `Retry-After: ${retryAfterS}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
}
