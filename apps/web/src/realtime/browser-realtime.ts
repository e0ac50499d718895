/**
 * The realtime port on the real `pusher-js` client. pusher-js is loaded on first use (its own
 * chunk: the console's first bundle stays small, and a console that never connects never loads
 * it). The options of `GET /api/v1/user` go to `new Pusher(key, options)` unchanged.
 */
import type {
  AgentStatusEvent,
  FloorChangedEvent,
  PresenceStatus,
  RealtimeSettings,
} from '@leadline/contracts';
import type PusherClient from 'pusher-js';
import { AGENT_STATUS_EVENT, FLOOR_CHANGED_EVENT } from '../constants';
import { errorMessage } from '../errors';
import type { Logger } from '../platform/platform';
import type {
  RealtimeConnection,
  RealtimeConnectionState,
  RealtimeHandlers,
  RealtimePort,
} from './realtime-port';

/** The pusher-js client class. */
export type PusherClass = typeof PusherClient;

/** Loads pusher-js (a dynamic import by default). */
export type PusherLoader = () => Promise<PusherClass>;

const loadPusher: PusherLoader = () => import('pusher-js').then((module) => module.default);

const STATES: ReadonlySet<string> = new Set<RealtimeConnectionState>([
  'initialized',
  'connecting',
  'connected',
  'unavailable',
  'failed',
  'disconnected',
]);

const PRESENCE_STATUSES: ReadonlySet<string> = new Set<PresenceStatus>([
  'available',
  'away',
  'on_call',
  'wrap_up',
  'offline',
]);

/** Whether `data` is an `agent-status` payload (the server's, checked before it reaches the cache). */
export function isAgentStatusEvent(data: unknown): data is AgentStatusEvent {
  if (typeof data !== 'object' || data === null) return false;
  const event = data as Record<string, unknown>;
  return (
    typeof event.user_id === 'number' &&
    typeof event.status === 'string' &&
    PRESENCE_STATUSES.has(event.status) &&
    typeof event.is_available === 'boolean' &&
    typeof event.at === 'string'
  );
}

/**
 * Whether `data` is a `floor-changed` payload. Only its shape: a reason this console does not
 * know yet is still a change of the floor.
 */
export function isFloorChangedEvent(data: unknown): data is FloorChangedEvent {
  if (typeof data !== 'object' || data === null) return false;
  const event = data as Record<string, unknown>;
  return (
    typeof event.call_id === 'number' &&
    typeof event.reason === 'string' &&
    typeof event.at === 'string'
  );
}

/** Creates the browser's {@link RealtimePort}; `load` replaces the dynamic import (tests). */
export function browserRealtime(log: Logger, load: PusherLoader = loadPusher): RealtimePort {
  return {
    connect: (settings, handlers) => new PusherConnection(settings, handlers, log, load),
  };
}

/** One pusher-js client, from loading the library to `disconnect()`. */
class PusherConnection implements RealtimeConnection {
  #state: RealtimeConnectionState = 'initialized';
  #client: PusherClient | null = null;
  #closed = false;
  readonly #listeners = new Set<(state: RealtimeConnectionState) => void>();
  readonly #handlers: RealtimeHandlers;
  readonly #log: Logger;

  constructor(
    settings: RealtimeSettings,
    handlers: RealtimeHandlers,
    log: Logger,
    load: PusherLoader,
  ) {
    this.#handlers = handlers;
    this.#log = log;
    load().then(
      (Pusher) => this.#open(Pusher, settings),
      (error: unknown) => {
        if (this.#closed) return;
        this.#log.error(`Loading the realtime client failed: ${errorMessage(error)}`);
        this.#set('failed');
      },
    );
  }

  get state(): RealtimeConnectionState {
    return this.#state;
  }

  onStateChange(listener: (state: RealtimeConnectionState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    const client = this.#client;
    this.#client = null;
    client?.disconnect();
  }

  #open(Pusher: PusherClass, settings: RealtimeSettings): void {
    // Closed while pusher-js was loading: nothing to connect.
    if (this.#closed) return;
    let client: PusherClient;
    try {
      client = new Pusher(settings.key, settings.options);
    } catch (error) {
      this.#log.error(`Starting the realtime client failed: ${errorMessage(error)}`);
      this.#set('failed');
      return;
    }
    this.#client = client;
    client.connection.bind('state_change', (change: { current: string }) => {
      if (this.#closed || !STATES.has(change.current)) return;
      this.#set(change.current as RealtimeConnectionState);
    });
    client.connection.bind('error', (error: unknown) => {
      if (!this.#closed) this.#log.error(`Realtime connection error: ${describe(error)}`);
    });

    const { user, account } = settings.channels;
    // Spec: the user's presence channel is joined and its result only logged.
    const presence = client.subscribe(user);
    presence.bind('pusher:subscription_succeeded', () =>
      this.#log.info(`Realtime: subscribed to ${user}`),
    );
    presence.bind('pusher:subscription_error', (error: unknown) =>
      this.#log.error(`Realtime: subscribing to ${user} failed: ${describe(error)}`),
    );

    const accountChannel = client.subscribe(account);
    accountChannel.bind('pusher:subscription_succeeded', () => {
      if (!this.#closed) this.#handlers.subscribed();
    });
    accountChannel.bind('pusher:subscription_error', (error: unknown) =>
      this.#log.error(`Realtime: subscribing to ${account} failed: ${describe(error)}`),
    );
    accountChannel.bind(AGENT_STATUS_EVENT, (data: unknown) => {
      if (this.#closed) return;
      if (!isAgentStatusEvent(data)) {
        this.#log.error(`Realtime: ignored a malformed ${AGENT_STATUS_EVENT} event`);
        return;
      }
      this.#handlers.agentStatus(data);
    });
    accountChannel.bind(FLOOR_CHANGED_EVENT, (data: unknown) => {
      if (this.#closed) return;
      if (!isFloorChangedEvent(data)) {
        this.#log.error(`Realtime: ignored a malformed ${FLOOR_CHANGED_EVENT} event`);
        return;
      }
      this.#handlers.floorChanged(data);
    });
    const now = client.connection.state;
    if (STATES.has(now)) this.#set(now as RealtimeConnectionState);
  }

  #set(state: RealtimeConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    for (const listener of [...this.#listeners]) listener(state);
  }
}

/** A pusher-js error (`{ type, error, status }` or an Error) as one line. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
