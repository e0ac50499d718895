/**
 * The one typed configuration module: every setting comes from an environment variable,
 * is parsed here once, and is passed to what needs it. The README lists them all.
 */
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { isSupportedCountry } from 'libphonenumber-js/max';
import {
  DEFAULT_DIAL_CEILING,
  DIAL_LIMIT_MAX,
  SESSION_IDLE_MINUTES_RANGE,
  type DialCeiling,
} from './accounts/account-policy';
import {
  allowedInstancesOf,
  instanceUrlEntryProblem,
  type AllowedInstances,
} from './cluster/instance-urls';
import { DEMO_API_KEY } from './db/demo-logins';
import { DEFAULT_RATE_LIMITS, type AnonymousRateLimits } from './http/rate-limit-settings';
import type { RealtimeTarget } from './realtime/realtime-target';
import type { TlsSetting } from './tls/tls-credentials';

/** The idle timeout of an account whose policy sets none, unless `SESSION_IDLE_MINUTES` says. */
export const DEFAULT_SESSION_IDLE_MINUTES = 60;

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/** A rate limit: requests per address per minute, at least 1. */
const perMinute = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/**
 * Whom `X-Forwarded-*` is believed from, as Fastify's `trustProxy` takes it: `false` (nobody:
 * the client is the connection's peer), the proxies' addresses and CIDR ranges (hops from them
 * are skipped), or, for a number of proxies, a function believing that many hops whoever they
 * are (Fastify 5.12.1 stopped taking a number, which it now reads as "believe nobody").
 */
export type TrustProxySetting = false | string[] | ((address: string, hop: number) => boolean);

/** Believes the nearest `proxies` hops: the connection's peer is hop 0. */
export const trustHops =
  (proxies: number) =>
  (_address: string, hop: number): boolean =>
    hop < proxies;

/** proxy-addr's names for address ranges, accepted in `TRUST_PROXY`'s list. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Why `TRUST_PROXY=true` is refused, and what to set instead. */
export const TRUST_PROXY_TRUE_REFUSED =
  'true would believe every X-Forwarded-For hop, so any client could choose the address the login throttle and the rate limits see. Set how many proxies stand in front of the server (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5 or TRUST_PROXY=10.0.0.0/8, comma-separated).';

