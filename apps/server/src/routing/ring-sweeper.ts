/**
 * The ring sweeper (issue 38): ring timers that survive their instance. Every instance runs one;
 * every `intervalMs` it claims rings still going whose reservation (`call_users.expires_at`)
 * ran out more than `graceMs` ago, a few at a time (`claimDueRings`: `for update skip locked`,
 * so two sweepers never take the same ring), and hands each to `onDue`, the same step the
 * ringing instance's own timer takes. That timer stays the fast path: it fires at the expiry,
 * before the grace is over; if both act, the move is a compare-and-set on outcome `ringing`
 * (`endRing`) and the later one changes nothing. A claimed ring whose instance dies before
 * moving it on is due again `claimMs` later. Wrap-ups end the same way: an agent whose
 * `wrap_up_until` passed since the last sweep is eligible to routing without any timer (the
 * pick compares it with now), and the sweeper tells `onWrapUpsEnded` about their account when
 * leads wait in its queue, so the queue drains even if the instance that started the wrap-up
 * is gone.
 */
import type { Db } from '../db/database';
import { claimDueRings } from './reservations';
import { accountsWithWrapUpsEnded } from './routing-repo';
import type { Clock } from '../lib/clock';

/** How often each instance sweeps. */
export const RING_SWEEP_MS = 1_000;
/** A ring is swept this long after its expiry (its own instance's timer fires at it). */
export const RING_SWEEP_GRACE_MS = 1_000;
/** A claimed ring not moved on by then is due again. */
export const RING_CLAIM_MS = 10_000;
/** Rings claimed per statement. */
export const RING_SWEEP_BATCH = 20;

/** What the sweeper needs. */
export interface RingSweeperOptions {
  db: Db;
  clock: Clock;
  /** A due ring: move it on (the flows' ring-timeout step). */
  onDue(callSid: string, callUserId: number): void;
  /** A sweep failed (the next one tries again). */
  onError(error: unknown): void;
  /**
   * Agents of the account finished wrapping up since the last sweep while leads wait in its
   * queue: drain it (a wrap-up's end, durable: whichever instance started it).
   */
  onWrapUpsEnded?(accountId: number): void;
  intervalMs?: number;
  graceMs?: number;
  claimMs?: number;
  batch?: number;
}

/** Sweeps due rings every `intervalMs` while started. */
export class RingSweeper {
  #timer: unknown = null;
  #running: Promise<number> | null = null;
  /** When the last sweep looked for ended wrap-ups (ms since the epoch). */
  #wrapUpsSeenUntil: number | null = null;

  constructor(private readonly options: RingSweeperOptions) {}

  /** Starts sweeping (no-op if started). */
  start(): void {
    if (this.#timer !== null) return;
    this.#arm();
  }

  /** Stops sweeping; a sweep under way finishes. */
  stop(): void {
    if (this.#timer !== null) this.options.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * Claims the rings due now and hands them on; resolves with how many. A sweep already under
   * way is joined, not doubled.
   */
  sweep(): Promise<number> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #sweep(): Promise<number> {
    const { db, clock } = this.options;
    const batch = this.options.batch ?? RING_SWEEP_BATCH;
    let swept = 0;
    for (;;) {
      const now = clock.now().getTime();
      const due = await claimDueRings(
        db,
        new Date(now - (this.options.graceMs ?? RING_SWEEP_GRACE_MS)),
        new Date(now + (this.options.claimMs ?? RING_CLAIM_MS)),
        batch,
      );
      for (const ring of due) this.options.onDue(ring.callSid, ring.callUserId);
      swept += due.length;
      if (due.length < batch) break;
    }
    await this.#wrapUpsEnded();
    return swept;
  }

  async #wrapUpsEnded(): Promise<void> {
    if (!this.options.onWrapUpsEnded) return;
    const now = this.options.clock.now().getTime();
    const after = this.#wrapUpsSeenUntil ?? now - (this.options.intervalMs ?? RING_SWEEP_MS);
    this.#wrapUpsSeenUntil = now;
    if (after >= now) return;
    for (const accountId of await accountsWithWrapUpsEnded(
      this.options.db,
      new Date(after),
      new Date(now),
    )) {
      this.options.onWrapUpsEnded?.(accountId);
    }
  }

  #arm(): void {
    this.#timer = this.options.clock.setTimeout(() => {
      if (this.#timer === null) return;
      this.sweep()
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          if (this.#timer !== null) this.#arm();
        });
    }, this.options.intervalMs ?? RING_SWEEP_MS);
  }
}
