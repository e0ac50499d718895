/**
 * The shared test double of {@link RealtimePort}: every `connect` is recorded as a
 * {@link FakeRealtimeConnection} whose state a test sets and through which it publishes
 * `agent-status` and `floor-changed` events, as the realtime service would. A new connection
 * starts `connecting` (the console polls its lists until a test says `connected`).
 */
import type { AgentStatusEvent, FloorChangedEvent, RealtimeSettings } from '@leadline/contracts';
import type {
  RealtimeConnection,
  RealtimeConnectionState,
  RealtimeHandlers,
  RealtimePort,
} from '../realtime/realtime-port';

/** A connection of {@link FakeRealtime}. */
export class FakeRealtimeConnection implements RealtimeConnection {
  readonly settings: RealtimeSettings;
  readonly #handlers: RealtimeHandlers;
  readonly #listeners = new Set<(state: RealtimeConnectionState) => void>();
  #state: RealtimeConnectionState = 'connecting';
  #closed = false;

  constructor(settings: RealtimeSettings, handlers: RealtimeHandlers) {
    this.settings = settings;
    this.#handlers = handlers;
  }

  get state(): RealtimeConnectionState {
    return this.#state;
  }

  /** Whether the console closed it. */
  get closed(): boolean {
    return this.#closed;
  }

  onStateChange(listener: (state: RealtimeConnectionState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }

  /** The service's side: the connection is now in `state` (listeners hear it unless closed). */
  setState(state: RealtimeConnectionState): void {
    if (this.#closed || state === this.#state) return;
    this.#state = state;
    for (const listener of [...this.#listeners]) listener(state);
  }

  /** The service's side: the account channel's subscription succeeded. */
  subscriptionSucceeded(): void {
    if (this.#closed) throw new Error('the connection is closed');
    this.#handlers.subscribed();
  }

  /** The service's side: publishes `agent-status` on the account channel. */
  publishAgentStatus(event: AgentStatusEvent): void {
    if (this.#closed) throw new Error('the connection is closed');
    this.#handlers.agentStatus(event);
  }

  /** The service's side: publishes `floor-changed` on the account channel. */
  publishFloorChanged(event: FloorChangedEvent): void {
    if (this.#closed) throw new Error('the connection is closed');
    this.#handlers.floorChanged(event);
  }
}

/** See the module comment. */
export class FakeRealtime implements RealtimePort {
  /** Every connection opened, in order. */
  readonly connections: FakeRealtimeConnection[] = [];

  connect(settings: RealtimeSettings, handlers: RealtimeHandlers): FakeRealtimeConnection {
    const connection = new FakeRealtimeConnection(settings, handlers);
    this.connections.push(connection);
    return connection;
  }

  /** The last connection opened, which must still be open. */
  get current(): FakeRealtimeConnection {
    const last = this.connections.at(-1);
    if (!last || last.closed) throw new Error('no open realtime connection');
    return last;
  }
}