const TrustProxy = z
  .string()
  .trim()
  .transform((value, ctx): TrustProxySetting => {
    const lower = value.toLowerCase();
    if (['', 'false', 'no', 'off', '0'].includes(lower)) return false;
    if (['true', 'yes', 'on'].includes(lower)) {
      ctx.addIssue({ code: 'custom', message: TRUST_PROXY_TRUE_REFUSED });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) return trustHops(Number(value));
    const entries = value.split(',').map((entry) => entry.trim());
    const wrong = entries.find(
      (entry) => !NAMED_RANGES.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry),
    );
    if (wrong !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `'${wrong}' is neither a number of proxies nor a proxy address or CIDR range (e.g. TRUST_PROXY=1, or TRUST_PROXY=10.0.0.5,10.1.0.0/16).`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** One of the operator's dialling ceilings: a whole number from 1 to `DIAL_LIMIT_MAX`. */
const dialMax = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(DIAL_LIMIT_MAX, {
      error: `may be at most ${DIAL_LIMIT_MAX} (an account's policy cannot set more)`,
    })
    .default(fallback);

/** The countries any account may call: ISO codes, comma- or space-separated, or `*` (any). */
const DialCountries = z
  .string()
  .trim()
  .transform((value, ctx): DialCeiling['countries'] => {
    if (value === '*') return 'any';
    const codes = value
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((code) => code.toUpperCase());
    const wrong = codes.find((code) => !isSupportedCountry(code));
    if (codes.length === 0 || wrong !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${wrong === undefined ? 'no country given' : `'${wrong}' is not a country code`}: list the ISO 3166-1 codes of the countries any account may call (e.g. DIAL_ALLOWED_COUNTRIES=US,CA,GB), or * for every country.`,
      });
      return z.NEVER;
    }
    return new Set(codes);
  });

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LEADLINE_MODE: z.enum(['embedded', 'production']).default('embedded'),
  DATA_DIR: z.string().min(1).default('data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  LEADLINE_API_KEY: z.string().min(8).optional(),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .default(24 * 7),
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).default(3600),
  TOKEN_SECRET: z.string().min(32).optional(),
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(SESSION_IDLE_MINUTES_RANGE.min)
    .max(SESSION_IDLE_MINUTES_RANGE.max)
    .default(DEFAULT_SESSION_IDLE_MINUTES),
  TRUST_PROXY: TrustProxy.default(false),
  FRAME_ANCESTORS: z
    .string()
    .optional()
    .transform((value) => (value ?? '').split(/[\s,]+/).filter(Boolean))
    .pipe(
      z.array(
        z.string().regex(/^https?:\/\/[^/?#\s]+$/, {
          error:
            'FRAME_ANCESTORS lists origins such as https://crm.example.com, separated by spaces',
        }),
      ),
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  VOICE_ICE_ADDRESSES: csv.optional(),
  VOICE_SANDBOX_ANSWER_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  AGENT_RING_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  WEB_DIST_DIR: z.string().optional(),
  PUSHER_APP_ID: z.string().min(1).default('leadline'),
  PUSHER_KEY: z.string().min(1).default('leadline-key'),
  PUSHER_SECRET: z.string().min(16).optional(),
  PUSHER_CLUSTER: z.string().min(1).default('us2'),
  REALTIME_PROVIDER: z.enum(['embedded', 'pusher']).default('embedded'),
  PUSHER_HOST: z.string().min(1).optional(),
  PUSHER_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  PUSHER_USE_TLS: bool.default(true),
  PUSHER_WS_HOST: z.string().min(1).optional(),
  PUSHER_WS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  TELEPHONY_PROVIDER: z.enum(['embedded', 'twilio']).default('embedded'),
  TWILIO_ACCOUNT_SID: z.string().optional(),
  TWILIO_API_KEY: z.string().optional(),
  TWILIO_API_SECRET: z.string().optional(),
  TWILIO_TWIML_APP_SID: z.string().optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_API_BASE_URL: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  VOICE_MEDIA_URL: z
    .url({
      error: "VOICE_MEDIA_URL must be the media instance's base URL, e.g. http://10.0.0.5:3000",
    })
    .regex(/^https?:\/\//, 'VOICE_MEDIA_URL must be an http:// or https:// URL')
    .optional(),
  INSTANCE_URL: z
    .url({
      error:
        'INSTANCE_URL must be the base URL the other instances reach this one on, e.g. http://10.0.0.5:3000',
    })
    .regex(/^https?:\/\//, 'INSTANCE_URL must be an http:// or https:// URL')
    .optional(),
  INSTANCE_URLS: csv.optional().superRefine((entries, ctx) => {
    for (const entry of entries ?? []) {
      const problem = instanceUrlEntryProblem(entry);
      if (problem !== null) {
        ctx.addIssue({
          code: 'custom',
          message: `'${entry}' is ${problem}: list the instances' base URLs (https://10.0.0.5:3000) or their network (10.0.0.0/24), comma-separated.`,
        });
      }
    }
  }),
  INSTANCE_NETWORK: z
    .enum(['private', 'public'], {
      error:
        'INSTANCE_NETWORK is private (the instances reach each other over a network only they use) or public (the default)',
    })
    .default('public'),
  TLS: z.enum(['self-signed', 'off']).default('off'),
  TLS_CERT: z.string().min(1).optional(),
  TLS_KEY: z.string().min(1).optional(),
  VOICE_SDK: z.enum(['leadline', 'twilio']).default('leadline'),
  OIDC_ISSUER: z.url({ error: "OIDC_ISSUER must be the provider's issuer URL" }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_REDIRECT_URL: z.url({ error: 'OIDC_REDIRECT_URL must be a URL' }).optional(),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: perMinute(DEFAULT_RATE_LIMITS['sign-in']),
  RATE_LIMIT_INTAKE_PER_MINUTE: perMinute(DEFAULT_RATE_LIMITS.intake),
  RATE_LIMIT_WEBHOOKS_PER_MINUTE: perMinute(DEFAULT_RATE_LIMITS.webhooks),
  RATE_LIMIT_SOCKETS_PER_MINUTE: perMinute(DEFAULT_RATE_LIMITS.sockets),
  // The operator's dialling ceiling: what no account's dial policy may exceed.
  DIAL_ALLOWED_COUNTRIES: DialCountries.default(DEFAULT_DIAL_CEILING.countries),
  DIAL_MAX_CALLS_PER_MINUTE_PER_AGENT: dialMax(DEFAULT_DIAL_CEILING.callsPerMinutePerAgent),
  DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT: dialMax(DEFAULT_DIAL_CEILING.callsPerMinutePerAccount),
  DIAL_MAX_SMS_PER_HOUR: dialMax(DEFAULT_DIAL_CEILING.smsPerHour),
});

