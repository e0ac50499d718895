/**
 * The media lease (issue 38, design item 3): on PostgreSQL, the embedded voice engine runs on
 * the one instance that holds `pg_try_advisory_lock(MEDIA_LEASE_KEY)` on a connection of its
 * own (a `pg.Client`, not the pool). PostgreSQL releases a session's advisory locks when the
 * session ends, so a leader that dies (SIGKILL, out of memory) loses the lease as soon as its
 * connection drops: at once when the kernel closes its socket, within the keepalive below when
 * its machine or network goes.
 *
 * Once its media runs, the holder writes the `media_leader` row (id 1, {@link MediaLease.announce}):
 * its instance id, the URL the other instances reach it on, an epoch one above the last (the
 * fencing token), and stamps a heartbeat every {@link LEASE_HEARTBEAT_MS}. The others try again
 * every {@link LEASE_RETRY_MS} and read the row to know whom to relay to.
 *
 * ```
 *   idle ──start──▶ following ──acquired──▶ leading ──lost──▶ lost
 *     │                 │                       │
 *     └──acquired───────┼───────────────────────┘
 *                       └──────close──▶ closed ◀──close── (any but lost)
 * ```
 *
 * A leader that loses its connection, or finds the row taken by a newer epoch, is `lost`: it
 * must stop running calls at once (`main.ts` exits; the process manager starts it again and it
 * comes back as a follower).
 */
import pg from 'pg';

/** The advisory lock's key: one per database, the media lease. */
export const MEDIA_LEASE_KEY = 3_800_038;
/** How often a follower tries to take the lease (ms). */
export const LEASE_RETRY_MS = 1_000;
/** How often the leader stamps `media_leader.heartbeat_at` (ms). */
export const LEASE_HEARTBEAT_MS = 2_000;
/** A statement on the lease's connection that takes longer than this fails (ms). */
export const LEASE_QUERY_TIMEOUT_MS = 5_000;
/**
 * PostgreSQL's keepalive on the lease's session (s): a leader whose machine vanished without
 * closing its socket is noticed after idle + interval × count = 5 + 2 × 3 = 11 s, and its lock
 * goes with its session.
 */
const SERVER_KEEPALIVE = { idleS: 5, intervalS: 2, count: 3 };

/** Where a lease stands. */
export type LeaseState = 'idle' | 'following' | 'leading' | 'lost' | 'closed';
/** What moves a lease. */
export type LeaseEvent = 'start' | 'acquired' | 'lost' | 'close';

/** The legal transitions: `state → event → next`. */
export const LEASE_TRANSITIONS: Readonly<
  Record<LeaseState, Partial<Record<LeaseEvent, LeaseState>>>
> = {
  idle: { start: 'following', acquired: 'leading', close: 'closed' },
  following: { acquired: 'leading', close: 'closed' },
  leading: { lost: 'lost', close: 'closed' },
  lost: { close: 'lost' },
  closed: { close: 'closed' },
};

/** Thrown for a transition the table does not have. */
export class LeaseTransitionError extends Error {
  override name = 'LeaseTransitionError';
}

/** The `media_leader` row: who runs the media now. */
export interface MediaLeader {
  instanceId: string;
  /** Its base URL, where the other instances relay to. */
  url: string;
  /** One more at each new leader: the fencing token. */
  epoch: number;
  heartbeatAt: Date;
}

