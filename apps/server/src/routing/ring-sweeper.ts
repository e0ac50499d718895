/**
 * The ring sweeper (issue 38): ring timers that survive their instance. Every instance runs one;
 * every `intervalMs` it claims rings still going whose reservation (`call_users.expires_at`)
 * ran out more than `graceMs` ago, a few at a time (`claimDueRings`: `for update skip locked`,
 * so two sweepers never take the same ring), and hands each to `onDue`, the same step the
 * ringing instance's own timer takes. That timer stays the fast path: it fires at the expiry,
 * before the grace is over; if both act, the move is a compare-and-set on outcome `ringing`
 * (`endRing`) and the later one changes nothing. A claimed ring whose instance dies before
 * moving it on is due again `claimMs` later.
 */
import type { Db } from '../db/database';
import { claimDueRings } from './reservations';
import type { FlowClock } from './router';

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
  clock: FlowClock;
  /** A due ring: move it on (the flows' ring-timeout step). */
  onDue(callSid: string, callUserId: number): void;
  /** A sweep failed (the next one tries again). */
  onError(error: unknown): void;
  intervalMs?: number;
  graceMs?: number;
  claimMs?: number;
  batch?: number;
}

/** Sweeps due rings every `intervalMs` while started. */
export class RingSweeper {
  #timer: unknown = null;
  #running: Promise<number> | null = null;

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
      if (due.length < batch) return swept;
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
