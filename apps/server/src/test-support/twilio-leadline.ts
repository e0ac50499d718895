/**
 * The whole product with `TELEPHONY_PROVIDER=twilio` (so `LEADLINE_MODE=production`: Twilio runs
 * only there), started through the composition root (`startLeadline`) on a fresh test database
 * holding the demo seed's account and users (the tests' cast; `main.ts`'s start-up check, which
 * refuses those in production, is tested apart in `production-start.integration.test.ts`; they
 * sign in with {@link PRODUCTION_TEST_PASSWORD}, production refusing the demo's), its
 * `twilio` client pointed at a REST stand-in on
 * loopback (`TWILIO_API_BASE_URL`), and a simulated Twilio (`TwilioCloud`) posting the signed
 * callbacks Twilio would send to the product's real webhooks. Agents log in over HTTP and open
 * the console's realtime client (pusher-js on their presence channel), which is how the server
 * learns their browser is online with Twilio.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { LeadIntakeResponse } from '@leadline/contracts';
import { loadConfig, type Config } from '../config';
import { callUsers, calls, profiles, users } from '../db/schema';
import { routingChanged } from '../db/routing-changes';
import { seedDemo } from '../db/seed';
import { startLeadline, type Leadline } from '../leadline';
import { TwilioApiStandIn, STAND_IN_ACCOUNT_SID, type ApiRequest } from './twilio-api-stand-in';
import { TwilioCloud } from './twilio-cloud';
import { FINAL_STATUSES, type CallRow } from '../calls/calls-repo';
import { requestJson, type HttpResult } from './http-json';
import { HttpSession } from './http-session';
import { givePasswordToAll, PRODUCTION_TEST_PASSWORD } from './production-logins';
import { openRealtimeClient, type RealtimeClient } from './realtime-client';
import { openTestDatabase } from './test-database';
import { waitUntil } from './wait-until';

/** The lead-intake key the harness's product registers (production has no demo key). */
export const TWILIO_TEST_LEAD_API_KEY = 'twilio-test-lead-intake-key-0123456789';

/** The settings a Twilio test runs with (well-formed, fake). */
export const TWILIO_TEST_ENV = {
  TELEPHONY_PROVIDER: 'twilio',
  TWILIO_ACCOUNT_SID: STAND_IN_ACCOUNT_SID,
  TWILIO_API_KEY: 'SK' + 'b'.repeat(32),
  TWILIO_API_SECRET: 'S'.repeat(32),
  TWILIO_TWIML_APP_SID: 'AP' + 'c'.repeat(32),
  TWILIO_AUTH_TOKEN: 'd'.repeat(32),
  PUBLIC_BASE_URL: 'https://calls.example.com',
} as const;

/** A logged-in agent: their HTTP session and their console's realtime client. */
export interface TwilioAgent {
  session: HttpSession;
  realtime: RealtimeClient;
  /** Their Twilio identity (`client:<identity>`). */
  identity: string;
  /** A Twilio access token their console fetches now (`GET /api/v1/twilio/token2`). */
  token(): Promise<string>;
  /**
   * Their browser places a call (`device.connect({ params })`) with a token fetched now, as
   * Twilio asks the voice webhook; resolves with the TwiML answered.
   */
  connect(params: Record<string, string>): Promise<string>;
  close(): void;
}

/** The running product on Twilio. */
export interface TwilioLeadline {
  leadline: Leadline;
  url: string;
  config: Config;
  db: Leadline['database']['db'];
  standIn: TwilioApiStandIn;
  cloud: TwilioCloud;
  /** Logs an agent in and opens their console's realtime client; resolves once they are online. */
  login(email: string): Promise<TwilioAgent>;
  /** Logs agents in one after another: the first is the longest idle. */
  loginInOrder(...emails: string[]): Promise<TwilioAgent[]>;
  postLead(body: Record<string, unknown>): Promise<HttpResult<LeadIntakeResponse>>;
  callRow(callId: number): Promise<CallRow | undefined>;
  waitForCall(callId: number, until?: (row: CallRow) => boolean): Promise<CallRow>;
  /** The REST requests so far whose path matches `path`, of `method`. */
  requests(method: string, path: RegExp): ApiRequest[];
  /** The participant creates (rings and dials) of the conference named `conference`, in order. */
  creates(conference: string): ApiRequest[];
  /**
   * Between tests: logs every agent out (waits until offline), lets every callback and the
   * flows finish, ends what is left, puts agents and profiles back as seeded, forgets the REST
   * requests and callbacks. Resolves with the callbacks the product refused (none expected).
   */
  reset(): Promise<Array<{ url: string; status: number }>>;
  close(): Promise<void>;
}

/**
 * The REST stand-in as the Twilio account of {@link TWILIO_TEST_ENV} (its API key required),
 * owning `numbers`.
 */
export async function startTwilioAccountStandIn(numbers: string[]): Promise<TwilioApiStandIn> {
  const standIn = await TwilioApiStandIn.start();
  standIn.numbers = numbers;
  standIn.apiKey = TWILIO_TEST_ENV.TWILIO_API_KEY;
  return standIn;
}

/**
 * The settings of an instance in production mode on Twilio against the stand-in at
 * `standInUrl`: the instances of one install share these secrets and `leadApiKey`.
 */
export function twilioProductionEnv(
  standInUrl: string,
  leadApiKey: string = TWILIO_TEST_LEAD_API_KEY,
): Record<string, string> {
  return {
    LEADLINE_MODE: 'production',
    TOKEN_SECRET: 'twilio-production-token-secret-0123456789abcdef',
    PUSHER_SECRET: 'twilio-production-pusher-secret-0123',
    LEADLINE_API_KEY: leadApiKey,
    ...TWILIO_TEST_ENV,
    TWILIO_API_BASE_URL: standInUrl,
  };
}

