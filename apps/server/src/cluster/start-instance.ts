/**
 * Starts one instance the way every instance starts (issue 38, item 3; `docs/deployment.md`,
 * several instances):
 *
 * - **PGlite** (no `DATABASE_URL`): one process, it runs everything (`startLeadline`).
 * - **PostgreSQL, embedded engine**: it tries the media lease (`media-lease.ts`). The holder
 *   runs everything (the engine, the flows, start-up recovery) and writes `media_leader`; the
 *   others follow: a relay (`relay/start-relay.ts`) that serves the console, sign-in, history
 *   and realtime and forwards the calls to whoever `media_leader` names. A follower that takes
 *   the lease (the leader died or stopped) closes its relay and starts the product on the same
 *   port: its browsers' sockets drop and reconnect through it, and recovery runs as after a
 *   crash. A leader that loses the lease exits at once (status 1): its process manager starts it
 *   again and it comes back as a follower.
 * - **PostgreSQL, Twilio**: N equal instances, no lease: Twilio carries the media and any
 *   instance handles any webhook, so each one runs the product (`startLeadline`); start-up
 *   recovery and a stop leave alone what Twilio still carries (`calls/recovery.ts`). The schema
 *   is migrated by one instance at a time (an advisory lock), so instances may start together.
 * - **`VOICE_MEDIA_URL`** (the earlier static set-up): a relay to that URL, no lease.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import type { MediaRoleReport } from '../app';
import { ConfigError, lanAddresses, type Config } from '../config';
import { openDatabase } from '../db/database';
import { baseUrlOf } from '../http/instance-http';
import { startLeadline, type Leadline } from '../leadline';
import { startRelay, type RelayInstance } from '../relay/start-relay';
import { allowsInstanceUrl } from './instance-urls';
import {
  LeaderDirectory,
  MEDIA_LEADER_TOPIC,
  pinnedTarget,
  readLiveLeader,
} from './leader-directory';
import { MediaLease, pgLeaseConnection } from './media-lease';

/**
 * How long an instance that cannot follow (no shared secrets) waits for the lease before
 * refusing to start (ms).
 */
export const SOLE_LEASE_WAIT_MS = 5_000;

/** The advisory lock (`pg_advisory_lock`) under which a Twilio-mode instance migrates the schema. */
export const MIGRATION_LOCK_KEY = 0x4c4c4d47; // 'LLMG'

/** What a follower without the shared secrets says before it exits. */
export const FOLLOWER_NEEDS_SECRETS =
  'Another instance leads the media on this database: this one would relay to it, which needs the same TOKEN_SECRET and PUSHER_SECRET as every instance (docs/deployment.md).';

/** A running instance, whatever its part. */
export interface RunningInstance {
  /** The base URL it listens on. */
  readonly url: string;
  /** The log of its current part (leader or relay). */
  readonly log: FastifyBaseLogger;
  /** Leader (runs the media) or follower (relays to it); `twilio`: one of equal Twilio instances. */
  readonly role: () => 'leader' | 'follower' | 'twilio';
  /** A clean stop: the media closes first, then the lease goes (a follower takes over). */
  close(): Promise<void>;
}

/** What the instance may do to its process (tests replace it). */
export interface InstanceProcess {
  /** Ends the process at once (the lease was lost while leading). */
  exit(code: number): void;
}

/** Starts this instance's part; resolves once it listens. */
export async function startInstance(
  config: Config,
  process: InstanceProcess = globalThis.process,
): Promise<RunningInstance> {
  if (config.mediaUrl) {
    const mediaUrl = config.mediaUrl;
    const log = pino({ level: config.logLevel }).child({ part: 'media-url' });
    return ofRelay(
      await startRelay(config, {
        target: async ({ db, bus }) => {
          // The media instance is where the operator said; the row tells only its epoch.
          const directory = new LeaderDirectory({ read: () => readLiveLeader(db), bus, log });
          await directory.start();
          return pinnedTarget(mediaUrl, directory);
        },
      }),
    );
  }
  const { databaseUrl } = config;
  if (!databaseUrl) {
    const leadline = await startLeadline(config, {
      mediaRole: () => ({ role: 'leader', epoch: null }),
    });
    return ofLeadline(leadline, async () => undefined);
  }
  if (config.telephony.provider === 'twilio') {
    // Twilio carries the media: every instance runs everything, none leads.
    await migrateAlone(databaseUrl);
    const leadline = await startLeadline(config, {
      mediaRole: () => ({ role: 'twilio', epoch: null }),
    });
    return { ...ofLeadline(leadline, async () => undefined), role: () => 'twilio' };
  }
  const log = pino({ level: config.logLevel }).child({ part: 'media-lease' });
  // The lease writes media_leader: the schema must be there before the first instance leads.
  await (await openDatabase({ url: databaseUrl })).close();
  const instanceId = randomUUID();
  let lost: (error: Error) => void = () => undefined;
  let leading: () => void = () => undefined;
  const lease = new MediaLease({
    connect: pgLeaseConnection(databaseUrl),
    instanceId,
    log,
    onLeading: () => leading(),
    onLost: (error) => lost(error),
  });
  lost = (error) => {
    // The calls' media are here, but another instance may lead already: stop at once.
    log.fatal({ err: error }, 'lost the media lease while leading: exiting');
    process.exit(1);
  };
  const first = await lease.start();
  // An instance that can only lead (no shared secrets) waits a moment for the lock: its own
  // previous run, just killed, may still hold it until PostgreSQL sees the socket close.
  const canFollow = Boolean(config.tokenSecret && config.pusher.secret);
  const leads =
    first === 'leading' || (!canFollow && (await leadsWithin(lease, SOLE_LEASE_WAIT_MS)));
  if (leads) {
    return await lead(config, lease, log).catch(async (error: unknown) => {
      await lease.close();
      throw error;
    });
  }
  if (!canFollow) {
    await lease.close();
    throw new ConfigError(FOLLOWER_NEEDS_SECRETS);
  }
  return follow(config, lease, log, process, (promote) => (leading = promote));
}