/** Timers, injected (tests move them by hand). */
export interface LeaseTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The connection the lease holds: what of `pg.Client` it uses. */
export interface LeaseConnection {
  query<R extends Record<string, unknown>>(
    text: string,
    params?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<void>;
}

/** Options of {@link MediaLease}. */
export interface MediaLeaseOptions {
  /** Opens the lease's own connection (default: a `pg.Client` on `databaseUrl`). */
  connect: () => Promise<LeaseConnection>;
  /** This process's id among the instances. */
  instanceId: string;
  timers?: LeaseTimers;
  retryMs?: number;
  heartbeatMs?: number;
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  /** This instance took the lock after following (not at `start`, which says so itself). */
  onLeading?: () => void;
  /** This instance, leading, lost the lease (its connection, or a newer epoch took the row). */
  onLost?: (error: Error) => void;
}

/** The system's timers. */
const systemTimers: LeaseTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Opens a dedicated `pg.Client` for the lease on `databaseUrl`. */
export function pgLeaseConnection(databaseUrl: string): () => Promise<LeaseConnection> {
  return async () => {
    const client = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      keepAliveInitialDelayMillis: SERVER_KEEPALIVE.idleS * 1000,
      query_timeout: LEASE_QUERY_TIMEOUT_MS,
      application_name: 'leadline-media-lease',
    });
    await client.connect();
    // The server's side of the keepalive: a vanished leader's session (and lock) ends in
    // seconds rather than the system's default two hours. Settable by any user.
    await client
      .query(
        `set tcp_keepalives_idle = ${SERVER_KEEPALIVE.idleS}; set tcp_keepalives_interval = ${SERVER_KEEPALIVE.intervalS}; set tcp_keepalives_count = ${SERVER_KEEPALIVE.count}`,
      )
      .catch(() => undefined);
    return client;
  };
}

/** Reads the `media_leader` row (null before any instance led). */
export async function readMediaLeader(
  query: LeaseConnection['query'],
): Promise<MediaLeader | null> {
  const { rows } = await query<{
    instance_id: string;
    url: string;
    epoch: number;
    heartbeat_at: Date;
  }>('select instance_id, url, epoch, heartbeat_at from media_leader where id = 1');
  const row = rows[0];
  return row
    ? {
        instanceId: row.instance_id,
        url: row.url,
        epoch: row.epoch,
        heartbeatAt: new Date(row.heartbeat_at),
      }
    : null;
}

/** One instance's hold on (or wait for) the media lease. */
export class MediaLease {
  readonly #options: MediaLeaseOptions;
  readonly #timers: LeaseTimers;
  #state: LeaseState = 'idle';
  #connection: LeaseConnection | null = null;
  #timer: unknown;
  #epoch: number | null = null;
  /** Bumped at each connection, so a late 'end' of an old one is ignored. */
  #attempt = 0;
  #busy: Promise<void> = Promise.resolve();

