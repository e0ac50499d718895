/**
 * The HTTP application on a fresh seeded database with the fake telephony, driven through
 * `fastify.inject`; plus a logged-in agent helper.
 */
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import { SANDBOX_NUMBERS } from '@leadline/voice';
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify';
import { RelayReception } from '../relay/relay-reception';
import { NO_DIAL_CEILING, type DialCeiling } from '../accounts/account-policy';
import { buildApp } from '../app';
import type { TrustProxySetting } from '../config';
import type { ApiDocsAccess } from '../http/api-docs';
import { AccessTokens } from '../auth/access-token';
import type { SingleSignOn } from '../auth/single-sign-on';
import { LoginThrottle } from '../auth/login-throttle';
import { SessionStore } from '../auth/sessions';
import { CallControl } from '../calls/call-control';
import { CallFlows } from '../calls/call-flows';
import type { Clock } from '../lib/clock';
import { DialGuard } from '../calls/dial-guard';
import type { RemoteRecordings } from '../calls/recording-access';
import type { Database } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { callUsers, calls, users } from '../db/schema';
import { DEMO_PASSWORD, ensureApiKey, seedDemo } from '../db/seed';
import { EventBus } from '../events/event-bus';
import { NetworkTests } from '../network-test/network-tests';
import { SandboxSmsSender, SmsService, type SmsSender } from '../sms/sms-sender';
import { FakeTelephony } from '../telephony/fake-telephony';
import { RateLimitHits } from '../http/rate-limit-hits';
import type { AnonymousRateLimits } from '../http/rate-limit-settings';
import { openTestDatabase } from './test-database';

/** The secret tests sign tokens with. */
export const TEST_TOKEN_SECRET = 'test-secret-test-secret-test-secret-0123';
/** The realtime credentials tests sign with. */
export const TEST_PUSHER = {
  appId: 'test',
  key: 'test-key',
  secret: 'test-secret-0123456789',
  cluster: 'us2',
};

/** The demo API key the seed registers in tests. */
export const TEST_API_KEY = 'demo-api-key';

/** A test application and its parts. */
export interface TestApp {
  app: FastifyInstance;
  database: Database;
  telephony: FakeTelephony;
  flows: CallFlows;
  networkTests: NetworkTests;
  tokens: AccessTokens;
  events: EventBus;
  /** The folder recording files are served from, if any (`recordingsRoot`). */
  recordingsRoot: string | undefined;
  close(): Promise<void>;
}

