/**
 * Agent presence: whether an agent takes calls (Available / Away, their choice), their devices
 * (online / offline), and wrap-up: after a call the agent wraps up (routing skips them) until
 * they press Done or the profile's longest wrap-up passes. Every change of status or choice is
 * published as an `agent.status` event (once per actual change), and an agent who becomes free is reported to
 * `onFree` so that waiting leads are offered.
 */
import type { PresenceStatus } from '@leadline/contracts';
import type { Db } from '../db/database';
import type { EventBus } from '../events/event-bus';
import {
  endWrapUp,
  pendingWrapUps,
  presenceOf,
  setAvailable,
  setDeviceOnline,
  startWrapUp,
  type Presence,
} from './users-repo';
import type { Clock } from '../lib/clock';

/** What presence needs. */
export interface AgentPresenceOptions {
  db: Db;
  clock: Clock;
  events: EventBus;
  /** An agent of the account may take a call now. */
  onFree(accountId: number): void;
  /** Runs timer work in the flows' queue (so that it never interleaves with a user's events). */
  enqueue(key: string, task: () => Promise<unknown>): void;
}

/** The wrap-up a profile without its own setting gets (seconds). */
export const DEFAULT_WRAP_UP_SECONDS = 60;

/** Presence of the account's agents. */
export class AgentPresence {
  /** Wrap-up timers by user id. */
  readonly #timers = new Map<number, unknown>();
  /** The last status and choice published per user (a change is published once). */
  readonly #published = new Map<number, `${PresenceStatus}:${boolean}`>();

  constructor(private readonly options: AgentPresenceOptions) {}

  /** Sets the wrap-up timers of agents still wrapping up (at start). */
  async start(): Promise<void> {
    for (const { id, wrapUpUntil } of await pendingWrapUps(
      this.options.db,
      this.options.clock.now(),
    )) {
      this.#armWrapUpTimer(id, wrapUpUntil);
    }
  }

  /** Clears every timer. */
  stop(): void {
    for (const timer of this.#timers.values()) this.options.clock.clearTimeout(timer);
    this.#timers.clear();
  }

  /** A device of the user registered or went away. */
  async deviceOnline(userId: number, online: boolean): Promise<void> {
    await setDeviceOnline(this.options.db, userId, online, this.options.clock.now());
    await this.refresh(userId);
  }

  /** The agent chose Available or Away. */
  async setAvailable(userId: number, available: boolean): Promise<Presence | null> {
    await setAvailable(this.options.db, userId, available, this.options.clock.now());
    return this.refresh(userId);
  }

  /**
   * The agent's call ended: they wrap up for at most `seconds`. `callId`: the call, whose
   * wrap-up time the floor counts when the agent was the one who took it.
   */
  async startWrapUp(userId: number, seconds: number, callId: number | null = null): Promise<void> {
    const now = this.options.clock.now();
    const until = new Date(now.getTime() + Math.max(0, seconds) * 1000);
    await startWrapUp(this.options.db, userId, until, now, callId);
    this.#armWrapUpTimer(userId, until);
    await this.refresh(userId);
  }

  /** The agent is done wrapping up (Done): they are free for the next lead. */
  async endWrapUp(userId: number): Promise<Presence | null> {
    await this.endWrapUpQuietly(userId);
    return this.refresh(userId);
  }

  /**
   * Ends the wrap-up without reporting the agent free: they are about to take a call they asked
   * for (Retry, Check for lead, New Call), which waiting leads must not race. Refresh after.
   */
  async endWrapUpQuietly(userId: number): Promise<void> {
    this.#clearTimer(userId);
    await endWrapUp(this.options.db, userId, this.options.clock.now());
  }

  /**
   * Reads where the user is now and publishes it if it changed; reports a free agent. Call it
   * after anything that may change an agent's presence (a ring, an answer, leaving a call).
   */
  async refresh(userId: number): Promise<Presence | null> {
    const presence = await presenceOf(this.options.db, userId, this.options.clock.now());
    if (!presence) return null;
    // A change of choice counts too (Away while on a call: still on a call, but not available).
    const published = `${presence.status}:${presence.isAvailable}` as const;
    if (this.#published.get(userId) !== published) {
      this.#published.set(userId, published);
      this.options.events.publish({
        type: 'agent.status',
        accountId: presence.accountId,
        userId,
        status: presence.status,
        isAvailable: presence.isAvailable,
        at: this.options.clock.now().toISOString(),
      });
    }
    if (presence.status === 'available') this.options.onFree(presence.accountId);
    return presence;
  }

  #armWrapUpTimer(userId: number, until: Date): void {
    this.#clearTimer(userId);
    const ms = Math.max(0, until.getTime() - this.options.clock.now().getTime());
    this.#timers.set(
      userId,
      this.options.clock.setTimeout(() => {
        this.#timers.delete(userId);
        this.options.enqueue(`user:${userId}`, () => this.endWrapUp(userId));
      }, ms),
    );
  }

  #clearTimer(userId: number): void {
    const timer = this.#timers.get(userId);
    if (timer !== undefined) this.options.clock.clearTimeout(timer);
    this.#timers.delete(userId);
  }
}
