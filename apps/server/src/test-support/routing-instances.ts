/**
 * Test support for routing across instances: one fresh database opened twice, as two
 * instances of the server open it (on PostgreSQL, two pools on one scratch database; on
 * PGlite, the one in-memory database shared), an account with available agents online, and a
 * `Router` per instance with its own telephony and no in-memory lock shared with the other.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Db } from '../db/database';
import { FakeTelephony } from '../telephony/fake-telephony';
import type { ManualClock } from './manual-clock';
import { openSharedTestDatabase } from './test-database';
import { Router } from '../routing/router';

/** One database as two instances see it. */
export interface SharedDatabase {
  /** What each instance opened. */
  instances: [Database, Database];
  close(): Promise<void>;
}

/** Opens a fresh migrated database twice (see the file's comment). */
export async function openSharedDatabase(): Promise<SharedDatabase> {
  const shared = await openSharedTestDatabase(2);
  const [first, second] = shared.databases;
  return { instances: [first!, second!], close: () => shared.close() };
}

/** Inserts an account with `agents` available agents online in the app; resolves with ids. */
export async function seedAccount(
  db: Db,
  agents: number,
): Promise<{ accountId: number; agentIds: number[] }> {
  const [account] = await queryRows<{ id: number }>(
    db,
    sql`insert into accounts (name) values (${`Routing ${randomBytes(3).toString('hex')}`})
        returning id`,
  );
  const accountId = account!.id;
  const agentIds: number[] = [];
  for (let i = 0; i < agents; i++) {
    const [row] = await queryRows<{ id: number }>(
      db,
      sql`insert into users (account_id, email, password_hash, full_name, is_online_app)
          values (${accountId}, ${`agent${i}-${accountId}@example.com`}, 'x', ${`Agent ${i}`}, true)
          returning id`,
    );
    agentIds.push(row!.id);
  }
  return { accountId, agentIds };
}

/** A router of one instance, with the rings its timers or its sweeper handed on. */
export interface InstanceRouter {
  router: Router;
  telephony: FakeTelephony;
  /** Every ring handed on as timed out. */
  timedOut: Array<{ callSid: string; callUserId: number }>;
  /** Rings this instance moved on (its compare-and-set won), as the flows move them on. */
  movedOn: number[];
  /** Accounts its sweeper said agents finished wrapping up in (drain their queue). */
  wrapUpsEnded: number[];
}

/**
 * A router as one instance runs it, its agents' devices online on its telephony. No account
 * lock: every offer is its own racer, as offers from many instances are. A ring handed on as
 * timed out is ended as missed as the flows end it (`endRing`).
 */
export function instanceRouter(
  db: Db,
  clock: ManualClock,
  online: number[],
  ringTimeoutMs = 30_000,
): InstanceRouter {
  const telephony = new FakeTelephony();
  for (const id of online) telephony.online.add(String(id));
  const timedOut: InstanceRouter['timedOut'] = [];
  const movedOn: number[] = [];
  const wrapUpsEnded: number[] = [];
  const router: Router = new Router({
    db,
    telephony,
    clock,
    profileOf: () => Promise.resolve(null),
    ringTimeoutMs,
    accountLock: (_accountId, task) => task(),
    onRingTimeout: (callSid, callUserId) => {
      timedOut.push({ callSid, callUserId });
      void router.endRing(callUserId, 'missed').then((won) => {
        if (won) movedOn.push(callUserId);
      });
    },
    onWrapUpsEnded: (accountId) => wrapUpsEnded.push(accountId),
  });
  return { router, telephony, timedOut, movedOn, wrapUpsEnded };
}
