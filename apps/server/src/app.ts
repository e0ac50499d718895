/**
 * The HTTP application: Fastify with every route plugin, given its services. No I/O happens
 * here beyond what the routes do; `leadline.ts` builds the services and starts it.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import cookie from '@fastify/cookie';
import { z } from 'zod';
import { adminChangesOf } from './admin/admin-changes';
import { adminRoutes } from './admin/admin-routes';
import authPlugin from './auth/auth-plugin';
import { CookiePolicy } from './auth/cookie-policy';
import { authRoutes } from './auth/auth-routes';
import { ssoRoutes } from './auth/sso-routes';
import { callControlRoutes } from './calls/call-control-routes';
import { callsRoutes } from './calls/calls-routes';
import { outboundRoutes } from './calls/outbound-routes';
import { floorRoutes } from './floor/floor-routes';
import { historyRoutes } from './history/history-routes';
import { reportsRoutes } from './reports/reports-routes';
import { registerAnonymousRateLimit } from './http/anonymous-rate-limit';
import {
  apiDocsRoutes,
  registerApiDocs,
  type ApiDocsAccess,
  type RouteDocs,
} from './http/api-docs';
import { installErrorHandler } from './http/error-handler';
import { RateLimitHits } from './http/rate-limit-hits';
import { DEFAULT_RATE_LIMITS, type AnonymousRateLimits } from './http/rate-limit-settings';
import { registerSecurityHeaders, type SecurityPolicy } from './http/security-headers';
import { leadsRoutes } from './leads/leads-routes';
import { networkTestRoutes } from './network-test/network-test-routes';
import { relayedRoutes } from './relay/relayed-routes';
import { RelayReception } from './relay/relay-reception';
import { refuseBadRequestTargets } from './http/request-target';
import { pusherRoutes } from './realtime/pusher-routes';
import { usersRoutes } from './users/users-routes';
import { sandboxRoutes, type SandboxNetwork } from './sandbox/sandbox-routes';
import { soundsRoutes } from './sounds/sounds-routes';
import type { TlsCredentials } from './tls/tls-credentials';
import type { TrustProxySetting } from './config';
import type { AppServices } from './http/route-services';
import { webRoutes } from './web/web-routes';

/** Largest request body accepted (JSON payloads of the API are small). */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** What `/healthz` says of the media lease (`twilio`: Twilio carries the media, no lease). */
export interface MediaRoleReport {
  role: 'leader' | 'follower' | 'twilio';
  /** The leader's epoch (the fencing token); null where there is no lease (PGlite). */
  epoch: number | null;
}

