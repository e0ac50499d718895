/**
 * The composition root: builds every service from the configuration and starts the product
 * (database, seed, voice engine, call flows, HTTP and signalling on one port).
 */
import { SingleSignOn } from './auth/single-sign-on';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type DestinationStream } from 'pino';
import { NETWORK_TEST_PARAM } from '@leadline/contracts';
import {
  SANDBOX_NUMBERS,
  VoiceEngine,
  WorkerMediaEngine,
  type MediaEngine,
  type OutgoingCallDecision,
} from '@leadline/voice';
import { AdminChanges, forgetOnAdminChange } from './admin/admin-changes';
import { buildApp, type MediaRoleReport } from './app';
import { SIGNAL_PATH, baseUrlOf, routeUpgrades } from './http/instance-http';
import { SocketRateLimit } from './http/anonymous-rate-limit';
import { RelayReception, upgradeGate } from './relay/relay-reception';
import { RateLimitHits } from './http/rate-limit-hits';
import { WebhookReceipts } from './http/webhook-receipts';
import { connectSourcesOf } from './http/security-headers';
import { AccessTokens, TokenRefusedError } from './auth/access-token';
import { LoginThrottle } from './auth/login-throttle';
import { SocketAccess, liveSessionTags } from './auth/socket-access';
import { requireTokenLogin } from './twilio/twilio-token-login';
import { SessionStore } from './auth/sessions';
import { CallControl } from './calls/call-control';
import { CallFlows } from './calls/call-flows';
import { recordingsFolderOf } from './calls/recording-access';
import { DialGuard, callingNowhereWarning } from './calls/dial-guard';
import { lanAddresses, type Config } from './config';
import { openDatabase, type Database } from './db/database';
import { keepPlannerStatistics } from './db/planner-statistics';
import { keepFoldingFloorCounts } from './floor/floor-counts';
import { ensureApiKey, seedDemo } from './db/seed';
import { EventBus } from './events/event-bus';
import { serverRoot } from './lib/app-root';
import { loadOrCreateSecret } from './lib/secret-file';
import { NetworkTests } from './network-test/network-tests';
import { openInstanceBus } from './events/open-instance-bus';
import type { InstanceBus } from './events/instance-bus';
import type { RealtimeService } from './realtime/realtime-service';
import { registerRealtime } from './realtime/realtime-routes';
import { SandboxSmsSender, SmsService, type SmsSender } from './sms/sms-sender';
import { loadTlsCredentials } from './tls/tls-credentials';
import { PgCallLocks } from './cluster/call-locks';
import { markAllOffline } from './users/users-repo';
import { DevicePresence } from './users/device-presence';
import { findAssignedCallerNumber } from './users/caller-numbers-repo';
import { userChannelOf } from './realtime/channels';
import type { Telephony } from './telephony/telephony';
import { openTwilioProvider, type TwilioProvider } from './twilio/twilio-provider';
import { twilioCallCarrier } from './twilio/twilio-reconcile';

/** A running product. */
export interface Leadline {
  app: FastifyInstance;
  database: Database;
  flows: CallFlows;
  /** Who carries the calls: the embedded engine or the Twilio provider. */
  telephony: Telephony;
  /** The embedded voice engine; null with `TELEPHONY_PROVIDER=twilio`. */
  engine: VoiceEngine | null;
  /** The Twilio provider; null with the embedded engine. */
  twilio: TwilioProvider | null;
  /** The pre-call network tests (Settings). */
  networkTests: NetworkTests;
  /** Domain events (agent status…), for the realtime endpoint and tests. */
  events: EventBus;
  /** The realtime endpoint and publisher. */
  realtime: RealtimeService;
  /** Messages to and from the other instances on the same database. */
  bus: InstanceBus;
  /** The base URL it listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  /**
   * Stops: live calls end cleanly (seconds and recordings stored), web leads still ringing go
   * back to the queue, then everything closes.
   */
  close(): Promise<void>;
}

/** Replaceable parts (tests). */
export interface LeadlineOverrides {
  media?: MediaEngine;
  /** An open database to use instead of the configured one (closed with the product). */
  database?: Database;
  sms?: SmsSender;
  /** How often the flows stamp live calls as seen (ms). */
  heartbeatMs?: number;
  /** Where the log lines go (default: standard output). */
  logDestination?: DestinationStream;
  /** What `/healthz` says of the media lease (several instances on PostgreSQL). */
  mediaRole?: () => MediaRoleReport;
}

export { SIGNAL_PATH };