/** The provider, from `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`, `OIDC_REDIRECT_URL`. */
export interface SsoProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Default: `<the request's origin>/apps/workos/callback`. */
  redirectUrl?: string | undefined;
}

/** The server's settings, parsed from the environment. */
export interface Config {
  port: number;
  host: string;
  /** `embedded`: demo seed, demo API key and sandbox endpoints on; `production`: off. */
  mode: 'embedded' | 'production';
  dataDir: string;
  /** PostgreSQL server; without it the embedded PGlite under `dataDir/pglite` is used. */
  databaseUrl: string | undefined;
  /** Lead-intake API key that the seed registers (embedded mode: `demo-api-key` by default). */
  leadApiKey: string | undefined;
  sessionTtlMs: number;
  /** A session unused this long ends, unless its account's policy says otherwise. */
  sessionIdleMs: number;
  tokenTtlSeconds: number;
  /** HS256 secret for access tokens; embedded mode generates one under `dataDir` when unset. */
  tokenSecret: string | undefined;
  trustProxy: TrustProxySetting;
  /** Origins that may show the console in a frame (a CRM); none by default. */
  frameAncestors: string[];
  logLevel: string;
  /** Addresses announced in ICE candidates. */
  iceAddresses: string[];
  /** How long a sandbox number rings before it answers. */
  sandboxAnswerMs: number;
  /** How long an agent is rung before the call counts as missed. */
  agentRingTimeoutMs: number;
  /** Built web app to serve at `/`; unset: `apps/web/dist` of this checkout. */
  webDistDir: string | undefined;
  /** The realtime (Pusher protocol) app; the secret is generated under `dataDir` when unset. */
  pusher: { appId: string; key: string; secret: string | undefined; cluster: string };
  /** The realtime service: the embedded endpoint, hosted Pusher, or a self-hosted server. */
  realtime: RealtimeTarget;
  /** Who carries the calls: the embedded voice engine, or Twilio Programmable Voice. */
  telephony: TelephonySetting;
  /**
   * Set on an instance without the voice engine: the media instance it relays the signalling
   * and the call routes to. Unset: this instance runs the engine and the calls.
   */
  mediaUrl: string | undefined;
  /**
   * The base URL the other instances reach this one on when it leads the media (written to
   * `media_leader`); unset: its listening address (a wildcard host: its first LAN address).
   */
  instanceUrl: string | undefined;
  /**
   * The leaders a follower may relay to (`INSTANCE_URLS`; loopback always): the `media_leader`
   * row's URL is believed only when it is one of these.
   */
  allowedInstances: AllowedInstances;
  /**
   * `private`: the operator says the instances reach each other over a network only they use,
   * so plain `http://` between them is accepted in production (`INSTANCE_NETWORK`).
   */
  instanceNetwork: 'private' | 'public';
  /** HTTPS and WSS on `port`: the operator's files, a self-signed certificate, or off. */
  tls: TlsSetting;
  /** The softphone SDK the console loads: ours, or the official Twilio Voice SDK. */
  voiceSdk: 'leadline' | 'twilio';
  /** Single sign-on's OpenID Connect provider; unset: no 'Log in with Google'. */
  sso: SsoProviderSettings | undefined;
  /** Requests per client address per minute on the anonymous routes and sockets, by group. */
  rateLimits: AnonymousRateLimits;
  /** What no account's dial policy may exceed (countries, calls and SMS rates). */
  dialCeiling: DialCeiling;
}

