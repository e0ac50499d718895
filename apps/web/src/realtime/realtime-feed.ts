/**
 * The signed-in user's realtime feed (issue 18): one connection through the {@link RealtimePort}
 * while a user is signed in in this tab, whose `agent-status` events update the query cache
 * (`agent-status-cache.ts`). It says whether it is connected, so the agent lists poll only while
 * it is not (`use-realtime.ts`). React reads it with `useSyncExternalStore`.
 *
 * The floor (issue 39) is read again on `floor-changed` and `agent-status`, a burst of them in one
 * read (`read-coalescer.ts`, {@link FLOOR_EVENTS_WINDOW_MS}); nothing is read where no floor is
 * shown (an agent's console hears the account channel too).
 */
import type { RealtimeSettings } from '@leadline/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { QUERY_KEYS } from '../api/queries';
import { FLOOR_EVENTS_WINDOW_MS } from '../constants';
import { errorMessage } from '../errors';
import type { Logger, Timers } from '../platform/platform';
import { applyAgentStatus } from './agent-status-cache';
import { ReadCoalescer } from './read-coalescer';
import type { RealtimeConnection, RealtimeConnectionState, RealtimePort } from './realtime-port';

/** The feed's state: `stopped` without a connection, else the connection's. */
export type RealtimeFeedState = 'stopped' | RealtimeConnectionState;

/** The collaborators of a {@link RealtimeFeed}. */
export interface RealtimeFeedOptions {
  readonly port: RealtimePort;
  readonly queryClient: QueryClient;
  readonly log: Logger;
  /** The floor's reads wait on these ({@link FLOOR_EVENTS_WINDOW_MS}). */
  readonly timers: Timers;
}

/** See the module comment. */
export class RealtimeFeed {
  readonly #options: RealtimeFeedOptions;
  #connection: RealtimeConnection | null = null;
  #stopWatching: (() => void) | null = null;
  #state: RealtimeFeedState = 'stopped';
  readonly #listeners = new Set<() => void>();
  /** Reads the floor again, once for a burst of events. */
  readonly #floorReads: ReadCoalescer;

  constructor(options: RealtimeFeedOptions) {
    this.#options = options;
    this.#floorReads = new ReadCoalescer({
      // Only an observed (shown) floor is fetched; a cached one is marked stale.
      read: () => options.queryClient.invalidateQueries({ queryKey: QUERY_KEYS.floor }),
      timers: options.timers,
      windowMs: FLOOR_EVENTS_WINDOW_MS,
      onError: (error) =>
        options.log.error(`Reading the floor again failed: ${errorMessage(error)}`),
    });
  }

  /** The state now (stable between changes). */
  readonly getSnapshot = (): RealtimeFeedState => this.#state;

  /** Subscribes to changes; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /**
   * Connects with the user's `settings` (closing an earlier connection). Without settings (a
   * server that sends none) the feed stays stopped and the lists keep polling.
   */
  start(settings: RealtimeSettings | null): void {
    this.stop();
    if (!settings) {
      this.#options.log.info('Realtime: the server sent no settings; agent lists are polled');
      return;
    }
    const { port, queryClient } = this.#options;
    const connection = port.connect(settings, {
      agentStatus: (event) => {
        applyAgentStatus(queryClient, event);
        this.#floorReads.request();
      },
      floorChanged: () => this.#floorReads.request(),
      // Events published before the account channel was (re)subscribed were missed: the
      // agent's own status (the phone registering as the console connects) and the lists'.
      subscribed: () => {
        if (this.#connection === connection) this.#refresh();
      },
    });
    this.#connection = connection;
    this.#stopWatching = connection.onStateChange((state) => {
      if (this.#connection === connection) this.#set(state);
    });
    this.#set(connection.state);
  }

  /** Closes the connection (logout, user change); the lists poll again. */
  stop(): void {
    const connection = this.#connection;
    this.#connection = null;
    this.#stopWatching?.();
    this.#stopWatching = null;
    connection?.close();
    this.#floorReads.stop();
    this.#set('stopped');
  }

  /** Reads again what events would have changed: the user (their own status) and the lists. */
  #refresh(): void {
    const { queryClient } = this.#options;
    void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.user });
    void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.agents });
    void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.teams });
    void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.floor });
  }

  #set(state: RealtimeFeedState): void {
    if (state === this.#state) return;
    this.#state = state;
    for (const listener of [...this.#listeners]) listener();
  }
}
