/**
 * An instance without the voice engine (a follower of the media lease, or `VOICE_MEDIA_URL`
 * set): it serves the console, sign-in,
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
import { buildApp, type MediaRoleReport } from '../app';
import { SocketRateLimit, clientAddressOf } from '../http/anonymous-rate-limit';
import { baseUrlOf, routeUpgrades } from '../http/instance-http';
import { RateLimitHits } from '../http/rate-limit-hits';
import { WebhookReceipts } from '../http/webhook-receipts';
import { connectSourcesOf } from '../http/security-headers';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { SessionStore } from '../auth/sessions';
import { SingleSignOn } from '../auth/single-sign-on';
import { lanAddresses, type Config } from '../config';
import { openDatabase, type Database, type Db } from '../db/database';
import { openInstanceBus } from '../events/open-instance-bus';
import type { InstanceBus } from '../events/instance-bus';
import { serverRoot } from '../lib/app-root';
import type { RealtimeService } from '../realtime/realtime-service';
import { registerRealtime } from '../realtime/realtime-routes';
import { SocketAccess } from '../auth/socket-access';
import { loadTlsCredentials } from '../tls/tls-credentials';
import { relayUpgrade } from './signal-relay';
import type { MediaTarget } from './media-target';
import { RelayReception, upgradeGate } from './relay-reception';
import { RelaySigner } from './relay-signature';

/** A running relaying instance. */
export interface RelayInstance {
  app: FastifyInstance;
  database: Database;
  realtime: RealtimeService;
  bus: InstanceBus;
  url: string;
  close(): Promise<void>;
}

/** A media target the relay closes when it closes. */
export interface ClosableMediaTarget extends MediaTarget {
  close(): void;
}

/** Options of {@link startRelay}. */
export interface RelayOptions {
  /**
   * The media instance, built on the relay's database and bus: the media lease's leader, or
   * `VOICE_MEDIA_URL` pinned (`cluster/start-instance.ts`).
   */
  target: (parts: { db: Db; bus: InstanceBus }) => Promise<ClosableMediaTarget>;
  /** What `/healthz` says of the lease. */
  mediaRole?: () => MediaRoleReport;
}

/** Starts an instance relaying to `options.target`; resolves once it listens. */
export async function startRelay(config: Config, options: RelayOptions): Promise<RelayInstance> {
  const { databaseUrl, tokenSecret } = config;
  const pusherSecret = config.pusher.secret;
  if (!databaseUrl || !tokenSecret || !pusherSecret) {
    throw new Error('startRelay needs DATABASE_URL, TOKEN_SECRET and PUSHER_SECRET.');
  }
  const logger = pino({ level: config.logLevel });
  const https = await loadTlsCredentials(config.tls, config.dataDir, lanAddresses());
  const database = await openDatabase({ url: databaseUrl });
  const { db } = database;
  const bus = await openInstanceBus(databaseUrl, logger);
  const target = await options.target({ db, bus });
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
      // Admin writes here are held to the same ceiling as on the media instance.
      dialCeiling: config.dialCeiling,
      sessions: new SessionStore(db, config.sessionTtlMs, { idleMs: config.sessionIdleMs }),
      tokens: new AccessTokens(tokenSecret, config.tokenTtlSeconds),
      loginThrottle: new LoginThrottle(db),
      pusher,
      realtimeTarget: config.realtime,
      sso: config.sso ? new SingleSignOn({ db, provider: config.sso }) : null,
      refuseDemoPassword: config.mode === 'production',
      relayTo: target,
    },
    {
      logger,
      rateLimits: config.rateLimits,
      rateLimitHits,
      relaySecret: tokenSecret,
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
      // The API's documentation: as on the media instance (anyone in embedded mode, signed-in
      // users in production).
      apiDocs: config.mode === 'production' ? 'session' : 'public',
      ...(options.mediaRole ? { mediaRole: options.mediaRole } : {}),
    },
  );
  const realtime = await registerRealtime(app, {
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
  const signer = new RelaySigner(tokenSecret);
  routeUpgrades(app.server, {
    signal: (request, socket, head) => {
      const base = target.current();
      // A failover under way: the softphone tries again after its back-off.
      if (base === null) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
        return;
      }
      // Counted here (admit) under the browser's address: the leader believes both.
      const claims = {
        client: clientAddressOf(request, config.trustProxy),
        counted: true,
        epoch: target.epoch?.() ?? null,
      };
      relayUpgrade(base, request, socket, head, { signer, claims }, () => target.unreachable(base));
    },
    realtime,
    // No instance relays to a follower: every relay header is refused here.
    ...upgradeGate(new RelayReception(), socketLimit),
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    target.close();
    sockets.stop();
    await realtime.close();
    await app.close().catch(() => undefined);
    await bus.close();
    await database.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  logger.info(
    config.mediaUrl
      ? `relaying signalling and calls to the media instance at ${config.mediaUrl}`
      : `following the media lease: relaying signalling and calls to its leader (now ${target.current() ?? 'none'})`,
  );
  sockets.start();
  return {
    app,
    database,
    realtime,
    bus,
    url: baseUrlOf(config.host, port, Boolean(https)),
    async close() {
      target.close();
      sockets.stop();
      await Promise.all([app.close(), realtime.close()]);
      await bus.close();
      await database.close();
    },
  };
}
