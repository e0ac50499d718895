/**
 * Each call's events one at a time across the instances (issue 38, Twilio on several equal
 * instances). Within a process the flows' `KeyedQueue` runs a call's tasks one after another;
 * with Twilio, two instances may each get a callback of the same call at the same moment (the
 * lead answers on one, hangs up on the other) and react side by side: one reaction's
 * compare-and-set then loses, and what it had to do (end the call, hang up the other side) is
 * never done. So every task of a key also holds a PostgreSQL advisory lock on that key for as
 * long as it runs: the same task of another instance waits for it, then reads what this one
 * wrote. Only calls are locked (keys that are call sids): an account's picks are one statement
 * that cannot double-book (`routing/reservations.ts`), and the queue is claimed `SKIP LOCKED`.
 *
 * Each held lock holds one connection of a pool of its own (`CALL_LOCK_CONNECTIONS`), so tasks
 * waiting for a lock never starve the main pool the tasks themselves use. A call's task never
 * takes another call's turn inside its own (the flows' tasks of other keys, and timers, run on
 * their own), so a task holding a connection never waits for a second one, and a full pool only
 * delays. An instance that dies loses its connections, and PostgreSQL frees their locks at once.
 */
import pg from 'pg';

/** Connections of each instance's lock pool: at most this many calls locked at once. */
export const CALL_LOCK_CONNECTIONS = 16;

/** A Leadline call sid (`calls.sid`): the keys that are locked. */
const CALL_SID = /^CA[0-9a-f]{32}$/;

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
    if (!CALL_SID.test(key)) return task();
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
