/**
 * The security headers of every response (`@fastify/helmet`): a Content-Security-Policy the
 * console runs under with nothing inline (Vite builds scripts and styles into files; React sets
 * styles through the DOM, which the policy allows), `frame-ancestors 'none'` unless the operator
 * lists the CRMs that may embed the console (`FRAME_ANCESTORS`), `nosniff`, no referrer, and
 * HSTS: in production on every answer (the install faces the internet over HTTPS, whatever the
 * scheme looks like behind its proxy); in embedded mode only on a request that came over TLS
 * (the server's own, or a proxy's with `TRUST_PROXY`), since a plain-HTTP LAN product must not
 * tell browsers to insist on HTTPS.
 *
 * `connect-src` is the product's own origin (its API, `/signal` and the embedded realtime
 * endpoint: 'self' covers same-origin ws: and wss:) plus the configured providers
 * ({@link connectSourcesOf}).
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { RealtimeTarget } from '../realtime/realtime-target';

/** What the policy allows beyond the product's own origin. */
export interface SecurityPolicy {
  /** Origins allowed to frame the console (`FRAME_ANCESTORS`); empty: none. */
  frameAncestors: readonly string[];
  /** Extra `connect-src` sources: the realtime and telephony providers' hosts. */
  connectSources: readonly string[];
  /** Production: HSTS on every answer, whatever the request's scheme (default: over TLS only). */
  httpsOnly?: boolean;
}

/** A year, as HSTS usually asks. */
const HSTS_MAX_AGE_S = 365 * 24 * 3600;

/** The `Strict-Transport-Security` header's value. */
export const HSTS = `max-age=${HSTS_MAX_AGE_S}; includeSubDomains`;

/** The `connect-src` sources the configured providers need besides 'self'. */
export function connectSourcesOf(options: {
  realtime: RealtimeTarget;
  pusherCluster: string;
  twilio: boolean;
}): string[] {
  const sources: string[] = [];
  const { realtime } = options;
  if (realtime.kind === 'hosted') sources.push(`wss://ws-${options.pusherCluster}.pusher.com`);
  if (realtime.kind === 'self-hosted') {
    sources.push(`ws://${realtime.wsHost}:${realtime.wsPort}`);
    sources.push(`wss://${realtime.wsHost}:${realtime.wsPort}`);
  }
  // The official SDK's edge (signalling) and Insights (call quality) are Twilio's hosts.
  if (options.twilio) sources.push('https://*.twilio.com', 'wss://*.twilio.com');
  return sources;
}

/** The Content-Security-Policy directives. */
export function cspDirectives(policy: SecurityPolicy): Record<string, string[] | null> {
  return {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
    // The favicon is a data: URI; avatars are drawn, not fetched.
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'"],
    // Recordings and sounds from the product; a silent data: WAV unlocks audio playback.
    mediaSrc: ["'self'", 'data:', 'blob:'],
    connectSrc: ["'self'", ...policy.connectSources],
    workerSrc: ["'self'"],
    manifestSrc: ["'self'"],
    objectSrc: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: policy.frameAncestors.length > 0 ? [...policy.frameAncestors] : ["'none'"],
    // helmet's default would turn every http: request of a plain-HTTP LAN product into https:.
    upgradeInsecureRequests: null,
  };
}

/** Registers the headers on `app` (every route, the console's files and the API alike). */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  policy: SecurityPolicy,
): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(policy) },
    // The console keeps no cross-origin isolation needs; requiring CORP of every subresource
    // would only break a CRM embedding it.
    crossOriginEmbedderPolicy: false,
    // Set per request below.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'no-referrer' },
    // A frame-ancestors list replaces the legacy header (which cannot express one).
    xFrameOptions: policy.frameAncestors.length > 0 ? false : { action: 'deny' },
  });
  app.addHook('onSend', async (request, reply) => {
    if (policy.httpsOnly === true || request.protocol === 'https') {
      reply.header('strict-transport-security', HSTS);
    }
  });
}
