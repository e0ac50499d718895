/**
 * Sockets follow their login: a softphone's signalling socket was let in with a token issued to
 * one login session (its `sid` claim), and a console's realtime socket was let into its channels
 * by `POST /api/v1/pusher/auth` under one login session. When that session ends (a logout, its
 * expiry, the user removed) the sockets it let in close within seconds:
 *
 * - at once on the instance the user logs out on, and on the others through the instance bus;
 * - on every instance, a sweep every {@link SOCKET_SWEEP_MS} closes the sockets whose session is
 *   no longer in the database or has ended: what no logout announced (an expired session, one
 *   idle past its timeout, a deleted user, a bus message lost while an instance reconnected).
 *
 * A socket still connected is the console open: the same sweep writes that its session is in use
 * (at most once a minute, `sessions.ts`), so a session's idle timeout counts from when its last
 * console closed or it last made a request, and a token cannot open a socket for a session that
 * has idled out.
 *
 * A signalling socket withdrawn is told 31204 and its calls end at once; a realtime socket is
 * closed with 4009 (pusher-js does not reconnect). The sockets of the user's other logins stay.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SignallingClient } from '@leadline/voice';
import type { Db } from '../db/database';
import type { InstanceBus } from '../events/instance-bus';
import { liveSessions, SESSION_TOUCH_EVERY_MS, touchSessions } from './sessions';

/** How often each instance checks that its sockets' sessions still exist. */
export const SOCKET_SWEEP_MS = 5_000;

/**
 * Realtime sockets one login keeps let in (`POST /api/v1/pusher/auth`): a console has one per
 * tab. Authorising one more withdraws the login's oldest (closed 4009 where it is connected), so
 * what this instance remembers per login stays bounded, and so do the sockets a login holds open.
 */
export const MAX_REALTIME_SOCKETS_PER_LOGIN = 8;

/** The bus topic of withdrawn access. */
const WITHDRAWN_TOPIC = 'sockets.withdrawn';

/** What an instance tells the others: the sessions that ended, the realtime sockets they let in. */
const Withdrawn = z.object({
  sessions: z.array(z.string().max(64)).max(500),
  realtimeSockets: z.array(z.string().max(64)).max(500),
  /** Realtime sockets of a login that let in more than `MAX_REALTIME_SOCKETS_PER_LOGIN`. */
  supersededSockets: z.array(z.string().max(64)).max(500).optional(),
});
type Withdrawn = z.infer<typeof Withdrawn>;

/**
 * The name a token carries for its login session: derived from the session's id (itself the
 * hash of the cookie), so neither the cookie nor the table's key leaves the server.
 */
export const sessionTagOf = (sessionId: string): string =>
  createHash('sha256').update(`socket-access:${sessionId}`).digest('hex').slice(0, 32);

/**
 * The tags (`sessionTagOf`) of the users' logins that have not ended: neither expired nor idle
 * past their account's timeout (`defaultIdleMs` where the account sets none).
 */
export async function liveSessionTags(
  db: Db,
  userIds: number[],
  now: Date,
  defaultIdleMs?: number,
): Promise<Set<string>> {
  const live = await liveSessions(db, userIds, now, defaultIdleMs);
  return new Set(live.map((session) => sessionTagOf(session.id)));
}

/** The signalling side: the voice engine's sockets. */
export interface SignallingSockets {
  signallingClients(): SignallingClient[];
  revokeSignalling(withdrawn: (client: SignallingClient) => boolean): number;
}

/** The realtime side: the embedded endpoint's sockets on this instance. */
export interface RealtimeSockets {
  /** Closes the socket (4009) when it is connected here; whether it was. */
  withdraw(socketId: string, why?: 'accessWithdrawn' | 'superseded'): boolean;
  /** Whether the socket is connected here (absent: none is, as with hosted Pusher). */
  isConnected?(socketId: string): boolean;
}

/** Logs what goes wrong and what was withdrawn. */
interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Options of {@link SocketAccess}. */
export interface SocketAccessOptions {
  db: Db;
  bus: InstanceBus;
  log: Log;
  /** The voice engine, on the instance that has it. */
  signalling?: SignallingSockets | null;
  /** Default {@link SOCKET_SWEEP_MS}. */
  sweepMs?: number;
  /** The idle timeout of accounts whose policy sets none (`SESSION_IDLE_MINUTES`). */
  idleMs?: number;
  now?: () => Date;
}

/** A realtime socket let in under a login session. */
interface RealtimeGrant {
  userId: number;
  session: string;
}

/** The instance's sockets, by the login that let them in. */
export class SocketAccess {
  readonly #options: SocketAccessOptions;
  readonly #now: () => Date;
  /**
   * Realtime sockets authorised on this instance: connected here (forgotten when they close), or
   * on another instance (forgotten when their session ends).
   */
  readonly #realtimeGrants = new Map<string, RealtimeGrant>();
  #realtime: RealtimeSockets | null = null;
  #timer: NodeJS.Timeout | null = null;
  #sweeping: Promise<number> | null = null;
  readonly #unsubscribe: () => void;

