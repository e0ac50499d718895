/**
 * The realtime side of an instance (its HTTP routes: `realtime-routes.ts`): with the embedded target, the Pusher-protocol
 * endpoint (`/app/{key}`) and its HTTP events API on this instance's port, joined to the other
 * instances' endpoints over the instance bus; and, on the instance that produces domain events,
 * the publisher (`pusher` library) that sends them to the target, whichever it is.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EventBus } from '../events/event-bus';
import type { InstanceBus } from '../events/instance-bus';
import { EmbeddedPusher } from './embedded/embedded-pusher';
import { fanOut, type FannedOutEndpoint } from './embedded/fan-out';
import type { PresenceListener, PusherCredentials } from './pusher-auth';
import { PusherRealtime, publishDomainEvents, type Realtime } from './realtime-publisher';
import { publisherOptions, type RealtimeTarget } from './realtime-target';

/** Logs what goes wrong. */
interface Log {
  warn(details: object, message: string): void;
}

/** What the service is built from. */
export interface RealtimeServiceOptions {
  credentials: PusherCredentials;
  target: RealtimeTarget;
  bus: InstanceBus;
  log: Log;
  /**
   * Hears users arrive on and leave presence channels: of this instance's embedded endpoint,
   * or, with hosted Pusher, from its presence webhooks (`POST /pusher/webhooks`). The Twilio
   * provider's device presence.
   */
  onPresence?: PresenceListener | undefined;
  /** Hears a socket of the embedded endpoint close. */
  onSocketClosed?: ((socketId: string) => void) | undefined;
}

/** An instance's realtime parts. */
export class RealtimeService {
  readonly #endpoint: EmbeddedPusher | null;
  readonly #fanned: FannedOutEndpoint | null;
  #publisher: Realtime | null = null;
  #stopPublishing: (() => void) | null = null;

  private constructor(private readonly options: RealtimeServiceOptions) {
    if (options.target.kind === 'embedded') {
      this.#endpoint = new EmbeddedPusher({
        credentials: options.credentials,
        ...(options.onPresence ? { onPresence: options.onPresence } : {}),
        ...(options.onSocketClosed ? { onSocketClosed: options.onSocketClosed } : {}),
      });
      this.#fanned = fanOut(this.#endpoint, options.bus, (error) =>
        options.log.warn({ err: error }, 'a realtime event did not reach the other instances'),
      );
    } else {
      this.#endpoint = null;
      this.#fanned = null;
    }
  }

  /** Builds the service (`realtime-routes.ts` registers its HTTP routes with it). */
  static create(options: RealtimeServiceOptions): RealtimeService {
    return new RealtimeService(options);
  }

  /** The embedded endpoint joined to the other instances' (null with hosted Pusher). */
  get fannedEndpoint(): FannedOutEndpoint | null {
    return this.#fanned;
  }

  /** The embedded endpoint's subscribers on this instance (0 without it). */
  get connectionCount(): number {
    return this.#endpoint?.connectionCount ?? 0;
  }

  /**
   * Closes a socket of the embedded endpoint whose login ended (4009); whether it was connected
   * here. With hosted Pusher there is nothing to close here.
   */
  withdraw(socketId: string, why?: 'accessWithdrawn' | 'superseded'): boolean {
    return this.#endpoint?.withdraw(socketId, why) ?? false;
  }

  /** Whether a socket of the embedded endpoint is connected here (never, with hosted Pusher). */
  isConnected(socketId: string): boolean {
    return this.#endpoint?.isConnected(socketId) ?? false;
  }

  /** Takes a WebSocket upgrade for the embedded endpoint; false when it is not one. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.#endpoint?.handleUpgrade(request, socket, head) ?? false;
  }

  /**
   * Publishes `events` to the target from now on; `self` is where this instance listens (the
   * embedded target is its own events API).
   */
  publish(events: EventBus, self: { host: string; port: number; https: boolean }): Realtime {
    const publisher = new PusherRealtime(
      publisherOptions(this.options.credentials, this.options.target, self),
      (error, channel, event) =>
        this.options.log.warn({ err: error, channel, event }, 'publishing a realtime event failed'),
    );
    this.#publisher = publisher;
    this.#stopPublishing = publishDomainEvents(events, publisher);
    return publisher;
  }

  /** Stops publishing; resolves once what was published went out (before the server closes). */
  async drain(): Promise<void> {
    this.#stopPublishing?.();
    this.#stopPublishing = null;
    await this.#publisher?.idle();
  }

  /** Closes the endpoint (its sockets) and leaves the other instances. */
  async close(): Promise<void> {
    await this.drain();
    this.#fanned?.close();
    await this.#endpoint?.close();
  }
}