/** Builds and starts everything; resolves once it listens. */
export async function startLeadline(
  config: Config,
  overrides: LeadlineOverrides = {},
): Promise<Leadline> {
  const logger = overrides.logDestination
    ? pino({ level: config.logLevel }, overrides.logDestination)
    : pino({ level: config.logLevel });
  // First, so a bad certificate stops the start before anything is opened.
  const https = await loadTlsCredentials(config.tls, config.dataDir, lanAddresses());
  const database =
    overrides.database ??
    (await openDatabase(
      config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
    ));
  const { db } = database;
  if (config.mode === 'embedded' && (await seedDemo(db))) logger.info('seeded the demo account');
  // The README's LEADLINE_API_KEY is registered at start in either mode (demo-api-key by default
  // in embedded mode only).
  if (config.leadApiKey) await ensureApiKey(db, config.leadApiKey);
  // No device is connected at start, whatever the database remembers: the engine's devices
  // register with this process. With Twilio, device presence decides (below): other instances'
  // agents stay online.
  if (config.telephony.provider !== 'twilio') await markAllOffline(db);
  const stopStatistics = await keepPlannerStatistics(database, (error) =>
    logger.warn({ err: error }, 'analyzing the tables failed'),
  );
  // The floor's counts: the calls' changes folded in every few seconds (floor/floor-counts.ts).
  const stopFolding = keepFoldingFloorCounts(database, (error) =>
    logger.warn({ err: error }, 'folding the floor counts failed'),
  );
  const stopMaintenance = () => {
    stopStatistics();
    stopFolding();
  };

  const accessTokens = new AccessTokens(
    config.tokenSecret ?? loadOrCreateSecret(join(config.dataDir, 'token-secret')),
    config.tokenTtlSeconds,
  );
  // An agent's browser places a call: a network test's (Settings) dials the echo number, every
  // other call is a lead's. The telephony provider asks; the flows decide.
  const authorizeOutgoing = async (
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision> => {
    const testId = params[NETWORK_TEST_PARAM];
    if (testId !== undefined) return networkTests.authorizeOutgoing(identity, testId);
    return flows.authorizeOutgoing(identity, params);
  };
  let twilioProvider: TwilioProvider | null = null;
  let engine: VoiceEngine | null = null;
  let telephony: Telephony;
  if (config.telephony.provider === 'twilio') {
    twilioProvider = await openTwilioProvider(config.telephony, {
      log: logger,
      db,
      ringTimeoutMs: config.agentRingTimeoutMs,
      tokenTtlSeconds: config.tokenTtlSeconds,
    }).catch(async (error: unknown) => {
      stopMaintenance();
      await database.close();
      throw error;
    });
    telephony = twilioProvider.telephony;
  } else {
    const media =
      overrides.media ??
      new WorkerMediaEngine({
        iceAddresses: config.iceAddresses,
        sandboxDir: join(config.dataDir, 'sandbox'),
        // Named here, not left to the engine's default: the recordings route serves this folder.
        recordingsDir: recordingsFolderOf(config.dataDir),
        answerDelayMs: config.sandboxAnswerMs,
      });
    // The engine asks the flows about outgoing calls; the flows drive the engine.
    engine = new VoiceEngine({
      media,
      verifyToken: async (token) => {
        try {
          const verified = await accessTokens.verify(token);
          // A token lets a socket in only while the login it was issued to lasts.
          const userId = Number(verified.identity);
          if (
            verified.session === undefined ||
            !Number.isSafeInteger(userId) ||
            !(await liveSessionTags(db, [userId], new Date(), config.sessionIdleMs)).has(
              verified.session,
            )
          ) {
            return { ok: false, reason: 'invalid' };
          }
          return { ok: true, ...verified };
        } catch (error) {
          if (error instanceof TokenRefusedError) return { ok: false, reason: error.reason };
          throw error;
        }
      },
      authorizeOutgoing,
    });
    telephony = engine;
  }
  const callLocks =
    twilioProvider && config.databaseUrl
      ? new PgCallLocks(config.databaseUrl, {
          onIdleError: (error) => logger.warn({ err: error }, 'a call-lock connection ended'),
        })
      : null;
  const events = new EventBus((error) => logger.error({ err: error }, 'event listener failed'));
  const flows = new CallFlows({
    db,
    telephony,
    log: logger,
    ringTimeoutMs: config.agentRingTimeoutMs,
    events,
    // The toll-fraud guard: Twilio's numbers are shared by every account, so each must call and
    // text from its own; a device dials only while its user's login lasts.
    dialGuard: new DialGuard({
      db,
      log: logger,
      ceiling: config.dialCeiling,
      requireOwnCallerNumber: config.telephony.provider === 'twilio',
      hasLiveLogin: async (userId) =>
        (await liveSessionTags(db, [userId], new Date(), config.sessionIdleMs)).size > 0,
    }),
    ...(overrides.heartbeatMs === undefined ? {} : { heartbeatMs: overrides.heartbeatMs }),
    // With Twilio the calls outlive this process and are shared by the instances: recovery and
    // shutdown leave to Twilio what it still carries (calls/recovery.ts).
    ...(twilioProvider ? { carrier: twilioCallCarrier(twilioProvider.client) } : {}),
    // Twilio's instances all run the flows: a call's tasks hold its lock across them.
    ...(callLocks ? { clusterLock: callLocks.run } : {}),
  });
  const networkTests = new NetworkTests({
    telephony,
    holdBack: (user) => flows.holdAgentBack(user),
    // Twilio has no echo number: the test call needs the embedded engine.
    echoNumber: engine ? SANDBOX_NUMBERS.echo : null,
    log: logger,
  });
  const sms = new SmsService(db, overrides.sms ?? twilioProvider?.sms ?? new SandboxSmsSender());
  const sessions = new SessionStore(db, config.sessionTtlMs, { idleMs: config.sessionIdleMs });
  const pusher = {
    ...config.pusher,
    secret: config.pusher.secret ?? loadOrCreateSecret(join(config.dataDir, 'pusher-secret')),
  };
  const bus = await openInstanceBus(config.databaseUrl, logger);
  // With Twilio: which instance holds whose console, merged over the instances in the database.
  const devicePresence = twilioProvider
    ? new DevicePresence({
        db,
        bus,
        reports: twilioProvider.telephony,
        log: logger,
        source: config.realtime.kind === 'embedded' ? 'instance' : 'pusher',
        // Without a database URL (PGlite) this process is the only instance.
        alone: config.databaseUrl === undefined,
      })
    : null;
  const sockets = new SocketAccess({
    db,
    bus,
    log: logger,
    signalling: engine,
    idleMs: config.sessionIdleMs,
  });
  // An admin's change (here or on another instance) drops what this instance remembers.
  const adminChanges = new AdminChanges({ bus, log: logger });
  forgetOnAdminChange(adminChanges, { settings: flows.settings });
  // The anonymous routes' and sockets' counts, shared by every instance on the database.
  const rateLimitHits = new RateLimitHits({
    db,
    onSweepError: (error) => logger.warn({ err: error }, 'deleting old rate-limit counts failed'),
  });
  // The providers' webhooks already handled, so a repeat changes nothing twice.
  const webhookReceipts = new WebhookReceipts({
    db,
    onSweepError: (error) => logger.warn({ err: error }, 'deleting old webhook receipts failed'),
  });
  // Followers relay to the leader under the shared TOKEN_SECRET: what they vouch for (the
  // browser's address, counted there already) is believed for this leadership's epoch only.
  const relayReception = new RelayReception(
    config.tokenSecret
      ? { secret: config.tokenSecret, epoch: () => overrides.mediaRole?.().epoch ?? null }
      : undefined,
  );
  const app = await buildApp(
    {
      db,
      sessions,
      sockets,
      adminChanges,
      numbers: twilioProvider?.inventory,
      dialCeiling: config.dialCeiling,
      tokens: twilioProvider?.tokens ?? accessTokens,
      loginThrottle: new LoginThrottle(db),
      flows,
      control: new CallControl(db, flows),
      pusher,
      realtimeTarget: config.realtime,
      sms,
      networkTests,
      recordings: twilioProvider?.recordings,
      // The engine writes recordings to their own folder; nothing elsewhere (the data folder's
      // secrets, TLS key and database files included) is ever sent.
      recordingsRoot: engine ? recordingsFolderOf(config.dataDir) : undefined,
      webhooks: twilioProvider?.webhooks({
        receipts: webhookReceipts,
        // A Twilio token dials only while the login it was issued to lasts (it names it).
        authorizeOutgoing: requireTokenLogin(authorizeOutgoing, async (userId, login) =>
          (await liveSessionTags(db, [userId], new Date(), config.sessionIdleMs)).has(login),
        ),
        inbound: async (params) => {
          // Only the account the operator assigned the number to receives its calls.
          const number = params.To ? await findAssignedCallerNumber(db, params.To) : null;
          if (!number || !params.From) {
            logger.warn(
              { to: params.To },
              'a call to a number that is no caller number of the account it is assigned to: rejected',
            );
            return false;
          }
          await flows.inbound(number.accountId, number, params.From);
          return true;
        },
      }),
      sso: config.sso ? new SingleSignOn({ db, provider: config.sso }) : null,
      // The demo's published password signs nobody in and is given to nobody in production.
      refuseDemoPassword: config.mode === 'production',
    },
    {
      logger,
      rateLimits: config.rateLimits,
      rateLimitHits,
      relayReception,
      trustProxy: config.trustProxy,
      webDistDir: config.webDistDir ?? join(serverRoot(), '..', 'web', 'dist'),
      https,
      voiceSdk: config.voiceSdk,
      ...(twilioProvider ? { edge: 'twilio' as const } : {}),
      security: {
        frameAncestors: config.frameAncestors,
        connectSources: connectSourcesOf({
          realtime: config.realtime,
          pusherCluster: config.pusher.cluster,
          twilio: twilioProvider !== null,
        }),
      },
      sandbox: config.mode === 'embedded' && engine ? engine : false,
      // Production faces the internet over HTTPS: Secure `__Host-` cookies and HSTS always.
      httpsOnly: config.mode === 'production',
      // The API's documentation: anyone may read it in embedded mode, signed-in users in production.
      apiDocs: config.mode === 'production' ? 'session' : 'public',
      ...(overrides.mediaRole ? { mediaRole: overrides.mediaRole } : {}),
    },
  );
  // The embedded Pusher-protocol endpoint (`/app/{key}`) and its HTTP events API.
  const realtime = await registerRealtime(app, {
    credentials: pusher,
    target: config.realtime,
    bus,
    log: logger,
    onSocketClosed: (socketId) => sockets.realtimeClosed(socketId),
    receipts: webhookReceipts,
    // Twilio does not tell who is registered: an agent whose console is open (on their presence
    // channel) is online.
    onPresence: twilioProvider
      ? (channel, userId, present) => {
          const id = Number(userId);
          if (Number.isSafeInteger(id) && channel === userChannelOf(id)) {
            devicePresence?.present(id, present);
          }
        }
      : undefined,
  });
  sockets.attachRealtime(realtime);
  const socketLimit = new SocketRateLimit({
    hits: rateLimitHits,
    limits: config.rateLimits,
    trustProxy: config.trustProxy,
    log: logger,
  });
  routeUpgrades(app.server, {
    // With Twilio the SDK signals to Twilio's edge: nothing answers here.
    signal: engine
      ? (request, socket, head) => engine.handleUpgrade(request, socket, head)
      : (_request, socket) => socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n'),
    realtime,
    ...upgradeGate(relayReception, socketLimit),
  });

  try {
    await engine?.start();
    // Before the flows route: who is online (users/device-presence.ts).
    await devicePresence?.start();
    // Before any device can register: close what a crash left open.
    await flows.start();
    // An account the operator's ceiling leaves nowhere to call: said at every start.
    for (const account of await flows.dialGuard.accountsCallingNowhere()) {
      logger.warn({ accountId: account.id }, callingNowhereWarning(account));
    }
    // Twilio: what a dead instance's callbacks moved but its flows never reacted to.
    twilioProvider?.telephony.startSweeping();
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    twilioProvider?.telephony.stopSweeping();
    stopMaintenance();
    sockets.stop();
    adminChanges.stop();
    networkTests.close();
    flows.stop();
    await devicePresence?.stop().catch(() => undefined);
    await engine?.close().catch(() => undefined);
    await realtime.close();
    await app.close().catch(() => undefined);
    await bus.close();
    await callLocks?.close();
    await database.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  // Status changes and the like go out to the consoles from now on.
  realtime.publish(events, { host: config.host, port, https: Boolean(https) });
  sockets.start();
  return {
    app,
    database,
    flows,
    telephony,
    engine,
    twilio: twilioProvider,
    networkTests,
    events,
    realtime,
    bus,
    url: baseUrlOf(config.host, port, Boolean(https)),
    async close() {
      twilioProvider?.telephony.stopSweeping();
      stopMaintenance();
      sockets.stop();
      adminChanges.stop();
      networkTests.close();
      // This instance's consoles are let go while the flows still report them offline.
      await devicePresence?.stop();
      await flows.shutdown();
      // What the stop changed (agents offline) goes out while the events API still listens.
      await realtime.drain();
      // Together: the HTTP server's close waits for every connection it accepted, the upgraded
      // signalling sockets too, and only the engine closes those. One after the other, a stop
      // hangs for as long as a softphone stays connected.
      await Promise.all([app.close(), engine?.close(), realtime.close()]);
      await flows.idle();
      // With Twilio the flows kept handling the callbacks in flight until the server closed.
      flows.stop();
      await bus.close();
      await callLocks?.close();
      await database.close();
    },
  };
}