  constructor(options: MediaLeaseOptions) {
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Where the lease stands. */
  get state(): LeaseState {
    return this.#state;
  }

  /** The epoch this instance leads with; null unless leading and announced. */
  get epoch(): number | null {
    return this.#state === 'leading' ? this.#epoch : null;
  }

  /**
   * Tries once; resolves `leading` (the lock is held: start the media, then
   * {@link announce}) or `following` (tries again every `retryMs`; `onLeading` when it takes
   * the lock). A failing first connection rejects: the database cannot be reached.
   */
  async start(): Promise<'leading' | 'following'> {
    await this.#connect();
    if (await this.#tryAcquire()) return 'leading';
    this.#move('start');
    this.#schedule(this.#options.retryMs ?? LEASE_RETRY_MS, () => this.#retry());
    return 'following';
  }

  /**
   * The holder's media runs at `url`: writes the `media_leader` row (epoch one above the last)
   * and stamps its heartbeat from now on. Resolves with the epoch.
   */
  async announce(url: string): Promise<number> {
    const connection = this.#connection;
    if (this.#state !== 'leading' || !connection) {
      throw new LeaseTransitionError(`A lease ${this.#state} cannot announce a leader.`);
    }
    const written = await connection.query<{ epoch: number }>(
      `insert into media_leader (id, instance_id, url, epoch, heartbeat_at, elected_at)
       values (1, $1, $2, 1, now(), now())
       on conflict (id) do update set instance_id = excluded.instance_id, url = excluded.url,
         epoch = media_leader.epoch + 1, heartbeat_at = now(), elected_at = now()
       returning epoch`,
      [this.#options.instanceId, url],
    );
    this.#epoch = written.rows[0]!.epoch;
    this.#options.log.info({ epoch: this.#epoch, url }, 'this instance leads the media');
    this.#schedule(this.#options.heartbeatMs ?? LEASE_HEARTBEAT_MS, () => this.#heartbeat());
    return this.#epoch;
  }

  /** The row as it is now (on the lease's connection). */
  async leader(): Promise<MediaLeader | null> {
    const connection = this.#connection;
    if (!connection) return null;
    return readMediaLeader((text, params) => connection.query(text, params));
  }

  /**
   * Stops: a leader releases the lock (its session ends), so a follower takes over at its next
   * try. Call it after the media is closed.
   */
  async close(): Promise<void> {
    if (this.#state !== 'lost') this.#move('close');
    this.#timers.clearTimeout(this.#timer);
    await this.#busy;
    const connection = this.#connection;
    this.#connection = null;
    this.#attempt += 1;
    await connection?.end().catch(() => undefined);
  }

  #move(event: LeaseEvent): void {
    const next = LEASE_TRANSITIONS[this.#state][event];
    if (!next) throw new LeaseTransitionError(`A lease ${this.#state} cannot take '${event}'.`);
    this.#state = next;
  }

  async #connect(): Promise<void> {
    const connection = await this.#options.connect();
    const attempt = ++this.#attempt;
    const dropped = (error?: Error) => {
      if (attempt !== this.#attempt) return;
      this.#connection = null;
      this.#attempt += 1;
      void connection.end().catch(() => undefined);
      if (this.#state === 'leading') {
        this.#lose(error ?? new Error('the media lease’s database connection ended'));
      }
    };
    connection.on('error', (error) => dropped(error));
    connection.on('end', () => dropped());
    this.#connection = connection;
  }

  async #tryAcquire(): Promise<boolean> {
    const connection = this.#connection;
    if (!connection) return false;
    const { rows } = await connection.query<{ ok: boolean }>(
      'select pg_try_advisory_lock($1) as ok',
      [MEDIA_LEASE_KEY],
    );
    if (!rows[0]?.ok) return false;
    const following = this.#state === 'following';
    this.#move('acquired');
    if (following) this.#options.onLeading?.();
    return true;
  }

  #retry(): void {
    if (this.#state !== 'following') return;
    this.#run(async () => {
      try {
        if (!this.#connection) await this.#connect();
        if (await this.#tryAcquire()) return;
      } catch (error) {
        this.#options.log.warn({ err: error }, 'trying the media lease failed');
      }
      if (this.#state === 'following') {
        this.#schedule(this.#options.retryMs ?? LEASE_RETRY_MS, () => this.#retry());
      }
    });
  }

  #heartbeat(): void {
    if (this.#state !== 'leading') return;
    this.#run(async () => {
      const connection = this.#connection;
      if (!connection) return;
      try {
        const { rowCount } = await connection.query(
          'update media_leader set heartbeat_at = now() where id = 1 and instance_id = $1 and epoch = $2',
          [this.#options.instanceId, this.#epoch],
        );
        if (rowCount === 0) throw new Error('another instance took the media_leader row');
      } catch (error) {
        if (this.#state === 'leading') this.#lose(error as Error);
        return;
      }
      if (this.#state === 'leading') {
        this.#schedule(this.#options.heartbeatMs ?? LEASE_HEARTBEAT_MS, () => this.#heartbeat());
      }
    });
  }

  #lose(error: Error): void {
    this.#move('lost');
    this.#timers.clearTimeout(this.#timer);
    this.#options.log.warn({ err: error }, 'this instance lost the media lease');
    this.#options.onLost?.(error);
  }

  #schedule(ms: number, fn: () => void): void {
    this.#timers.clearTimeout(this.#timer);
    this.#timer = this.#timers.setTimeout(fn, ms);
  }

  /** One lease statement at a time; `close` waits for the one under way. */
  #run(work: () => Promise<void>): void {
    this.#busy = this.#busy.then(work).catch(() => undefined);
  }
}
