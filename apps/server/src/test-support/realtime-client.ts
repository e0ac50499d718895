/**
 * The console's realtime client, headless: the unmodified pusher-js 8 in Node, built from the
 * `realtime` block of `GET /api/v1/user` as the console builds it, subscribed to the user's
 * presence channel and the account channel, keeping every `agent-status` and `floor-changed`
 * event it receives.
 *
 * One change to the options: Node's XMLHttpRequest may not send a Cookie header, so channel
 * auth goes through a `customHandler` that posts to the same endpoint with the session cookie
 * and the CSRF header the options name (a browser sends its cookie by itself).
 */
import PusherJs from 'pusher-js';
import {
  ACCOUNT_EVENTS,
  type AgentStatusEvent,
  type FloorChangedEvent,
  type UserResponse,
} from '@leadline/contracts';
import type { HttpSession } from './http-session';
import { REAL_WAIT_MS, waitUntil } from './wait-until';

/** An `agent-status` event and when it arrived (`performance.now()`). */
export type SeenStatus = AgentStatusEvent & { receivedAt: number };

/** A `floor-changed` event as it arrived: its data, exactly. */
export type SeenFloorChange = FloorChangedEvent;

/** A connected, subscribed realtime client. */
export interface RealtimeClient {
  /** The options the server gave (`realtime.options`). */
  settings: UserResponse['realtime'];
  /** Every `agent-status` event received, in order. */
  statuses: SeenStatus[];
  /** Members of the user's presence channel when it subscribed. */
  presenceCount: number;
  /**
   * Resolves with the first status event `match` accepts after the last one this returned
   * (events that arrived before the call count: nothing is missed between two calls).
   */
  nextStatus(match: (event: AgentStatusEvent) => boolean, timeoutMs?: number): Promise<SeenStatus>;
  /** Every `floor-changed` event received, in order. */
  floorChanges: SeenFloorChange[];
  /** As `nextStatus`, for `floor-changed` events. */
  nextFloorChange(
    match: (event: FloorChangedEvent) => boolean,
    timeoutMs?: number,
  ): Promise<SeenFloorChange>;
  /** pusher-js's connection state (`connected`; `disconnected` once the server refused it). */
  state(): string;
  close(): void;
}

/** Connects `session`'s realtime client through `base` (default: the session's product). */
export async function openRealtimeClient(
  session: HttpSession,
  base: string = session.baseUrl,
): Promise<RealtimeClient> {
  const me = await session.api<UserResponse>('GET', `/api/v1/user?time=${Date.now()}`);
  if (me.status !== 200) throw new Error(`GET /api/v1/user failed: ${me.status}`);
  const settings = me.body.realtime;
  const { endpoint, headers } = settings.options.channelAuthorization;
  const client = new PusherJs(settings.key, {
    ...settings.options,
    channelAuthorization: {
      endpoint,
      transport: 'ajax',
      customHandler: ({ socketId, channelName }, callback) => {
        fetch(new URL(endpoint, base), {
          method: 'POST',
          headers: {
            ...headers,
            cookie: session.cookie,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ socket_id: socketId, channel_name: channelName }),
        })
          .then(async (res) =>
            res.ok
              ? callback(null, (await res.json()) as { auth: string; channel_data?: string })
              : callback(new Error(`channel auth answered ${res.status}`), null),
          )
          .catch((error: unknown) => callback(error as Error, null));
      },
    },
  });
  const statuses: SeenStatus[] = [];
  const floorChanges: SeenFloorChange[] = [];
  const account = client.subscribe(settings.channels.account);
  account.bind(ACCOUNT_EVENTS.agentStatus, (event: AgentStatusEvent) =>
    statuses.push({ ...event, receivedAt: performance.now() }),
  );
  account.bind(ACCOUNT_EVENTS.floorChanged, (event: FloorChangedEvent) => floorChanges.push(event));
  const nextStatus = nextOf(statuses, 'an agent-status event');
  const nextFloorChange = nextOf(floorChanges, 'a floor-changed event');
  const subscribed = (name: string) =>
    new Promise<unknown>((resolve, reject) => {
      const channel = client.subscribe(name);
      channel.bind('pusher:subscription_succeeded', resolve);
      channel.bind('pusher:subscription_error', (error: unknown) =>
        reject(new Error(`subscribing to ${name} failed: ${JSON.stringify(error)}`)),
      );
    });
  try {
    const [members] = await Promise.all([
      subscribed(settings.channels.user),
      subscribed(settings.channels.account),
    ]);
    return {
      settings,
      statuses,
      presenceCount: (members as { count: number }).count,
      nextStatus,
      floorChanges,
      nextFloorChange,
      state: () => client.connection.state,
      close: () => client.disconnect(),
    };
  } catch (error) {
    client.disconnect();
    throw error;
  }
}

/**
 * Waits, in `events` as they arrive, for the first one `match` accepts after the last one it
 * returned (events that arrived before the call count: nothing is missed between two calls).
 */
function nextOf<E>(events: E[], what: string) {
  /** Events before this index were already taken. */
  let consumed = 0;
  return async (match: (event: E) => boolean, timeoutMs = REAL_WAIT_MS): Promise<E> => {
    const found = await waitUntil(
      () => {
        const index = events.findIndex((event, i) => i >= consumed && match(event));
        return index < 0 ? undefined : index;
      },
      what,
      timeoutMs,
      () => `received ${JSON.stringify(events.slice(consumed))}`,
    );
    consumed = found + 1;
    return events[found]!;
  };
}