  constructor(options: SocketAccessOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#unsubscribe = options.bus.subscribe(WITHDRAWN_TOPIC, (payload) => {
      const parsed = Withdrawn.safeParse(payload);
      if (parsed.success) this.#withdrawHere(parsed.data);
      else options.log.warn({ payload }, 'an instance sent withdrawn access this one cannot read');
    });
  }

  /** The embedded realtime endpoint of this instance, once it exists. */
  attachRealtime(realtime: RealtimeSockets | null): void {
    this.#realtime = realtime;
  }

  /**
   * `POST /api/v1/pusher/auth` let `socketId` into a channel under the login `sessionId`. Past
   * {@link MAX_REALTIME_SOCKETS_PER_LOGIN} sockets of that login, its oldest are withdrawn, here
   * and on the other instances.
   */
  realtimeAuthorised(socketId: string, userId: number, sessionId: string): void {
    const session = sessionTagOf(sessionId);
    // Newest last: a socket authorised again moves to the end.
    this.#realtimeGrants.delete(socketId);
    this.#realtimeGrants.set(socketId, { userId, session });
    const mine = [...this.#realtimeGrants]
      .filter(([, grant]) => grant.session === session)
      .map(([id]) => id);
    const superseded = mine.slice(0, Math.max(0, mine.length - MAX_REALTIME_SOCKETS_PER_LOGIN));
    if (superseded.length === 0) return;
    this.#withdrawHere({ sessions: [], realtimeSockets: [], supersededSockets: superseded });
    this.#options.bus
      .publish(WITHDRAWN_TOPIC, {
        sessions: [],
        realtimeSockets: [],
        supersededSockets: superseded,
      })
      .catch((error: unknown) =>
        this.#options.log.warn({ err: error }, 'telling the other instances failed'),
      );
  }

  /** How many realtime sockets this instance remembers as let in (tests: it stays bounded). */
  get realtimeGrantCount(): number {
    return this.#realtimeGrants.size;
  }

  /** A realtime socket of this instance closed: nothing to withdraw from it any more. */
  realtimeClosed(socketId: string): void {
    this.#realtimeGrants.delete(socketId);
  }

  /** The login `sessionId` ended (a logout): its sockets close here and on the other instances. */
  async sessionEnded(sessionId: string): Promise<void> {
    await this.sessionsEnded([sessionId]);
  }

  /** The logins `sessionIds` ended (Log out everywhere): their sockets close, on every instance. */
  async sessionsEnded(sessionIds: string[]): Promise<void> {
    if (sessionIds.length > 0) await this.#withdraw(sessionIds.map(sessionTagOf));
  }

  /** Sweeps every {@link SOCKET_SWEEP_MS} until `stop`. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) =>
        this.#options.log.warn({ err: error }, 'checking the sockets’ sessions failed'),
      );
    }, this.#options.sweepMs ?? SOCKET_SWEEP_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unsubscribe();
  }

  /**
   * Closes the sockets whose login session no longer exists (or has expired, or idled out), and
   * writes that the sessions of the sockets connected here are in use; resolves with how many
   * sessions were withdrawn. One sweep at a time.
   */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepOnce().finally(() => (this.#sweeping = null));
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<number> {
    const held = new Map<string, number>();
    /** The sessions of the sockets connected to this instance. */
    const connected = new Set<string>();
    for (const client of this.#options.signalling?.signallingClients() ?? []) {
      const userId = Number(client.identity);
      if (client.session !== undefined && Number.isSafeInteger(userId)) {
        held.set(client.session, userId);
        connected.add(client.session);
      }
    }
    for (const [socketId, grant] of this.#realtimeGrants) {
      held.set(grant.session, grant.userId);
      if (this.#realtime?.isConnected?.(socketId)) connected.add(grant.session);
    }
    if (held.size === 0) return 0;
    const now = this.#now();
    const live = await liveSessions(
      this.#options.db,
      [...new Set(held.values())],
      now,
      this.#options.idleMs,
    );
    const liveTags = new Set(live.map((session) => sessionTagOf(session.id)));
    const ended = [...held.keys()].filter((session) => !liveTags.has(session));
    if (ended.length > 0) await this.#withdraw(ended);
    const inUse = live.filter(
      (session) =>
        connected.has(sessionTagOf(session.id)) &&
        now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_EVERY_MS,
    );
    await touchSessions(
      this.#options.db,
      inUse.map((session) => session.id),
      now,
    );
    return ended.length;
  }

  async #withdraw(endedSessions: string[]): Promise<void> {
    const ended = new Set(endedSessions);
    const realtimeSockets = [...this.#realtimeGrants]
      .filter(([, grant]) => ended.has(grant.session))
      .map(([socketId]) => socketId);
    this.#withdrawHere({ sessions: endedSessions, realtimeSockets });
    // The other instances close what they hold; chunks keep each message small.
    for (let i = 0; i < Math.max(endedSessions.length, realtimeSockets.length); i += 100) {
      await this.#options.bus
        .publish(WITHDRAWN_TOPIC, {
          sessions: endedSessions.slice(i, i + 100),
          realtimeSockets: realtimeSockets.slice(i, i + 100),
        })
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error }, 'telling the other instances failed'),
        );
    }
  }

  /**
   * Closes what this instance holds of `withdrawn`: the sockets it names, and the sockets the
   * ended sessions let in here (another instance's realtime grants are not known here).
   */
  #withdrawHere(withdrawn: Withdrawn): void {
    const ended = new Set(withdrawn.sessions);
    const signalling =
      this.#options.signalling?.revokeSignalling(
        (client) => client.session !== undefined && ended.has(client.session),
      ) ?? 0;
    const realtimeSockets = new Set(withdrawn.realtimeSockets);
    for (const [socketId, grant] of this.#realtimeGrants) {
      if (ended.has(grant.session)) realtimeSockets.add(socketId);
    }
    let realtime = 0;
    for (const socketId of realtimeSockets) {
      if (this.#realtime?.withdraw(socketId)) realtime += 1;
      this.#realtimeGrants.delete(socketId);
    }
    for (const socketId of withdrawn.supersededSockets ?? []) {
      if (this.#realtime?.withdraw(socketId, 'superseded')) realtime += 1;
      this.#realtimeGrants.delete(socketId);
    }
    if (signalling + realtime > 0) {
      this.#options.log.info({ signalling, realtime }, 'sockets of ended logins closed');
    }
  }
}