/** Starts the application on a fresh seeded database. */
export async function startTestApp(
  options: {
    clock?: Clock;
    trustProxy?: TrustProxySetting;
    /** Default: one on the test's database, with the system clock. */
    loginThrottle?: (db: Database['db']) => LoginThrottle;
    /** Default: sessions of an hour on the test's database, with the system clock. */
    sessions?: (db: Database['db']) => SessionStore;
    sms?: SmsSender;
    ringTimeoutMs?: number;
    /** The anonymous routes' rate limits (default: the product's); counted on `clock`. */
    rateLimits?: AnonymousRateLimits;
    /** The folder recording files are served from (the product's data folder); default none. */
    recordingsRoot?: string;
    /** The provider's recordings (Twilio's), as with `TELEPHONY_PROVIDER=twilio`. */
    recordings?: RemoteRecordings;
    /** Single sign-on, built on the test's database. */
    sso?: (db: Database['db']) => SingleSignOn;
    /** Production's cookies and HSTS (`AppOptions.httpsOnly`). */
    httpsOnly?: boolean;
    /** Production's refusal of the demo's password (`CommonServices.refuseDemoPassword`). */
    refuseDemoPassword?: boolean;
    /** The telephony provider's webhooks (`CallServices.webhooks`). */
    webhooks?: FastifyPluginAsync;
    /** Who may read `/api/docs` (`AppOptions.apiDocs`; default anyone). */
    apiDocs?: ApiDocsAccess;
    /** Hears every route as it is registered (`AppOptions.onRoute`). */
    onRoute?: (route: RouteOptions) => void;
    /**
     * The operator's dialling ceiling (`DIAL_*`); default none reachable (`NO_DIAL_CEILING`): the
     * accounts' policies and defaults alone apply, as the tests of other things expect.
     */
    dialCeiling?: DialCeiling;
  } = {},
): Promise<TestApp> {
  const database = await openTestDatabase();
  await seedDemo(database.db);
  await ensureApiKey(database.db, TEST_API_KEY);
  const telephony = new FakeTelephony();
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const events = new EventBus();
  const dialCeiling = options.dialCeiling ?? NO_DIAL_CEILING;
  const flows = new CallFlows({
    db: database.db,
    telephony,
    log: logger,
    ringTimeoutMs: options.ringTimeoutMs ?? 30_000,
    events,
    dialGuard: new DialGuard({ db: database.db, log: logger, ceiling: dialCeiling }),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await flows.start();
  const networkTests = new NetworkTests({
    telephony,
    holdBack: (user) => flows.holdAgentBack(user),
    echoNumber: SANDBOX_NUMBERS.echo,
    log: logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const tokens = new AccessTokens(TEST_TOKEN_SECRET, 3600);
  const app = await buildApp(
    {
      db: database.db,
      sessions: options.sessions?.(database.db) ?? new SessionStore(database.db, 3_600_000),
      tokens,
      loginThrottle: options.loginThrottle?.(database.db) ?? new LoginThrottle(database.db),
      flows,
      control: new CallControl(database.db, flows),
      pusher: TEST_PUSHER,
      sms: new SmsService(database.db, options.sms ?? new SandboxSmsSender()),
      networkTests,
      recordingsRoot: options.recordingsRoot,
      recordings: options.recordings,
      sso: options.sso ? options.sso(database.db) : null,
      webhooks: options.webhooks,
      dialCeiling,
      ...(options.refuseDemoPassword ? { refuseDemoPassword: true } : {}),
    },
    {
      logger,
      ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
      // As the product with TOKEN_SECRET set: it believes what a relaying instance vouches for.
      relayReception: new RelayReception({ secret: TEST_TOKEN_SECRET, epoch: () => null }),
      rateLimitHits: new RateLimitHits({
        db: database.db,
        ...(options.clock ? { now: () => options.clock!.now() } : {}),
      }),
      trustProxy: options.trustProxy ?? false,
      httpsOnly: options.httpsOnly ?? false,
      webDistDir: '/nonexistent',
      ...(options.apiDocs ? { apiDocs: options.apiDocs } : {}),
      ...(options.onRoute ? { onRoute: options.onRoute } : {}),
      sandbox: { sandboxCalls: () => [], sandboxHangUp: () => false },
    },
  );
  return {
    app,
    database,
    telephony,
    flows,
    networkTests,
    tokens,
    events,
    recordingsRoot: options.recordingsRoot,
    async close() {
      networkTests.close();
      flows.stop();
      await app.close();
      await flows.idle();
      await database.close();
    },
  };
}

/** A logged-in user: its cookie header, CSRF token and user id. */
export interface Agent {
  /** The session cookie header (`leadline_session=…`); `renew` replaces it. */
  cookie: string;
  csrf: string;
  userId: number;
  accountId: number;
}

/** Logs a demo user in through the API (with the demo's password unless told another). */
export async function login(
  app: FastifyInstance,
  email = 'agent1@example.com',
  password = DEMO_PASSWORD,
): Promise<Agent> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/user/login',
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const setCookie = res.cookies.find((c) => c.name === 'leadline_session');
  const cookie = `leadline_session=${setCookie!.value}`;
  const me = await app.inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } });
  const body = me.json<{ user: { id: number; account_id: number }; csrf_token: string }>();
  return { cookie, csrf: body.csrf_token, userId: body.user.id, accountId: body.user.account_id };
}

/**
 * Between tests on one app: nobody online, no call live, no ring held (a live ring is a
 * reservation whatever its call became), nobody wrapping up; routing told.
 */
export async function nothingLive(t: TestApp): Promise<void> {
  for (const identity of [...t.telephony.online])
    t.telephony.emit({ type: 'device.offline', identity });
  await t.flows.idle();
  await t.database.db.update(calls).set({ status: 'completed' });
  await t.database.db
    .update(callUsers)
    .set({ outcome: 'canceled' })
    .where(eq(callUsers.outcome, 'ringing'));
  await t.database.db.update(users).set({ wrapUpUntil: null });
  routingChanged();
}
