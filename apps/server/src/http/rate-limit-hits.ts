/**
 * The rate limits' counts in the database (`rate_limit_hits`), so every instance on the database
 * counts the same hits and a restart forgets none: one row per key (a limit's name and what it
 * counts, e.g. `sign-in:203.0.113.7`), a fixed window that starts at the key's first hit and ends
 * at `reset_at`. A hit is one statement (an upsert that restarts an ended window), so instances
 * hitting the same key at once each get their own count.
 *
 * Rows of ended windows are deleted by {@link RateLimitHits.sweep}, which a hit starts at most
 * once per {@link RATE_LIMIT_SWEEP_MS} on each instance: the table holds the keys hit within
 * about one window, however many hits there were.
 *
 * {@link rateLimitStoreOf} gives `@fastify/rate-limit` this table as its store.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { lt } from 'drizzle-orm';
import { driverQuery, type Db } from '../db/database';
import { rateLimitHits } from '../db/schema';

/** At most this often each instance deletes the rows whose window has ended. */
export const RATE_LIMIT_SWEEP_MS = 60_000;

/** A key's count in its current window. */
export interface RateLimitCount {
  /** Hits in the window, this one included. */
  hits: number;
  /** How long until the window ends and the count starts again (ms, at least 0). */
  ttlMs: number;
}

/** Options of {@link RateLimitHits}. */
export interface RateLimitHitsOptions {
  db: Db;
  /** The clock (tests move it); default the system's. */
  now?: () => Date;
  /** Default {@link RATE_LIMIT_SWEEP_MS}. */
  sweepEveryMs?: number;
  /** Hears a sweep that failed (a hit that fails rejects instead). */
  onSweepError?: (error: unknown) => void;
}

/** The shared counts. */
/** One more hit of `$1` at `$2`; a window that ended starts again, to end at `$3`. */
const HIT_SQL = `insert into rate_limit_hits (key, hits, reset_at) values ($1, 1, $3::timestamptz)
  on conflict (key) do update set
    hits = case when rate_limit_hits.reset_at <= $2::timestamptz then 1
      else rate_limit_hits.hits + 1 end,
    reset_at = case when rate_limit_hits.reset_at <= $2::timestamptz then excluded.reset_at
      else rate_limit_hits.reset_at end
  returning hits, reset_at`;

export class RateLimitHits {
  readonly #db: Db;
  readonly #now: () => Date;
  readonly #sweepEveryMs: number;
  readonly #onSweepError: (error: unknown) => void;
  /** When this instance last started a sweep (ms since the epoch); none yet: -Infinity. */
  #lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: RateLimitHitsOptions) {
    this.#db = options.db;
    this.#now = options.now ?? (() => new Date());
    this.#sweepEveryMs = options.sweepEveryMs ?? RATE_LIMIT_SWEEP_MS;
    this.#onSweepError = options.onSweepError ?? (() => undefined);
  }

  /** Counts one hit of `key` in a window of `windowMs`; resolves with the window's count. */
  async hit(key: string, windowMs: number): Promise<RateLimitCount> {
    const now = this.#now();
    this.#maybeSweep(now);
    const resetAt = new Date(now.getTime() + windowMs);
    // The window ended: this hit starts a new one (count 1, a new end); else one more. Raw SQL
    // through the driver: every anonymous request counts, and building the statement with
    // Drizzle each time cost more than running it.
    const [row] = await driverQuery<{ hits: number; reset_at: Date | string }>(this.#db, HIT_SQL, [
      key,
      now.toISOString(),
      resetAt.toISOString(),
    ]);
    if (!row) throw new Error(`the rate-limit count of ${key} was not returned`);
    const ends = new Date(row.reset_at).getTime();
    return { hits: Number(row.hits), ttlMs: Math.max(0, ends - now.getTime()) };
  }

  /** Deletes the rows whose window has ended; resolves with how many. */
  async sweep(): Promise<number> {
    const deleted = await this.#db
      .delete(rateLimitHits)
      .where(lt(rateLimitHits.resetAt, this.#now()))
      .returning({ key: rateLimitHits.key });
    return deleted.length;
  }

  #maybeSweep(now: Date): void {
    if (now.getTime() - this.#lastSweepAt < this.#sweepEveryMs) return;
    this.#lastSweepAt = now.getTime();
    this.sweep().catch(this.#onSweepError);
  }
}

/**
 * `@fastify/rate-limit`'s store on the shared counts: its limiters (`createRateLimit`) count in
 * the database instead of in the process. The key is the limiter's (its `keyGenerator`'s).
 */
export function rateLimitStoreOf(hits: RateLimitHits): FastifyRateLimitStoreCtor {
  return class DatabaseRateLimitStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      hits.hit(key, timeWindow).then(
        (count) => callback(null, { current: count.hits, ttl: count.ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
