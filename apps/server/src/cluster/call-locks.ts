/**
 * Each call's events one at a time across the instances (issue 38, Twilio on several equal
 * instances). Within a process the flows' `KeyedQueue` runs a call's tasks one after another;
 * with Twilio, two instances may each get a callback of the same call at the same moment (the
 * lead answers on one, hangs up on the other) and react side by side: one reaction's
 * compare-and-set then loses, and what it had to do (end the call, hang up the other side) is
 * never done. So every task of a key also holds a PostgreSQL advisory lock on that key for as
 * long as it runs: the same task of another instance waits for it, then reads what this one
 * wrote. Keys are the flows' own: a call's sid, `user:<id>`, and `route:<account>` (the
 * account's picks: one matcher per account at a time). A task of a call may take its account's
 * lock inside, never the other way round, so two instances never wait on each other.
 *
 * Each held lock holds one connection of a small pool of its own (`CALL_LOCK_CONNECTIONS`), so
 * tasks waiting for a lock never starve the main pool the tasks themselves use. An instance that
 * dies loses its connections, and PostgreSQL frees their locks at once.
 */
import pg from 'pg';

/** Connections of each instance's lock pool: at most this many keys locked at once. */
export const CALL_LOCK_CONNECTIONS = 8;

/** Runs a task holding the key's lock across the instances. */
export type ClusterLock = <T>(key: string, task: () => Promise<T>) => Promise<T>;

/** The locks on a PostgreSQL database (see the module comment). */
export class PgCallLocks {
  readonly #pool: pg.Pool;

  constructor(url: string, options: { onIdleError(error: Error): void }) {
    this.#pool = new pg.Pool({ connectionString: url, max: CALL_LOCK_CONNECTIONS });
    // An idle connection the server ends (a restart, a failover) must not end the process.
    this.#pool.on('error', (error) => options.onIdleError(error));
  }

  /** Runs `task` holding `key`'s lock; the lock is let go however the task ends. */
  readonly run: ClusterLock = async (key, task) => {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('select pg_advisory_lock(hashtextextended($1, 38))', [key]);
      try {
        return await task();
      } finally {
        await client
          .query('select pg_advisory_unlock(hashtextextended($1, 38))', [key])
          .catch((error: unknown) => {
            // Not let go: the connection is dropped, and the lock with it.
            broken = error instanceof Error ? error : new Error(String(error));
          });
      }
    } catch (error) {
      broken ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(broken);
    }
  };

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