/** Starts the product as the leader, announces it and returns it. */
async function lead(config: Config, lease: MediaLease, log: Logger): Promise<RunningInstance> {
  const mediaRole = (): MediaRoleReport => ({ role: 'leader', epoch: lease.epoch });
  const leadline = await startLeadline(config, { mediaRole });
  await announce(config, lease, leadline, log);
  return ofLeadline(leadline, () => lease.close());
}

/** Writes `media_leader` for `leadline` and tells the followers. */
async function announce(
  config: Config,
  lease: MediaLease,
  leadline: Leadline,
  log: Logger,
): Promise<void> {
  const url = reachableUrlOf(config, leadline.url);
  const epoch = await lease.announce(url);
  await leadline.bus
    .publish(MEDIA_LEADER_TOPIC, { epoch, url })
    .catch((error: unknown) => log.warn({ err: error }, 'telling the followers failed'));
  leadline.app.log.info(`this instance leads the media at ${url} (epoch ${epoch})`);
}

/** Starts a follower; `onLeading` is given the promotion to run when the lease comes. */
async function follow(
  config: Config,
  lease: MediaLease,
  log: Logger,
  process: InstanceProcess,
  onLeading: (promote: () => void) => void,
): Promise<RunningInstance> {
  let directory: LeaderDirectory | undefined;
  let part: { kind: 'relay'; relay: RelayInstance } | { kind: 'leader'; leadline: Leadline };
  let promotion: Promise<void> = Promise.resolve();
  let closing = false;
  const relay = await startRelay(config, {
    target: async ({ db, bus }) => {
      directory = new LeaderDirectory({
        read: () => readLiveLeader(db),
        bus,
        log,
        allows: (url) => allowsInstanceUrl(config.allowedInstances, url),
      });
      await directory.start();
      return directory;
    },
    mediaRole: () => ({ role: 'follower', epoch: directory?.epoch() ?? null }),
  });
  part = { kind: 'relay', relay };
  const url = relay.url;
  onLeading(() => {
    if (closing || part.kind !== 'relay') return;
    const from = part.relay;
    promotion = (async () => {
      from.app.log.info('took the media lease: starting the media on this instance');
      // The same port: the load balancer and the browsers keep their address for it.
      const { port } = from.app.server.address() as AddressInfo;
      await from.close();
      const leadline = await startLeadline(
        { ...config, port },
        { mediaRole: () => ({ role: 'leader', epoch: lease.epoch }) },
      );
      part = { kind: 'leader', leadline };
      await announce(config, lease, leadline, log);
    })().catch((error: unknown) => {
      log.fatal({ err: error }, 'could not start the media after taking the lease: exiting');
      process.exit(1);
    });
  });
  return {
    url,
    get log() {
      return part.kind === 'relay' ? part.relay.app.log : part.leadline.app.log;
    },
    role: () => (part.kind === 'relay' ? 'follower' : 'leader'),
    async close() {
      closing = true;
      await promotion;
      if (part.kind === 'relay') await part.relay.close();
      else await part.leadline.close();
      await lease.close();
    },
  };
}

/**
 * Opens the database once to migrate its schema, holding an advisory lock on a connection of its
 * own meanwhile: instances that start together migrate one after another (the later ones find
 * nothing to do) instead of creating the same tables at once.
 */
async function migrateAlone(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await (await openDatabase({ url: databaseUrl })).close();
  } finally {
    // Ending the session releases the lock too.
    await client.end().catch(() => undefined);
  }
}

/** Resolves whether `lease` leads within `ms` (it keeps trying meanwhile). */
function leadsWithin(lease: MediaLease, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const deadline = Date.now() + ms;
    const check = () => {
      if (lease.state === 'leading') return resolve(true);
      if (Date.now() >= deadline) return resolve(false);
      setTimeout(check, 100);
    };
    check();
  });
}

/**
 * The URL the other instances reach this one on: `INSTANCE_URL`, or the listening URL (a
 * wildcard host names no machine: the first LAN address instead).
 */
export function reachableUrlOf(config: Config, listeningUrl: string): string {
  if (config.instanceUrl) return config.instanceUrl;
  if (config.host !== '0.0.0.0' && config.host !== '::') return listeningUrl;
  const url = new URL(listeningUrl);
  return baseUrlOf(lanAddresses()[0]!, Number(url.port), url.protocol === 'https:');
}

function ofLeadline(leadline: Leadline, release: () => Promise<void>): RunningInstance {
  return {
    url: leadline.url,
    log: leadline.app.log,
    role: () => 'leader',
    async close() {
      await leadline.close();
      await release();
    },
  };
}

function ofRelay(relay: RelayInstance): RunningInstance {
  return { url: relay.url, log: relay.app.log, role: () => 'follower', close: () => relay.close() };
}