/** Options of the HTTP application. */
export interface AppOptions {
  logger: FastifyBaseLogger;
  /** Whom `X-Forwarded-*` is believed from (`TRUST_PROXY`). */
  trustProxy: TrustProxySetting;
  webDistDir: string;
  /** Serve HTTPS (and WSS) with these credentials; plain HTTP without. */
  https?: TlsCredentials | null;
  /** The SDK the console loads (default `leadline`). */
  voiceSdk?: 'leadline' | 'twilio';
  /** `twilio`: the console's SDK connects to Twilio's edge, not to this server. */
  edge?: 'twilio';
  /** The security headers' allowances (default: nothing beyond the product's own origin). */
  security?: SecurityPolicy;
  /** The anonymous routes' rate limits (default `DEFAULT_RATE_LIMITS`). */
  rateLimits?: AnonymousRateLimits;
  /** Their shared counts (default: on `services.db`, the system clock). */
  rateLimitHits?: RateLimitHits;
  /**
   * The instances' shared TOKEN_SECRET, with which a relaying instance (`relayTo`) signs what it
   * vouches for to the media instance (`relay/relay-signature.ts`). Needed with `relayTo`.
   */
  relaySecret?: string;
  /**
   * Requests other instances relay to this one (the media leader's side): believed as their
   * signature holds. Unset: this instance receives no relays, and refuses any relay header.
   */
  relayReception?: RelayReception;
  /**
   * Production: browsers reach the install over HTTPS only, whatever the request's scheme looks
   * like here; cookies are `Secure` with the `__Host-` prefix and HSTS is on every answer.
   * Default off (embedded mode: both follow the request's scheme).
   */
  httpsOnly?: boolean;
  /**
   * Serve the sandbox phone network's endpoints (embedded mode): its call log, if any;
   * `relayed` on an instance relaying to the media instance, which has the network.
   */
  sandbox?: SandboxNetwork | 'relayed' | false;
  /** Who may read the API's documentation at `/api/docs` (default: anyone; production: a session). */
  apiDocs?: ApiDocsAccess;
  /**
   * This instance's part in the media lease, reported by `/healthz` (issue 38): leader or
   * follower, and the leader's epoch. Unset: `/healthz` says only that it is alive.
   */
  mediaRole?: () => MediaRoleReport;
  /** Hears every route as it is registered, before any (the API document's test). */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the Fastify application. */
export async function buildApp(
  services: AppServices,
  options: AppOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.https ? { https: options.https } : {}),
    loggerInstance: options.logger,
    trustProxy: options.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids in paths are parsed by zod; unknown query keys are ignored.
    routerOptions: { ignoreTrailingSlash: true },
  });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  installErrorHandler(app);
  // First of all: a target that could point a URL built from it elsewhere is refused.
  refuseBadRequestTargets(app);
  // Before the rate limit: a relay that holds says whose request it is and whether it was counted.
  (options.relayReception ?? new RelayReception()).register(app);
  // A stop answers the requests it was already serving with `Connection: close`: the server's
  // close lets go only of the connections idle at that moment, and a keep-alive connection busy
  // then (a Twilio callback: they reach every instance all the time) would otherwise hold the
  // stop open for the keep-alive timeout (Fastify's 72 s). Requests arriving during the stop are
  // Fastify's (503, `Connection: close`).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  // Before any route: the OpenAPI document collects every route registered after it.
  await registerApiDocs(app);
  await registerSecurityHeaders(app, {
    ...(options.security ?? { frameAncestors: [], connectSources: [] }),
    httpsOnly: options.httpsOnly ?? false,
  });
  // The API speaks JSON only: other bodies get 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');
  const rateLimitHits =
    options.rateLimitHits ??
    new RateLimitHits({
      db: services.db,
      onSweepError: (error) =>
        app.log.warn({ err: error }, 'deleting old rate-limit counts failed'),
    });
  // Before authentication: a refused anonymous request costs no session or API-key lookup.
  await registerAnonymousRateLimit(app, {
    hits: rateLimitHits,
    limits: options.rateLimits ?? DEFAULT_RATE_LIMITS,
  });
  await app.register(cookie);
  await app.register(authPlugin, {
    db: services.db,
    sessions: services.sessions,
    cookies: new CookiePolicy(options.httpsOnly ?? false),
    changes: adminChangesOf(services),
  });
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'Liveness',
        tags: ['Operations'],
        description:
          'Whether this instance answers; with several instances on PostgreSQL, also whether it leads the media (runs the voice engine and the calls) or follows (relays to the leader), and the leader’s epoch; `twilio` (epoch null) when Twilio carries the media and every instance is equal.',
        response: {
          200: z.strictObject({
            ok: z.literal(true),
            media: z
              .strictObject({
                role: z.enum(['leader', 'follower', 'twilio']),
                epoch: z.number().int().nullable(),
              })
              .optional(),
          }),
        },
      } satisfies RouteDocs,
    },
    async () => {
      const media = options.mediaRole?.();
      return media ? { ok: true as const, media } : { ok: true as const };
    },
  );
  await app.register(
    authRoutes({
      ...services,
      voiceSdk: options.voiceSdk ?? 'leadline',
      edge: options.edge,
      realtime: {
        credentials: services.pusher,
        target: services.realtimeTarget ?? { kind: 'embedded' },
      },
      ...('flows' in services ? { now: () => services.flows.now() } : {}),
    }),
  );
  await app.register(ssoRoutes({ sso: services.sso ?? null, sessions: services.sessions }));
  await app.register(soundsRoutes());
  if ('relayTo' in services) {
    if (!options.relaySecret) throw new Error('A relaying instance needs relaySecret.');
    await app.register(
      relayedRoutes({
        to: services.relayTo,
        sandbox: options.sandbox === 'relayed',
        secret: options.relaySecret,
      }),
    );
  } else {
    await app.register(leadsRoutes(services));
    if (options.sandbox && options.sandbox !== 'relayed') {
      await app.register(sandboxRoutes({ ...services, network: options.sandbox }));
    }
    await app.register(callsRoutes(services));
    await app.register(callControlRoutes(services));
    await app.register(outboundRoutes(services));
    await app.register(networkTestRoutes(services));
    await app.register(usersRoutes(services));
    if (services.webhooks) await app.register(services.webhooks);
  }
  await app.register(historyRoutes(services));
  const clock = 'flows' in services ? { now: () => services.flows.now() } : {};
  await app.register(floorRoutes({ db: services.db, ...clock }));
  await app.register(reportsRoutes({ db: services.db, ...clock }));
  await app.register(adminRoutes(services));
  await app.register(pusherRoutes({ ...services, hits: rateLimitHits }));
  await app.register(apiDocsRoutes(options.apiDocs ?? 'public'));
  await app.register(webRoutes(options.webDistDir));
  return app;
}
