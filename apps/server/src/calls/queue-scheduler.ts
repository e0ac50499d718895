/**
 * The queue scheduler: the flows' periodic work and the queue of web leads. Live calls are
 * stamped as seen every `heartbeatMs` (a crash loses at most that much of a call,
 * docs/reliability.md); every `sweepMs` the queue is swept (expired web leads end, free agents
 * get waiting ones); and an agent who becomes free wakes their account's queue at once
 * (`drainSoon`). Offers run in each call's turn of the flows' queue (`exclusive`).
 */
import type { Db } from '../db/database';
import type { Router } from '../routing/router';

import { accountsWithQueue, expiredQueuedCalls, oldestQueuedCall } from '../routing/routing-repo';
import { isQueued } from './call-status';
import { findCallBySid, markLiveCallsSeen, transitionCall } from './calls-repo';
import { NOBODY_EVENT } from './call-outcomes';
import type { FloorChanged } from './floor-changes';
import type { Clock } from '../lib/clock';

/** Live calls are stamped this often. */
export const HEARTBEAT_MS = 10_000;
/** The queue is swept this often. */
export const QUEUE_SWEEP_MS = 30_000;

/** What the scheduler works with: the flows' parts. */
export interface SchedulerHost {
  db: Db;
  clock: Clock;
  log: { error(obj: object, msg?: string): void };
  router: Pick<Router, 'offer' | 'offerQueued'>;
  /** Runs `task` alone for the call (`CallFlows.exclusive`). */
  exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T>;
  /** Queues `task` behind the earlier tasks of `key`; resolves when it has run. */
  run(key: string, task: () => Promise<void>): Promise<void>;
  /** Whether the flows are shutting down (no new offers). */
  isStopping(): boolean;
  /** Tells the floor a call moved (`floor-changes.ts`). */
  floorChanged: FloorChanged;
}

/** Timers of the flows and the queue of web leads. */
export class QueueScheduler {
  readonly #host: SchedulerHost;
  #intervals: unknown[] = [];
  #running = false;
  /** Agents freed per account (wake-ups of the queue), counted: see `CallFlows.intakeLead`. */
  readonly #freed = new Map<number, number>();

  constructor(host: SchedulerHost) {
    this.#host = host;
  }

  /** Starts stamping live calls and sweeping the queue. */
  start(options: { heartbeatMs?: number | undefined; sweepMs?: number | undefined }): void {
    this.#running = true;
    this.#every(options.heartbeatMs ?? HEARTBEAT_MS, () =>
      this.#host.run('heartbeat', () => markLiveCallsSeen(this.#host.db, this.#host.clock.now())),
    );
    this.#every(options.sweepMs ?? QUEUE_SWEEP_MS, () => this.sweepQueue());
  }

  /** Clears the timers. */
  stop(): void {
    this.#running = false;
    for (const interval of this.#intervals) this.#host.clock.clearTimeout(interval);
    this.#intervals = [];
  }

  /** How many times an agent of the account was freed so far (a wake-up counter). */
  freedCount(accountId: number): number {
    return this.#freed.get(accountId) ?? 0;
  }

  /** Sweeps the queue: expired web leads end as busy/offline; free agents get waiting leads. */
  async sweepQueue(): Promise<void> {
    if (this.#host.isStopping()) return;
    for (const call of await expiredQueuedCalls(this.#host.db, this.#host.clock.now())) {
      await this.#host.exclusive(call.sid, async () => {
        const fresh = await findCallBySid(this.#host.db, call.sid);
        if (!fresh || !isQueued(fresh.status)) return;
        const reason = fresh.reason === 'no-agents-online' ? 'no-agents-online' : 'all-agents-busy';
        await transitionCall(this.#host.db, fresh, NOBODY_EVENT[reason], {
          reason,
          endedAt: this.#host.clock.now(),
        });
        this.#host.floorChanged(fresh, 'ended');
      });
    }
    for (const accountId of await accountsWithQueue(this.#host.db)) await this.#drain(accountId);
  }

  /** Offers waiting web leads of the account, oldest first, while agents can take them. */
  drainSoon(accountId: number): void {
    this.#freed.set(accountId, (this.#freed.get(accountId) ?? 0) + 1);
    if (this.#host.isStopping()) return;
    void this.#host.run(`drain:${accountId}`, () => this.#drain(accountId));
  }

  async #drain(accountId: number): Promise<void> {
    for (let offered = 0; offered < 100 && !this.#host.isStopping(); offered++) {
      const waiting = await oldestQueuedCall(this.#host.db, accountId);
      if (!waiting) return;
      // The router claims the call (`for update skip locked`, still queued), reserves the agent
      // and moves it to ringing at once: another instance draining meanwhile is told `taken`.
      const outcome = await this.#host.exclusive(
        waiting.sid,
        async () => (await this.#host.router.offerQueued(waiting)).kind,
      );
      if (outcome === 'nobody') return;
    }
  }

  #every(ms: number, run: () => Promise<void>): void {
    const tick = () => {
      const handle = this.#host.clock.setTimeout(() => {
        this.#intervals = this.#intervals.filter((h) => h !== handle);
        if (this.#host.isStopping() && !this.#running) return;
        void run()
          .catch((error: unknown) => this.#host.log.error({ err: error }, 'periodic task failed'))
          .finally(() => {
            if (this.#running) tick();
          });
      }, ms);
      this.#intervals.push(handle);
    };
    tick();
  }
}
