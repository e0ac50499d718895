/**
 * The server's domain events, for whoever publishes them further (the realtime endpoint): one
 * typed union, one in-process bus. Listeners run synchronously and must not throw into the
 * publisher (a failing listener is reported and skipped).
 */
import type { FloorChangeReason, PresenceStatus } from '@leadline/contracts';

/** Everything the server announces. */
export type DomainEvent =
  | {
      type: 'agent.status';
      accountId: number;
      userId: number;
      status: PresenceStatus;
      /** The agent's choice (Available / Away). */
      isAvailable: boolean;
      /** ISO time of the change. */
      at: string;
    }
  | {
      /**
       * A call moved on the account's floor (it was queued, rung, answered, ended, or a ring of
       * it ended), published once the change is stored (`calls/floor-changes.ts`).
       */
      type: 'floor.changed';
      accountId: number;
      callId: number;
      reason: FloorChangeReason;
      /** ISO time of the change. */
      at: string;
    };

/** An in-process publish/subscribe of domain events. */
export class EventBus {
  readonly #listeners = new Set<(event: DomainEvent) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  /** Delivers `event` to every listener. */
  publish(event: DomainEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: DomainEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