/** Starts the product on Twilio (stand-in and simulated callbacks). */
export async function startTwilioLeadline(
  options: { env?: Record<string, string>; ringTimeoutMs?: number } = {},
): Promise<TwilioLeadline> {
  const dataDir = await mkdtemp(join(tmpdir(), 'leadline-twilio-'));
  const standIn = await startTwilioAccountStandIn(['+15550100999', '+15550100111']);
  const database = await openTestDatabase();
  let leadline: Leadline;
  let config: Config;
  try {
    // Production starts no demo seed of its own: the tests' cast is put in first.
    await seedDemo(database.db);
    await givePasswordToAll(database.db);
    const loaded = loadConfig({
      LEADLINE_MODE: 'production',
      // Production's required settings; the database is the test's own (`overrides.database`).
      DATABASE_URL: 'postgres://the-test-database.invalid/leadline',
      TOKEN_SECRET: 'twilio-test-token-secret-0123456789abcdef',
      PUSHER_SECRET: 'twilio-test-pusher-secret-0123',
      LEADLINE_API_KEY: TWILIO_TEST_LEAD_API_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      WEB_DIST_DIR: join(dataDir, 'no-web'),
      ...TWILIO_TEST_ENV,
      TWILIO_API_BASE_URL: standIn.url,
      ...options.env,
    });
    config = {
      ...loaded,
      // Not the placeholder above: instance events stay in this process, on the test's database.
      databaseUrl: undefined,
      agentRingTimeoutMs: options.ringTimeoutMs ?? loaded.agentRingTimeoutMs,
    };
    leadline = await startLeadline(config, { database });
  } catch (error) {
    await database.close().catch(() => undefined);
    await standIn.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const cloud = new TwilioCloud(standIn, {
    authToken: TWILIO_TEST_ENV.TWILIO_AUTH_TOKEN,
    apiSecret: TWILIO_TEST_ENV.TWILIO_API_SECRET,
    publicBaseUrl: TWILIO_TEST_ENV.PUBLIC_BASE_URL,
    productUrl: () => leadline.url,
  });
  const agents = new Set<TwilioAgent>();
  const db = leadline.database.db;
  const callRow = async (callId: number) => {
    const [row] = await db.select().from(calls).where(eq(calls.id, callId));
    return row;
  };
  const login = async (email: string): Promise<TwilioAgent> => {
    const session = await HttpSession.login(leadline.url, email, PRODUCTION_TEST_PASSWORD);
    const realtime = await openRealtimeClient(session);
    const identity = String(session.userId);
    await waitUntil(
      () => (leadline.telephony.isOnline(identity) ? true : undefined),
      `${email} to be online with Twilio`,
    );
    const token = async () => {
      const res = await session.api<{ token: string }>('GET', '/api/v1/twilio/token2');
      if (res.status !== 200) throw new Error(`token2 for ${email} failed: ${res.status}`);
      return res.body.token;
    };
    const agent: TwilioAgent = {
      session,
      realtime,
      identity,
      token,
      connect: async (params) => cloud.connect(await token(), params),
      close() {
        agents.delete(agent);
        realtime.close();
      },
    };
    agents.add(agent);
    return agent;
  };
  return {
    leadline,
    url: leadline.url,
    config,
    db,
    standIn,
    cloud,
    login,
    async loginInOrder(...emails) {
      const loggedIn: TwilioAgent[] = [];
      for (const email of emails) loggedIn.push(await login(email));
      return loggedIn;
    },
    postLead: (body) =>
      requestJson<LeadIntakeResponse>(
        'POST',
        `${leadline.url}/api/v1/leads`,
        { authorization: `Bearer ${config.leadApiKey ?? ''}` },
        body,
      ),
    callRow,
    waitForCall(callId, until = (row) => FINAL_STATUSES.has(row.status)) {
      let last: CallRow | undefined;
      return waitUntil(
        async () => {
          last = await callRow(callId);
          return last && until(last) ? last : undefined;
        },
        `call ${callId} to reach the expected state`,
        undefined,
        () => `last ${JSON.stringify({ status: last?.status, reason: last?.reason })}`,
      );
    },
    requests: (method, path) =>
      standIn.requests.filter((r) => r.method === method && path.test(r.path)),
    creates: (conference) =>
      standIn.requests.filter(
        (r) =>
          r.method === 'POST' &&
          r.path.endsWith(`/Conferences/${encodeURIComponent(conference)}/Participants.json`),
      ),
    async reset() {
      for (const agent of [...agents]) agent.close();
      await waitUntil(async () => {
        const online = await db.select().from(users).where(eq(users.isOnlineApp, true));
        return online.length === 0 ? true : undefined;
      }, 'every agent to be offline');
      await cloud.settled();
      await leadline.flows.idle();
      const refused = cloud.callbacks
        .filter((c) => c.status !== 204 && c.status !== 200)
        .map(({ url, status }) => ({ url, status }));
      cloud.callbacks.length = 0;
      // A clean slate: every call over, its rings settled (a ring still going holds its agent
      // in the database whatever became of its call: routing/reservations.ts).
      await db.update(calls).set({ status: 'completed' });
      await db
        .update(callUsers)
        .set({ outcome: 'canceled' })
        .where(eq(callUsers.outcome, 'ringing'));
      await db.update(users).set({ wrapUpUntil: null, isAvailable: true });
      routingChanged();
      await db.update(profiles).set({ ringTimeoutMs: null, wrapUpSeconds: 60, teamId: null });
      leadline.flows.settings.forget();
      standIn.reset();
      return refused;
    },
    async close() {
      for (const agent of [...agents]) agent.close();
      cloud.close();
      await leadline.close();
      await standIn.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
