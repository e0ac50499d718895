/**
 * An instance without the voice engine (`VOICE_MEDIA_URL` set): it serves the console, sign-in,
 * the user, the history and the realtime endpoint from the shared database, and relays the
 * softphone's signalling and the call routes to the media instance, which runs the calls
 * (`docs/deployment.md`, several instances). It keeps nothing of its own: stop or lose it and
 * its browsers reconnect through another instance.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { AdminChanges } from '../admin/admin-changes';
import { buildApp } from '../app';
import { SocketRateLimit } from '../http/anonymous-rate-limit';
import { baseUrlOf, routeUpgrades } from '../http/instance-http';
import { RateLimitHits } from '../http/rate-limit-hits';
import { WebhookReceipts } from '../http/webhook-receipts';
import { connectSourcesOf } from '../http/security-headers';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { SessionStore } from '../auth/sessions';
import { SingleSignOn } from '../auth/single-sign-on';
import { lanAddresses, type Config } from '../config';
import { openDatabase, type Database } from '../db/database';
import { openInstanceBus } from '../events/open-instance-bus';
import type { InstanceBus } from '../events/instance-bus';
import { serverRoot } from '../lib/app-root';
import { RealtimeService } from '../realtime/realtime-service';
import { SocketAccess } from '../auth/socket-access';
import { loadTlsCredentials } from '../tls/tls-credentials';
import { relayUpgrade } from './signal-relay';

/** A running relaying instance. */
export interface RelayInstance {
  app: FastifyInstance;
  database: Database;
  realtime: RealtimeService;
  bus: InstanceBus;
  url: string;
  close(): Promise<void>;
}

/** Starts an instance relaying to `config.mediaUrl`; resolves once it listens. */
export async function startRelay(config: Config): Promise<RelayInstance> {
  const mediaUrl = config.mediaUrl;
  const { databaseUrl, tokenSecret } = config;
  const pusherSecret = config.pusher.secret;
  if (!mediaUrl || !databaseUrl || !tokenSecret || !pusherSecret) {
    throw new Error(
      'startRelay needs VOICE_MEDIA_URL, DATABASE_URL, TOKEN_SECRET and PUSHER_SECRET.',
    );
  }
  const logger = pino({ level: config.logLevel });
  const https = await loadTlsCredentials(config.tls, config.dataDir, lanAddresses());
  const database = await openDatabase({ url: databaseUrl });
  const { db } = database;
  const bus = await openInstanceBus(databaseUrl, logger);
  const pusher = { ...config.pusher, secret: pusherSecret };
  // No softphone sockets here (they are relayed to the media instance, which withdraws them).
  const sockets = new SocketAccess({ db, bus, log: logger, idleMs: config.sessionIdleMs });
  // The anonymous routes' and sockets' counts, shared with the other instances.
  const rateLimitHits = new RateLimitHits({
    db,
    onSweepError: (error) => logger.warn({ err: error }, 'deleting old rate-limit counts failed'),
  });
  const app = await buildApp(
    {
      db,
      sockets,
      // Admin writes here reach the media instance's caches over the bus.
      adminChanges: new AdminChanges({ bus, log: logger }),
      sessions: new SessionStore(db, config.sessionTtlMs, { idleMs: config.sessionIdleMs }),
      tokens: new AccessTokens(tokenSecret, config.tokenTtlSeconds),
      loginThrottle: new LoginThrottle(db),
      pusher,
      realtimeTarget: config.realtime,
      sso: config.sso ? new SingleSignOn({ db, provider: config.sso }) : null,
      relayTo: mediaUrl,
    },
    {
      logger,
      rateLimits: config.rateLimits,
      rateLimitHits,
      trustProxy: config.trustProxy,
      webDistDir: config.webDistDir ?? join(serverRoot(), '..', 'web', 'dist'),
      https,
      voiceSdk: config.voiceSdk,
      security: {
        frameAncestors: config.frameAncestors,
        connectSources: connectSourcesOf({
          realtime: config.realtime,
          pusherCluster: config.pusher.cluster,
          twilio: false,
        }),
      },
      sandbox: config.mode === 'embedded' ? 'relayed' : false,
      // Production faces the internet over HTTPS: Secure `__Host-` cookies and HSTS always.
      httpsOnly: config.mode === 'production',
    },
  );
  const realtime = await RealtimeService.register(app, {
    credentials: pusher,
    target: config.realtime,
    bus,
    log: logger,
    onSocketClosed: (socketId) => sockets.realtimeClosed(socketId),
    receipts: new WebhookReceipts({
      db,
      onSweepError: (error) => logger.warn({ err: error }, 'deleting old webhook receipts failed'),
    }),
  });
  sockets.attachRealtime(realtime);
  const socketLimit = new SocketRateLimit({
    hits: rateLimitHits,
    limits: config.rateLimits,
    trustProxy: config.trustProxy,
    log: logger,
  });
  routeUpgrades(app.server, {
    signal: (request, socket, head) => relayUpgrade(mediaUrl, request, socket, head),
    realtime,
    admit: (request) => socketLimit.admit(request),
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    sockets.stop();
    await realtime.close();
    await app.close().catch(() => undefined);
    await bus.close();
    await database.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  logger.info(`relaying signalling and calls to the media instance at ${mediaUrl}`);
  sockets.start();
  return {
    app,
    database,
    realtime,
    bus,
    url: baseUrlOf(config.host, port, Boolean(https)),
    async close() {
      sockets.stop();
      await Promise.all([app.close(), realtime.close()]);
      await bus.close();
      await database.close();
    },
  };
}
