/**
 * What the console needs from the realtime service (the Pusher protocol, spec section 9 and
 * issue 18): connect with the `realtime` settings of `GET /api/v1/user`, join the user's presence
 * channel and the account's channel, hear `agent-status` and `floor-changed`, and say whether it
 * is connected. The logic receives a {@link RealtimePort}; only `browser-realtime.ts` loads
 * pusher-js, and `test-support/fake-realtime.ts` is the shared test double.
 */
import type { AgentStatusEvent, FloorChangedEvent, RealtimeSettings } from '@leadline/contracts';

/**
 * The connection's state, as pusher-js names it: `initialized` and `connecting` before the first
 * connection, `connected`, `unavailable` while it retries (network lost, server unreachable),
 * `failed` where the browser has no usable transport, `disconnected` once closed.
 */
export type RealtimeConnectionState =
  'initialized' | 'connecting' | 'connected' | 'unavailable' | 'failed' | 'disconnected';

/** What the account channel tells the console. */
export interface RealtimeHandlers {
  /** An agent of the account changed status (`agent-status`). */
  agentStatus(event: AgentStatusEvent): void;
  /** A call of the account moved on the floor (`floor-changed`): the floor is out of date. */
  floorChanged(event: FloorChangedEvent): void;
  /**
   * The account channel's subscription succeeded (again, after a reconnect): its events arrive
   * from now on, and any published before were missed.
   */
  subscribed(): void;
}

/** One open realtime connection. */
export interface RealtimeConnection {
  /** The state now. */
  readonly state: RealtimeConnectionState;
  /** Calls `listener` after every state change; returns the unsubscribe. */
  onStateChange(listener: (state: RealtimeConnectionState) => void): () => void;
  /** Leaves the channels and closes the connection; no handler is called afterwards. */
  close(): void;
}

/** Opens realtime connections. */
export interface RealtimePort {
  /**
   * Connects with `settings` (`new Pusher(settings.key, settings.options)`), subscribes to
   * `settings.channels.user` (presence; the result is only logged) and `settings.channels.account`
   * and calls `handlers` for the account's events.
   */
  connect(settings: RealtimeSettings, handlers: RealtimeHandlers): RealtimeConnection;
}
