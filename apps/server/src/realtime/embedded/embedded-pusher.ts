/**
 * The embedded Pusher-protocol endpoint: the WebSocket path `/app/{key}` pusher-js connects to
 * (`wsHost`/`wsPort`, `enabledTransports: ['ws']`), on the server's own port. It hands out
 * socket ids, owns the channel registry, and delivers events published through the HTTP events
 * API (`events-api.ts`). One process's subscribers only; see docs/realtime.md.
 */
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PusherCredentials } from '../pusher-auth';
import { ChannelRegistry } from './channels';
import {
  ACTIVITY_TIMEOUT_S,
  AUTH_DEADLINE_S,
  MAX_FRAME_BYTES,
  PONG_TIMEOUT_MS,
  PUSHER_APP_PATH_PREFIX,
  SUPPORTED_PROTOCOLS,
} from './constants';
import { PusherConnection, type Timers } from './connection';
import { eventFrame } from './frames';

/** Options of the endpoint; all but the credentials have the spec's defaults. */
export interface EmbeddedPusherOptions {
  credentials: Pick<PusherCredentials, 'key' | 'secret'>;
  activityTimeoutS?: number;
  pongTimeoutMs?: number;
  /** Default `AUTH_DEADLINE_S` (in seconds). */
  authDeadlineS?: number;
  maxFrameBytes?: number;
  timers?: Timers;
  /** Hears members arrive on and leave presence channels (first and last socket). */
  onPresence?: (channel: string, userId: string, present: boolean) => void;
  /** Hears a socket close, whatever closed it. */
  onSocketClosed?: (socketId: string) => void;
}

/** One event to deliver: to each channel's subscribers but the excluded socket. */
export interface PusherDelivery {
  channels: readonly string[];
  event: string;
  /** The event's data, already a string (as the HTTP API carries it). */
  data: string;
  /** The socket that caused the event, which does not receive it. */
  exceptSocketId?: string | undefined;
}

const SOCKET_ID_PART_MAX = 1_000_000_000;

/** The endpoint: call `handleUpgrade` from the HTTP server's `upgrade` event. */
export class EmbeddedPusher {
  readonly #credentials: Pick<PusherCredentials, 'key' | 'secret'>;
  readonly #activityTimeoutS: number;
  readonly #pongTimeoutMs: number;
  readonly #authDeadlineS: number;
  readonly #timers: Timers;
  readonly #wss: WebSocketServer;
  readonly #channels: ChannelRegistry;
  readonly #connections = new Map<string, PusherConnection>();
  readonly #onSocketClosed: ((socketId: string) => void) | undefined;

  constructor(options: EmbeddedPusherOptions) {
    this.#credentials = options.credentials;
    this.#onSocketClosed = options.onSocketClosed;
    this.#channels = new ChannelRegistry(options.onPresence);
    this.#activityTimeoutS = options.activityTimeoutS ?? ACTIVITY_TIMEOUT_S;
    this.#pongTimeoutMs = options.pongTimeoutMs ?? PONG_TIMEOUT_MS;
    this.#authDeadlineS = options.authDeadlineS ?? AUTH_DEADLINE_S;
    this.#timers = options.timers ?? {
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxFrameBytes ?? MAX_FRAME_BYTES,
      perMessageDeflate: false,
    });
  }

  /** Whether `path` (without its query) is this endpoint's, `/app/{anything}`. */
  static matches(path: string): boolean {
    return path.startsWith(PUSHER_APP_PATH_PREFIX);
  }

  /**
   * Takes the upgrade when the request is for `/app/{key}`; returns false otherwise. An unknown
   * key or protocol version is accepted and then closed with the protocol's code (4001, 4007),
   * which pusher-js reads as "do not retry".
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const target = parseTarget(request.url);
    if (!target) return false;
    const { key, protocol } = target;
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = this.#accept(ws);
      if (key !== this.#credentials.key) return connection.fail('appNotFound');
      if (protocol !== null && !SUPPORTED_PROTOCOLS.includes(Number(protocol))) {
        return connection.fail('unsupportedProtocol');
      }
      connection.send(
        eventFrame('pusher:connection_established', {
          socket_id: connection.socketId,
          activity_timeout: this.#activityTimeoutS,
        }),
      );
    });
    return true;
  }

  /** Delivers an event to the subscribers of its channels. */
  publish(delivery: PusherDelivery): void {
    for (const channel of delivery.channels) {
      const frame = eventFrame(delivery.event, delivery.data, channel);
      for (const subscriber of this.#channels.subscribersOf(channel)) {
        if (subscriber.socketId !== delivery.exceptSocketId) subscriber.send(frame);
      }
    }
  }

  /** Cuts one socket (as a network loss would); returns whether it was connected. */
  disconnect(socketId: string): boolean {
    const connection = this.#connections.get(socketId);
    connection?.terminate();
    return connection !== undefined;
  }

  /**
   * Withdraws a socket's access (its login ended, or `superseded`: the login let in too many
   * sockets since): `pusher:error` 4009, then closed with 4009, which pusher-js takes as "do not
   * reconnect". Returns whether it was connected here.
   */
  withdraw(socketId: string, why: 'accessWithdrawn' | 'superseded' = 'accessWithdrawn'): boolean {
    const connection = this.#connections.get(socketId);
    connection?.fail(why);
    return connection !== undefined;
  }

  /** Whether the socket is connected here. */
  isConnected(socketId: string): boolean {
    return this.#connections.has(socketId);
  }

  /** How many sockets are connected. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Closes every socket. */
  close(): Promise<void> {
    for (const connection of this.#connections.values()) connection.terminate();
    return new Promise((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(ws: WebSocket): PusherConnection {
    const connection = new PusherConnection({
      socketId: this.#newSocketId(),
      ws,
      credentials: this.#credentials,
      channels: this.#channels,
      timers: this.#timers,
      activityTimeoutMs: this.#activityTimeoutS * 1000,
      pongTimeoutMs: this.#pongTimeoutMs,
      authDeadlineMs: this.#authDeadlineS * 1000,
      onClosed: (closed) => {
        this.#connections.delete(closed.socketId);
        this.#onSocketClosed?.(closed.socketId);
      },
    });
    this.#connections.set(connection.socketId, connection);
    return connection;
  }

  #newSocketId(): string {
    for (;;) {
      const id = `${randomInt(SOCKET_ID_PART_MAX)}.${randomInt(SOCKET_ID_PART_MAX)}`;
      if (!this.#connections.has(id)) return id;
    }
  }
}

/** The key and protocol of an `/app/{key}?protocol=N` request; undefined for any other URL. */
function parseTarget(
  requestUrl: string | undefined,
): { key: string; protocol: string | null } | undefined {
  // A raw request line can hold anything: a URL that does not parse is simply not ours.
  if (requestUrl === undefined || !URL.canParse(requestUrl, 'http://localhost')) return undefined;
  const url = new URL(requestUrl, 'http://localhost');
  if (!EmbeddedPusher.matches(url.pathname)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.slice(PUSHER_APP_PATH_PREFIX.length));
  } catch {
    key = '';
  }
  return { key, protocol: url.searchParams.get('protocol') };
}
