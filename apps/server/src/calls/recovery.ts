/**
 * What a crash left live, and how it is closed. docs/reliability.md says what is kept and lost.
 *
 * **The embedded engine**: the calls the server left live are over (their rooms died with the
 * process), so they are all closed at start, before any device can register again. A call that
 * was talking ends when the server last saw it alive (`last_seen_at`, stamped every few seconds),
 * so its seconds are those it really lasted, give or take one stamp; a web lead that was ringing
 * goes back to the queue; anything else rung ends as missed. Everyone on those calls is freed.
 *
 * **A provider that carries the calls outside the process** (Twilio, a {@link CallCarrier}):
 * several equal instances share the calls, and Twilio keeps a conference going whatever happens
 * to them. So a call is closed only when both hold:
 * - **no instance may be in the middle of it**: at start, its stamp is older than
 *   {@link STALE_HEARTBEATS} heartbeats (every live instance stamps every live call each
 *   heartbeat, so a stale stamp means no instance ran meanwhile); while running
 *   ({@link CarriedCallSweeper}), Twilio did not carry it on two sweeps at least `graceMs` apart
 *   and its status did not move in between;
 * - **Twilio no longer carries it** (its conference is neither `init` nor `in-progress`).
 * A call Twilio carries stays as it is; when Twilio cannot be asked (an error), nothing is closed.
 * Closing is a compare-and-set on the call's status (`transitionCall`), so instances that
 * reconcile at once close a call once.
 */
