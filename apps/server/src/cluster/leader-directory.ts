/**
 * A follower's view of who leads the media: the `media_leader` row, read again every
 * {@link LEADER_REFRESH_MS}, at once when a request to the leader fails, and when the new
 * leader says so on the instance bus ({@link MEDIA_LEADER_TOPIC}). A row whose heartbeat is
 * older than {@link LEADER_STALE_S} names a leader that stopped stamping it (gone): no leader.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';
import type { InstanceBus } from '../events/instance-bus';
import type { MediaTarget } from '../relay/media-target';
import type { LeaseTimers } from './media-lease';

/** The instance-bus topic a new leader announces itself on. */
export const MEDIA_LEADER_TOPIC = 'media.leader';
/** How often a follower reads the row again (ms). */
export const LEADER_REFRESH_MS = 2_000;
/** A heartbeat older than this (s, the database's clock) names no live leader. */
export const LEADER_STALE_S = 10;

/** The leader as a follower knows it. */
export interface KnownLeader {
  url: string;
  epoch: number;
}

/** Reads the live leader from `db` (null: none, or its heartbeat is stale). */
export async function readLiveLeader(db: Db): Promise<KnownLeader | null> {
  const rows = await queryRows<{ url: string; epoch: number }>(
    db,
    sql`select url, epoch from media_leader
        where id = 1 and heartbeat_at > now() - make_interval(secs => ${LEADER_STALE_S})`,
  );
  return rows[0] ?? null;
}

/** Options of {@link LeaderDirectory}. */
export interface LeaderDirectoryOptions {
  read: () => Promise<KnownLeader | null>;
  bus?: InstanceBus;
  timers?: LeaseTimers;
  refreshMs?: number;
  /** How long a leader that refused a connection counts as gone unless the row moves (ms). */
  downMs?: number;
  /**
   * Whether the row's URL may be relayed to (`INSTANCE_URLS`, `instance-urls.ts`); a leader at
   * any other URL counts as no leader. Default: any.
   */
  allows?: (url: string) => boolean;
  log: { warn(details: object, message: string): void };
}

/** How long a leader that refused a connection is passed over while the row still names it. */
export const LEADER_DOWN_MS = 5_000;

/**
 * The media target of a follower: the current leader. A leader that could not be reached is
 * passed over (`current()` is null, requests wait in `next`) until the row names another
 * leader or epoch, or {@link LEADER_DOWN_MS} passed.
 */
export class LeaderDirectory implements MediaTarget {
  readonly #options: LeaderDirectoryOptions;
  readonly #timers: LeaseTimers;
  #known: KnownLeader | null = null;
  #down: { leader: KnownLeader; timer: unknown } | null = null;
  #waiters = new Set<(url: string | null) => void>();
  #timer: unknown;
  #reading: Promise<void> | null = null;
  #closed = false;
  #unsubscribe: () => void = () => undefined;
  /** The last leader URL refused as not allowed (said once, not at every read). */
  #refusedUrl: string | null = null;

  constructor(options: LeaderDirectoryOptions) {
    this.#options = options;
    this.#timers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
  }

  /** Reads the row once and keeps reading it. */
  async start(): Promise<void> {
    this.#unsubscribe =
      this.#options.bus?.subscribe(MEDIA_LEADER_TOPIC, () => void this.refresh()) ??
      (() => undefined);
    await this.refresh();
  }

  current(): string | null {
    const known = this.#known;
    if (!known || this.#isDown(known)) return null;
    return known.url;
  }

  /** The leader's epoch as last read. */
  epoch(): number | null {
    return this.#known?.epoch ?? null;
  }

  unreachable(url: string): void {
    const known = this.#known;
    if (known?.url !== url) return;
    if (!this.#isDown(known)) {
      this.#timers.clearTimeout(this.#down?.timer);
      const timer = this.#timers.setTimeout(() => {
        this.#down = null;
        this.#settle();
      }, this.#options.downMs ?? LEADER_DOWN_MS);
      this.#down = { leader: known, timer };
    }
    void this.refresh();
  }

  next(timeoutMs: number): Promise<string | null> {
    const now = this.current();
    if (now !== null || this.#closed) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (url: string | null) => {
        this.#timers.clearTimeout(timer);
        this.#waiters.delete(done);
        resolve(url);
      };
      const timer = this.#timers.setTimeout(() => done(null), timeoutMs);
      this.#waiters.add(done);
    });
  }

  /** Reads the row now (one read at a time; callers during a read share it). */
  refresh(): Promise<void> {
    this.#reading ??= this.#options
      .read()
      .then(
        (read) => {
          const leader = read && this.#allowed(read) ? read : null;
          this.#known = leader;
          // The row moved on: the new leader is not the one that failed.
          if (this.#down && leader && !this.#isDown(leader)) {
            this.#timers.clearTimeout(this.#down.timer);
            this.#down = null;
          }
          this.#settle();
        },
        (error: unknown) => this.#options.log.warn({ err: error }, 'reading media_leader failed'),
      )
      .finally(() => {
        this.#reading = null;
        if (this.#closed) return;
        this.#timers.clearTimeout(this.#timer);
        this.#timer = this.#timers.setTimeout(
          () => void this.refresh(),
          this.#options.refreshMs ?? LEADER_REFRESH_MS,
        );
      });
    return this.#reading;
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    this.#timers.clearTimeout(this.#timer);
    this.#timers.clearTimeout(this.#down?.timer);
    for (const waiter of [...this.#waiters]) waiter(null);
  }

  #allowed(leader: KnownLeader): boolean {
    if (this.#options.allows?.(leader.url) ?? true) return true;
    if (this.#refusedUrl !== leader.url) {
      this.#refusedUrl = leader.url;
      this.#options.log.warn(
        { url: leader.url, epoch: leader.epoch },
        `media_leader names ${leader.url}, which INSTANCE_URLS does not allow: nothing is relayed to it. List every instance's INSTANCE_URL (or their network) in INSTANCE_URLS on every instance (docs/deployment.md).`,
      );
    }
    return false;
  }

  #isDown(leader: KnownLeader): boolean {
    const down = this.#down?.leader;
    return down !== undefined && down.url === leader.url && down.epoch === leader.epoch;
  }

  /** Hands the leader to the requests waiting for one. */
  #settle(): void {
    const url = this.current();
    if (url === null) return;
    for (const waiter of [...this.#waiters]) waiter(url);
  }
}

/**
 * A media instance at a URL the operator fixed (`VOICE_MEDIA_URL`): requests go there whatever
 * the row says; `directory` reads only its leader's epoch, which relayed requests are signed for.
 */
export function pinnedTarget(
  url: string,
  directory: LeaderDirectory,
): MediaTarget & { close(): void } {
  return {
    fixed: true,
    current: () => url,
    unreachable: () => undefined,
    next: async () => url,
    epoch: () => directory.epoch(),
    refresh: () => directory.refresh(),
    close: () => directory.close(),
  };
}