/**
 * Why Twilio is refused in embedded mode: Twilio reaches the server from the internet, where
 * the demo logins and key must not be.
 */
export const TWILIO_NEEDS_PRODUCTION =
  'TELEPHONY_PROVIDER=twilio needs LEADLINE_MODE=production: Twilio reaches this server from the internet, where the demo logins and demo-api-key must not be. Set LEADLINE_MODE=production with DATABASE_URL, TOKEN_SECRET, PUSHER_SECRET and a LEADLINE_API_KEY of your own (docs/deployment.md).';

/** Thrown when the environment holds a value the server cannot run with. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The machine's non-loopback IPv4 addresses: the default ICE addresses, reachable on the LAN. */
export function lanAddresses(): string[] {
  const found = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && i.family === 'IPv4' && !i.internal)
    .map((i) => i!.address);
  return found.length > 0 ? found : ['127.0.0.1'];
}

/** Parses the environment (default: `process.env`) into a `Config`, or throws a `ConfigError`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid setting ${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  const embedded = e.LEADLINE_MODE === 'embedded';
  if (embedded && e.TELEPHONY_PROVIDER === 'twilio') throw new ConfigError(TWILIO_NEEDS_PRODUCTION);
  if (!embedded && !e.DATABASE_URL) throw new ConfigError('Production mode needs DATABASE_URL.');
  if (!embedded && !e.TOKEN_SECRET) throw new ConfigError('Production mode needs TOKEN_SECRET.');
  if (!embedded && !e.PUSHER_SECRET) throw new ConfigError('Production mode needs PUSHER_SECRET.');
  if (Boolean(e.TLS_CERT) !== Boolean(e.TLS_KEY)) {
    throw new ConfigError('TLS_CERT and TLS_KEY go together: set both, or neither.');
  }
  if (e.TLS_CERT && e.TLS === 'self-signed') {
    throw new ConfigError('Set either TLS=self-signed or TLS_CERT and TLS_KEY, not both.');
  }
  const ssoSet = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (ssoSet !== 0 && ssoSet !== 3) {
    throw new ConfigError(
      'Single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: set all three, or none.',
    );
  }
  if (e.VOICE_MEDIA_URL) {
    const missing = [
      ['DATABASE_URL', e.DATABASE_URL],
      ['TOKEN_SECRET', e.TOKEN_SECRET],
      ['PUSHER_SECRET', e.PUSHER_SECRET],
    ].filter(([, value]) => !value);
    if (missing.length > 0) {
      throw new ConfigError(
        `An instance relaying to VOICE_MEDIA_URL shares the media instance's database and secrets: set ${missing.map(([name]) => name).join(', ')} as on the media instance.`,
      );
    }
  }
  if (e.VOICE_MEDIA_URL && e.TELEPHONY_PROVIDER === 'twilio') {
    throw new ConfigError(
      'VOICE_MEDIA_URL relays to an embedded voice engine; with TELEPHONY_PROVIDER=twilio every instance is equal: leave VOICE_MEDIA_URL unset on each (docs/deployment.md, several Twilio instances).',
    );
  }
  if (e.REALTIME_PROVIDER === 'embedded' && (e.PUSHER_HOST || e.PUSHER_WS_HOST)) {
    throw new ConfigError('PUSHER_HOST and PUSHER_WS_HOST need REALTIME_PROVIDER=pusher.');
  }
  if (e.REALTIME_PROVIDER === 'pusher' && !e.PUSHER_SECRET) {
    throw new ConfigError(
      'REALTIME_PROVIDER=pusher needs PUSHER_KEY, PUSHER_APP_ID and PUSHER_SECRET of that app.',
    );
  }
  const telephony = telephonyOf(e);
  const tls: TlsSetting = e.TLS_CERT
    ? { mode: 'files', certPath: resolve(e.TLS_CERT), keyPath: resolve(e.TLS_KEY!) }
    : { mode: e.TLS };
  return {
    port: e.PORT,
    host: e.HOST,
    mode: e.LEADLINE_MODE,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    leadApiKey: e.LEADLINE_API_KEY ?? (embedded ? DEMO_API_KEY : undefined),
    sessionTtlMs: e.SESSION_TTL_HOURS * 3_600_000,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    tokenSecret: e.TOKEN_SECRET,
    trustProxy: e.TRUST_PROXY,
    frameAncestors: e.FRAME_ANCESTORS,
    logLevel: e.LOG_LEVEL,
    iceAddresses: e.VOICE_ICE_ADDRESSES ?? lanAddresses(),
    sandboxAnswerMs: e.VOICE_SANDBOX_ANSWER_MS,
    agentRingTimeoutMs: e.AGENT_RING_TIMEOUT_MS,
    webDistDir: e.WEB_DIST_DIR ? resolve(e.WEB_DIST_DIR) : undefined,
    pusher: {
      appId: e.PUSHER_APP_ID,
      key: e.PUSHER_KEY,
      secret: e.PUSHER_SECRET,
      cluster: e.PUSHER_CLUSTER,
    },
    realtime: realtimeTargetOf(e),
    telephony,
    mediaUrl: e.VOICE_MEDIA_URL?.replace(/\/+$/, ''),
    instanceUrl: e.INSTANCE_URL?.replace(/\/+$/, ''),
    allowedInstances: allowedInstancesOf(e.INSTANCE_URLS ?? [], {
      plainHttp: embedded || e.INSTANCE_NETWORK === 'private',
    }),
    instanceNetwork: e.INSTANCE_NETWORK,
    tls,
    // Twilio's own edge speaks only to the official SDK.
    voiceSdk: telephony.provider === 'twilio' ? 'twilio' : e.VOICE_SDK,
    sso:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
        ? {
            issuer: e.OIDC_ISSUER,
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            redirectUrl: e.OIDC_REDIRECT_URL,
          }
        : undefined,
    rateLimits: {
      'sign-in': e.RATE_LIMIT_SIGN_IN_PER_MINUTE,
      intake: e.RATE_LIMIT_INTAKE_PER_MINUTE,
      webhooks: e.RATE_LIMIT_WEBHOOKS_PER_MINUTE,
      sockets: e.RATE_LIMIT_SOCKETS_PER_MINUTE,
    },
    dialCeiling: {
      countries: e.DIAL_ALLOWED_COUNTRIES,
      callsPerMinutePerAgent: e.DIAL_MAX_CALLS_PER_MINUTE_PER_AGENT,
      callsPerMinutePerAccount: e.DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT,
      smsPerHour: e.DIAL_MAX_SMS_PER_HOUR,
    },
  };
}

/** Where realtime events go (see `RealtimeTarget`). */
function realtimeTargetOf(e: z.infer<typeof Env>): RealtimeTarget {
  if (e.REALTIME_PROVIDER === 'embedded') return { kind: 'embedded' };
  if (!e.PUSHER_HOST) return { kind: 'hosted' };
  const port = e.PUSHER_PORT ?? (e.PUSHER_USE_TLS ? 443 : 80);
  return {
    kind: 'self-hosted',
    host: e.PUSHER_HOST,
    port,
    useTLS: e.PUSHER_USE_TLS,
    wsHost: e.PUSHER_WS_HOST ?? e.PUSHER_HOST,
    wsPort: e.PUSHER_WS_PORT ?? port,
  };
}

