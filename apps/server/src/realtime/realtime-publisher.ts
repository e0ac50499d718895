/**
 * The `Realtime` port: the server publishes events to the console's realtime channels. One
 * implementation, the `pusher` npm library, whatever the target (hosted Pusher Channels, a
 * self-hosted Pusher-protocol server, or the embedded endpoint's HTTP events API on loopback).
 * Events go out in the order they were published (a status change never overtakes the one
 * before it), those published while a request is under way together in the next one; a failed
 * publish is reported and the next one goes on (the console reads the lists again whenever its
 * realtime connection was lost).
 */
import Pusher from 'pusher';
import {
  ACCOUNT_EVENTS,
  type AgentStatusEvent,
  type FloorChangedEvent,
} from '@leadline/contracts/realtime';
import type { DomainEvent, EventBus } from '../events/event-bus';
import { accountChannelOf } from './channels';
import type { PublisherOptions } from './realtime-target';

/** Publishes events to realtime channels. */
export interface Realtime {
  /** Sends `event` with `data` to `channel`'s subscribers; resolves once the service took it. */
  publish(channel: string, event: string, data: unknown): Promise<void>;
  /** Resolves once everything published so far went out (or failed). */
  idle(): Promise<void>;
}

/** The most events Pusher's HTTP API takes in one `batch_events` request. */
export const PUSHER_BATCH_MAX = 10;

/** An event waiting to go out, and who waits for it. */
interface Queued {
  channel: string;
  event: string;
  data: unknown;
  sent: () => void;
}

/**
 * The `pusher` library, in order. One request at a time: the events published while one is
 * under way wait, and go out together in the next (`triggerBatch`, up to
 * {@link PUSHER_BATCH_MAX} in the order published; a single one by `trigger`). A burst of calls
 * changing (a lead rung, queued, answered, each a floor change) therefore costs a few requests
 * rather than one each.
 */
export class PusherRealtime implements Realtime {
  readonly #client: Pusher;
  #queue: Queued[] = [];
  #sending: Promise<void> | null = null;

  constructor(
    options: PublisherOptions,
    private readonly onError: (error: unknown, channel: string, event: string) => void,
  ) {
    this.#client = new Pusher(options);
  }

  publish(channel: string, event: string, data: unknown): Promise<void> {
    return new Promise((sent) => {
      this.#queue.push({ channel, event, data, sent });
      this.#sending ??= this.#send();
    });
  }

  idle(): Promise<void> {
    return this.#sending ?? Promise.resolve();
  }

  /** Sends what is queued, a batch at a time, until nothing is. */
  async #send(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, PUSHER_BATCH_MAX);
      try {
        if (batch.length === 1) {
          const [only] = batch as [Queued];
          await this.#client.trigger(only.channel, only.event, only.data);
        } else {
          await this.#client.triggerBatch(
            batch.map(({ channel, event, data }) => ({ channel, name: event, data })),
          );
        }
      } catch (error) {
        for (const { channel, event } of batch) this.onError(error, channel, event);
      }
      for (const { sent } of batch) sent();
    }
    this.#sending = null;
  }
}

/** A realtime event: its channel, its name and its data. */
export type RealtimeEvent =
  | { channel: string; name: typeof ACCOUNT_EVENTS.agentStatus; data: AgentStatusEvent }
  | { channel: string; name: typeof ACCOUNT_EVENTS.floorChanged; data: FloorChangedEvent };

/**
 * The account-channel event a domain event becomes, if any. Every user of the account hears the
 * account channel (agents too): its events carry ids and states, never a lead's details.
 */
export function realtimeEventOf(event: DomainEvent): RealtimeEvent | null {
  switch (event.type) {
    case 'agent.status':
      return {
        channel: accountChannelOf(event.accountId),
        name: ACCOUNT_EVENTS.agentStatus,
        data: {
          user_id: event.userId,
          status: event.status,
          is_available: event.isAvailable,
          at: event.at,
        },
      };
    case 'floor.changed':
      return {
        channel: accountChannelOf(event.accountId),
        name: ACCOUNT_EVENTS.floorChanged,
        data: { call_id: event.callId, reason: event.reason, at: event.at },
      };
  }
}

/** Publishes the server's domain events to the realtime channels; returns the unsubscribe. */
export function publishDomainEvents(events: EventBus, realtime: Realtime): () => void {
  return events.subscribe((event) => {
    const out = realtimeEventOf(event);
    if (out) void realtime.publish(out.channel, out.name, out.data);
  });
}