import { and, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/database';
import { callPhones, callUsers, calls } from '../db/schema';
import {
  findCallBySid,
  StaleCallError,
  transitionCall,
  type CallRow,
  type CallUserRow,
} from './calls-repo';
import { WRAPS_UP } from './call-participants';
import {
  CONNECTED,
  isQueued,
  isRinging,
  LIVE_CALL_STATUSES,
  QUEUED,
  type CallEvent,
} from './call-status';
import type { Clock } from '../lib/clock';

/**
 * The provider that carries calls outside this process (Twilio), as recovery asks it. Each
 * method rejects when the provider cannot tell (a network or API error).
 */
export interface CallCarrier {
  /** Of `callSids`, those the provider still carries (Twilio: a conference `init` or `in-progress`). */
  carried(callSids: readonly string[]): Promise<ReadonlySet<string>>;
  /** When the provider says the call ended (Twilio: its completed conference's last update), if it knows. */
  endedAt(callSid: string): Promise<Date | null>;
}

/** With a carrier, start-up recovery closes only calls last stamped more heartbeats ago than this. */
export const STALE_HEARTBEATS = 3;
/** How often each instance reconciles its live calls with the carrier (ms). */
export const CARRIER_SWEEP_MS = 60_000;
/** How long a call must go uncarried (two sweeps at least this far apart) before it is closed (ms). */
export const CARRIER_GRACE_MS = 30_000;

/** What recovery did. */
export interface RecoveryReport {
  /** Ids of the calls it closed or put back in the queue. */
  calls: number[];
  /** Of those, the web leads that wait in the queue again. */
  requeued: number[];
  /** Left as they are: the carrier still carries them. */
  kept: number[];
  /** Left as they are: an instance stamped them lately (it may be working on them). */
  recent: number[];
  /** Left as they are: the carrier could not be asked. */
  unverified: number[];
}

/** How start-up recovery works with a provider that carries calls (absent: the embedded engine). */
export interface RecoveryOptions {
  carrier: CallCarrier;
  /** A call is left alone when it was last alive less than this long ago (ms). */
  staleAfterMs: number;
  log: { warn(obj: object, msg?: string): void };
}

/**
 * Closes what a crash left live; resolves with what it did. Without `options`, every live call
 * (the embedded engine's); with a carrier, only those no instance stamped lately and the carrier
 * no longer carries.
 */
export async function recoverInterruptedCalls(
  db: Db,
  now: Date,
  options?: RecoveryOptions,
): Promise<RecoveryReport> {
  const report: RecoveryReport = { calls: [], requeued: [], kept: [], recent: [], unverified: [] };
  const live = await db
    .select()
    .from(calls)
    .where(
      or(
        inArray(calls.status, LIVE_CALL_STATUSES),
        // An outbound call the console was about to connect: it never will now.
        and(eq(calls.status, QUEUED), eq(calls.source, 'outbound')),
      ),
    );
  let closing = live;
  const endedAt = new Map<number, Date>();
  if (options) {
    const staleBefore = now.getTime() - options.staleAfterMs;
    const isStale = (call: CallRow) => lastAlive(call, now).getTime() <= staleBefore;
    closing = live.filter(isStale);
    report.recent = live.filter((call) => !isStale(call)).map((call) => call.id);
    if (closing.length === 0) return report;
    let carried: ReadonlySet<string>;
    try {
      carried = await options.carrier.carried(closing.map((call) => call.sid));
    } catch (error) {
      report.unverified = closing.map((call) => call.id);
      options.log.warn(
        { err: error, calls: report.unverified },
        'could not ask Twilio which calls it still carries: the calls stay as they are',
      );
      return report;
    }
    report.kept = closing.filter((call) => carried.has(call.sid)).map((call) => call.id);
    closing = closing.filter((call) => !carried.has(call.sid));
    for (const call of closing) {
      const ended = await options.carrier.endedAt(call.sid).catch(() => null);
      if (ended) endedAt.set(call.id, ended);
    }
  }
  for (const call of closing) {
    const ending = endOf(call, now, endedAt.get(call.id) ?? null);
    const closed = await closeInterruptedCall(db, call, ending);
    if (closed === null) continue;
    report.calls.push(call.id);
    if (closed === 'requeue') report.requeued.push(call.id);
  }
  return report;
}

/**
 * Closes `call` as interrupted, ended at `endedAt`, if its status is still the one read: its
 * agents leave, its rings are canceled, its phones leave, and it moves on (a queued outbound call
 * is canceled, a ringing web lead waits in the queue again, anything else rung is missed, a call
 * in progress is completed with its seconds). Resolves with the event it took, or null when
 * someone else moved the call first (nothing written).
 */
export async function closeInterruptedCall(
  db: Db,
  call: CallRow,
  endedAt: Date,
): Promise<CallEvent | null> {
  try {
    return await db.transaction(async (tx) => {
      await leaveEverything(tx, call.id, endedAt);
      if (isQueued(call.status)) {
        await transitionCall(tx, call, 'cancel', { reason: 'server-restart', endedAt });
        return 'cancel';
      }
      if (isRinging(call.status) && call.source === 'web') {
        await transitionCall(tx, call, 'requeue', {
          reason: 'server-restart',
          waitingSince: call.waitingSince ?? call.createdAt,
        });
        return 'requeue';
      }
      const seconds = call.answeredAt
        ? Math.max(0, Math.round((endedAt.getTime() - call.answeredAt.getTime()) / 1000))
        : 0;
      await transitionCall(tx, call, 'restart', {
        reason: 'server-restart',
        endedAt,
        seconds,
        held: false,
      });
      return 'restart';
    });
  } catch (error) {
    if (error instanceof StaleCallError) return null;
    throw error;
  }
}

async function leaveEverything(tx: DbOrTx, callId: number, endedAt: Date): Promise<void> {
  await tx
    .update(callUsers)
    .set({ leftAt: endedAt })
    .where(
      and(
        eq(callUsers.callId, callId),
        eq(callUsers.outcome, 'accepted'),
        isNull(callUsers.leftAt),
      ),
    );
  await tx
    .update(callUsers)
    .set({ outcome: 'canceled' })
    .where(and(eq(callUsers.callId, callId), eq(callUsers.outcome, 'ringing')));
  await tx
    .update(callPhones)
    .set({ state: 'left', leftAt: endedAt })
    .where(
      and(
        eq(callPhones.callId, callId),
        or(eq(callPhones.state, 'ringing'), eq(callPhones.state, 'answered')),
      ),
    );
}

/** When the call was last known alive: its last stamp, else its answer or its creation. */
function lastAlive(call: CallRow, now: Date): Date {
  const candidates = [call.lastSeenAt, call.answeredAt, call.createdAt].filter(
    (d): d is Date => d !== null,
  );
  const last = new Date(Math.max(...candidates.map((d) => d.getTime())));
  return last > now ? now : last;
}

/**
 * When the interrupted call ended: what the carrier says (Twilio's completed conference), when
 * that falls between the call's start and now; else when it was last known alive.
 */
function endOf(call: CallRow, now: Date, carrierEnd: Date | null): Date {
  const start = (call.answeredAt ?? call.createdAt).getTime();
  if (carrierEnd && carrierEnd.getTime() >= start && carrierEnd <= now) return carrierEnd;
  return lastAlive(call, now);
}

/** What one sweep did. */
export interface SweepReport {
  /** Calls closed (Twilio had not carried them on two sweeps `graceMs` apart). */
  closed: number[];
  /** Calls Twilio did not carry this time: closed if it still does not after the grace. */
  pending: number[];
  /** Calls Twilio carries. */
  kept: number[];
  /** Calls left as they are: Twilio could not be asked. */
  unverified: number[];
}

/** What the sweeper works with: the flows' parts. */
export interface SweeperHost {
  db: Db;
  clock: Clock;
  carrier: CallCarrier;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  /** How often it sweeps (ms). */
  everyMs: number;
  /** How long a call must go uncarried before it is closed (ms). */
  graceMs: number;
  /** An outbound call still queued this long after it was created is looked at too (ms). */
  queuedOutboundAfterMs: number;
  /** Runs `task` alone for the call (`CallFlows.exclusive`). */
  exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T>;
  /** The agents who worked the call wrap up (`CallEndings.wrapUp`). */
  wrapUp(call: CallRow, participants: CallUserRow[]): Promise<void>;
  /** Publishes where the user is now (`AgentPresence.refresh`). */
  refresh(userId: number): Promise<unknown>;
}

/**
 * Every instance, every `everyMs`: the calls in progress (and outbound calls that never
 * connected) that Twilio no longer carries are closed, once it has not carried them on two
 * sweeps at least `graceMs` apart. It closes what an instance that died in the middle of a call's
 * end left behind (a status callback it received and never acted on is not sent again). Ringing
 * calls are left to the durable ring timers, which any instance runs (`routing/`).
 */
export class CarriedCallSweeper {
  readonly #host: SweeperHost;
  /** Calls Twilio did not carry at a sweep: since when, and their status then. */
  readonly #uncarried = new Map<number, { since: Date; status: CallRow['status'] }>();
  #timer: unknown = null;
  #running = false;

  constructor(host: SweeperHost) {
    this.#host = host;
  }

  /** Sweeps every `everyMs` until stopped. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    if (this.#timer !== null) this.#host.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** One sweep; resolves with what it did. */
  async sweep(): Promise<SweepReport> {
    const { db, clock, carrier, log } = this.#host;
    const report: SweepReport = { closed: [], pending: [], kept: [], unverified: [] };
    const now = clock.now();
    const outboundBefore = new Date(now.getTime() - this.#host.queuedOutboundAfterMs);
    const looked = await db
      .select()
      .from(calls)
      .where(
        or(
          eq(calls.status, CONNECTED),
          and(
            eq(calls.status, QUEUED),
            eq(calls.source, 'outbound'),
            lt(calls.createdAt, outboundBefore),
          ),
        ),
      );
    const ids = new Set(looked.map((call) => call.id));
    for (const id of this.#uncarried.keys()) if (!ids.has(id)) this.#uncarried.delete(id);
    if (looked.length === 0) return report;
    let carried: ReadonlySet<string>;
    try {
      carried = await carrier.carried(looked.map((call) => call.sid));
    } catch (error) {
      report.unverified = [...ids];
      log.warn(
        { err: error, calls: report.unverified },
        'could not ask Twilio which calls it still carries: the calls stay as they are',
      );
      return report;
    }
    for (const call of looked) {
      if (carried.has(call.sid)) {
        this.#uncarried.delete(call.id);
        report.kept.push(call.id);
        continue;
      }
      const seen = this.#uncarried.get(call.id);
      if (!seen || seen.status !== call.status) {
        this.#uncarried.set(call.id, { since: now, status: call.status });
        report.pending.push(call.id);
        continue;
      }
      if (now.getTime() - seen.since.getTime() < this.#host.graceMs) {
        report.pending.push(call.id);
        continue;
      }
      const ended = await carrier.endedAt(call.sid).catch(() => null);
      // Twilio's own end, else the first sweep that found it gone (it ended before that).
      const endedAt = endOf(call, now, ended ?? seen.since);
      if (await this.#close(call, endedAt)) report.closed.push(call.id);
      this.#uncarried.delete(call.id);
    }
    if (report.closed.length > 0) {
      log.warn({ calls: report.closed }, 'closed calls Twilio no longer carries');
    }
    return report;
  }

  /** Closes the call in its turn, if it is still as read; tells its people. */
  async #close(call: CallRow, endedAt: Date): Promise<boolean> {
    const { db } = this.#host;
    return this.#host.exclusive(call.sid, async () => {
      const fresh = await findCallBySid(db, call.sid);
      if (!fresh || fresh.status !== call.status) return false;
      const people = await db
        .select()
        .from(callUsers)
        .where(
          and(
            eq(callUsers.callId, fresh.id),
            or(
              and(eq(callUsers.outcome, 'accepted'), isNull(callUsers.leftAt)),
              eq(callUsers.outcome, 'ringing'),
            ),
          ),
        );
      if ((await closeInterruptedCall(db, fresh, endedAt)) === null) return false;
      const working = people.filter((p) => p.outcome === 'accepted' && WRAPS_UP.has(p.type));
      await this.#host.wrapUp(fresh, working);
      for (const userId of new Set(people.map((p) => p.userId))) await this.#host.refresh(userId);
      return true;
    });
  }

  #schedule(): void {
    this.#timer = this.#host.clock.setTimeout(() => {
      this.#timer = null;
      if (!this.#running) return;
      void this.sweep()
        .catch((error: unknown) =>
          this.#host.log.error({ err: error }, 'reconciling calls with Twilio failed'),
        )
        .finally(() => {
          if (this.#running) this.#schedule();
        });
    }, this.#host.everyMs);
  }
}
