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
  log: { warn(details: object, message: string): void };
}

/** The media target of a follower: the current leader. */
export class LeaderDirectory implements MediaTarget {
  readonly #options: LeaderDirectoryOptions;
  readonly #timers: LeaseTimers;
  #known: KnownLeader | null = null;
  #timer: unknown;
  #reading: Promise<void> | null = null;
  #closed = false;
  #unsubscribe: () => void = () => undefined;

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
    return this.#known?.url ?? null;
  }

  /** The leader's epoch as last read. */
  epoch(): number | null {
    return this.#known?.epoch ?? null;
  }

  unreachable(url: string): void {
    if (this.#known?.url === url) void this.refresh();
  }

  /** Reads the row now (one read at a time; callers during a read share it). */
  refresh(): Promise<void> {
    this.#reading ??= this.#options
      .read()
      .then(
        (leader) => {
          this.#known = leader;
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
  }
}