/** The Twilio account and app the provider uses (`TELEPHONY_PROVIDER=twilio`). */
export interface TwilioSettings {
  provider: 'twilio';
  accountSid: string;
  apiKey: string;
  apiSecret: string;
  twimlAppSid: string;
  authToken: string;
  /** Where Twilio reaches this server (webhooks, status callbacks), e.g. https://calls.acme.com. */
  publicBaseUrl: string;
  /** Twilio's REST API; only a stand-in on loopback for tests differs from https://api.twilio.com. */
  apiBaseUrl: string;
}

/** Who carries the calls. */
export type TelephonySetting = { provider: 'embedded' } | TwilioSettings;

const SID = (prefix: string) => new RegExp(`^${prefix}[0-9a-f]{32}$`);

/**
 * The telephony provider's settings; every missing or malformed Twilio value is named, one per
 * line, in a single `ConfigError`.
 */
function telephonyOf(e: z.infer<typeof Env>): TelephonySetting {
  if (e.TELEPHONY_PROVIDER === 'embedded') return { provider: 'embedded' };
  const problems: string[] = [];
  const check = (name: string, value: string | undefined, valid: RegExp, what: string) => {
    if (!value) problems.push(`${name} is missing: ${what}.`);
    else if (!valid.test(value)) problems.push(`${name} is malformed: ${what}.`);
    return value ?? '';
  };
  const accountSid = check(
    'TWILIO_ACCOUNT_SID',
    e.TWILIO_ACCOUNT_SID,
    SID('AC'),
    'the Account SID from the Twilio console (AC and 32 hex digits)',
  );
  const apiKey = check(
    'TWILIO_API_KEY',
    e.TWILIO_API_KEY,
    SID('SK'),
    'an API key SID (SK and 32 hex digits; Account → API keys)',
  );
  const apiSecret = check(
    'TWILIO_API_SECRET',
    e.TWILIO_API_SECRET,
    /^[A-Za-z0-9]{32}$/,
    "that API key's secret (32 letters and digits)",
  );
  const twimlAppSid = check(
    'TWILIO_TWIML_APP_SID',
    e.TWILIO_TWIML_APP_SID,
    SID('AP'),
    'the TwiML App SID whose voice URL is <PUBLIC_BASE_URL>/twilio/voice (AP and 32 hex digits)',
  );
  const authToken = check(
    'TWILIO_AUTH_TOKEN',
    e.TWILIO_AUTH_TOKEN,
    /^[0-9a-f]{32}$/,
    "the account's Auth Token, which signs webhooks (32 hex digits)",
  );
  const publicBaseUrl = check(
    'PUBLIC_BASE_URL',
    e.PUBLIC_BASE_URL,
    /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/,
    'the address Twilio reaches this server at, e.g. https://calls.example.com',
  ).replace(/\/+$/, '');
  const apiBaseUrl = e.TWILIO_API_BASE_URL ?? 'https://api.twilio.com';
  if (!/^https?:\/\/[^/?#\s]+$/.test(apiBaseUrl)) {
    problems.push('TWILIO_API_BASE_URL is malformed: a base URL such as https://api.twilio.com.');
  }
  if (problems.length > 0) {
    throw new ConfigError(
      `TELEPHONY_PROVIDER=twilio needs:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
  }
  return {
    provider: 'twilio',
    accountSid,
    apiKey,
    apiSecret,
    twimlAppSid,
    authToken,
    publicBaseUrl,
    apiBaseUrl,
  };
}
