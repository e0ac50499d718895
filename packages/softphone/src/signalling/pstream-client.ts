/**
 * The signalling client: one WebSocket to the gateway speaking PStream 1.6 (see
 * docs/signalling.md). It authenticates with `listen`, answers heartbeats, reconnects with
 * back-off when the socket drops, and re-sends `listen` (and `register` when registered) on
 * every reconnect. Incoming frames are checked against the contract (`gateway-frames.ts`).
 *
 * ```
 * idle ──open──▶ connecting ──opened──▶ open ──dropped──▶ waiting ──retry──▶ connecting
 *                    └────────dropped─────────────────────────▲
 *   (any) ──destroy──▶ destroyed
 * ```
 */
import type { ClientMessage, GatewayMessage, GatewayPayload } from '@leadline/contracts/signalling';
import { StateMachine, TypedEmitter, type TransitionTable } from '@leadline/contracts/lib';
import {
  CALL_SIGNALING_TIMEOUT_MS,
  DEFAULT_BACKOFF,
  HEARTBEAT_TIMEOUT_MS,
  PSTREAM_VERSION,
  SDK_VERSION,
} from '../constants';
import { Backoff } from '../lib/backoff';
import { SOCKET_OPEN, type Platform, type SocketLike } from '../platform/platform';
import { parseGatewayFrame } from './gateway-frames';

/** States of the transport. */
export type TransportState = 'idle' | 'connecting' | 'open' | 'waiting' | 'destroyed';
/** What moves the transport between states. */
export type TransportEvent = 'open' | 'opened' | 'dropped' | 'retry' | 'destroy';

/** The transport's transition table. */
export const TRANSPORT_TABLE: TransitionTable<TransportState, TransportEvent> = {
  idle: { open: 'connecting', destroy: 'destroyed' },
  connecting: { opened: 'open', dropped: 'waiting', destroy: 'destroyed' },
  open: { dropped: 'waiting', destroy: 'destroyed' },
  waiting: { retry: 'connecting', destroy: 'destroyed' },
  destroyed: {},
};

/** Events of the client: one per gateway message type, plus the transport's own. */
export type PStreamEvents = {
  [T in GatewayMessage['type']]: [payload: GatewayPayload<T>];
} & {
  /** The socket closed; the client will reconnect unless destroyed. */
  transportClose: [];
  /** A frame could not be understood (`type` is its `type` field, if it had one). */
  malformed: [type: string | null, reason: string];
};

type ClientType = ClientMessage['type'];
type ClientPayloadOf<T extends ClientType> = Extract<ClientMessage, { type: T }>['payload'];

/** Options of the client. */
export interface PStreamOptions {
  /** How long the gateway keeps a live call for a signalling reconnect (`listen.reconnectTimeout`). */
  maxCallSignalingTimeoutMs?: number;
}

/** Serialises one frame with the protocol version. */
const encode = (type: string, payload: unknown): string =>
  JSON.stringify({ type, version: PSTREAM_VERSION, payload });

/** The signalling client. */
export class PStreamClient extends TypedEmitter<PStreamEvents> {
  readonly #machine = new StateMachine<TransportState, TransportEvent>(
    'signalling',
    TRANSPORT_TABLE,
    'idle',
  );
  readonly #backoff: Backoff;
  readonly #reconnectTimeoutS: number;
  #socket: SocketLike | null = null;
  /** Identifies the current socket; callbacks of replaced sockets are dropped. */
  #attempt = 0;
  #token: string | null = null;
  #registered = false;
  #queue: string[] = [];
  #heartbeat: unknown = null;
  #retryTimer: unknown = null;

  constructor(
    readonly url: string,
    private readonly platform: Platform,
    options: PStreamOptions = {},
  ) {
    super();
    this.#backoff = new Backoff(DEFAULT_BACKOFF, () => platform.random());
    const timeoutMs = options.maxCallSignalingTimeoutMs ?? CALL_SIGNALING_TIMEOUT_MS;
    this.#reconnectTimeoutS = Math.min(Math.ceil(Math.max(0, timeoutMs) / 1000), 30);
  }

  /** The transport's state. */
  get state(): TransportState {
    return this.#machine.state;
  }

  /** Whether the socket is open now. */
  get isOpen(): boolean {
    return this.#machine.state === 'open';
  }

  /** Whether the client has been destroyed. */
  get isDestroyed(): boolean {
    return this.#machine.state === 'destroyed';
  }

  /** Opens the socket (once; later drops reconnect on their own). */
  open(): void {
    if (this.#machine.trySend('open')) this.#connect();
  }

  /** Sets the access token and sends `listen` (now if open, else on open). */
  setToken(token: string): void {
    this.#token = token;
    if (this.isOpen) this.#sendNow('listen', this.#listenPayload(token));
  }

  /** Sends presence: `register {media: {audio}}`; re-sent on reconnects while true. */
  register(audio: boolean): void {
    this.#registered = audio;
    if (this.isOpen) this.#sendNow('register', { media: { audio } });
  }

  /**
   * Sends a call message: now if the socket is open; otherwise it is queued until the socket
   * opens again when `queue` is set (the default), or dropped. Returns whether it was sent now.
   */
  send<T extends Exclude<ClientType, 'listen' | 'register'>>(
    type: T,
    payload: ClientPayloadOf<T>,
    queue = true,
  ): boolean {
    if (this.isDestroyed) return false;
    const frame = encode(type, payload);
    if (this.isOpen && this.#socket) {
      this.#socket.send(frame);
      return true;
    }
    if (queue) this.#queue.push(frame);
    return false;
  }

  /** Closes for good. */
  destroy(): void {
    if (!this.#machine.trySend('destroy')) return;
    this.#attempt += 1;
    this.#clearTimers();
    this.#socket?.close(1000, 'destroyed');
    this.#socket = null;
    this.#queue = [];
    this.emit('transportClose');
  }

  #listenPayload(token: string): ClientPayloadOf<'listen'> {
    return {
      token,
      browserinfo: {
        p: 'browser',
        v: SDK_VERSION,
        plugin: 'rtc',
        browser: { userAgent: this.platform.userAgent, platform: 'web' },
      },
      reconnectTimeout: this.#reconnectTimeoutS,
    };
  }

  #sendNow<T extends 'listen' | 'register'>(type: T, payload: ClientPayloadOf<T>): void {
    this.#socket?.send(encode(type, payload));
  }

  #connect(): void {
    const attempt = ++this.#attempt;
    const socket = this.platform.createSocket(this.url);
    this.#socket = socket;
    const current = () => attempt === this.#attempt;
    socket.onopen = () => {
      if (!current()) return;
      this.#machine.send('opened');
      this.#backoff.reset();
      this.#armHeartbeat();
      if (this.#token) this.#sendNow('listen', this.#listenPayload(this.#token));
      if (this.#registered) this.#sendNow('register', { media: { audio: true } });
      const queued = this.#queue;
      this.#queue = [];
      for (const frame of queued) socket.send(frame);
    };
    socket.onmessage = (event) => {
      if (!current()) return;
      this.#armHeartbeat();
      if (typeof event.data !== 'string') return;
      if (event.data === '\n') {
        if (socket.readyState === SOCKET_OPEN) socket.send('\n');
        return;
      }
      const parsed = parseGatewayFrame(event.data);
      if (!parsed.ok) this.emit('malformed', parsed.type, parsed.reason);
      else this.emit(parsed.frame.type, parsed.frame.payload);
    };
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (current()) this.#dropped();
    };
  }

  #armHeartbeat(): void {
    const { clock } = this.platform;
    if (this.#heartbeat !== null) clock.clearTimeout(this.#heartbeat);
    this.#heartbeat = clock.setTimeout(() => {
      this.#heartbeat = null;
      // Silence: the socket is dead even if the browser has not noticed.
      this.#socket?.close(4001, 'heartbeat timeout');
      this.#dropped();
    }, HEARTBEAT_TIMEOUT_MS);
  }

  #dropped(): void {
    if (!this.#machine.trySend('dropped')) return;
    this.#attempt += 1;
    this.#clearTimers();
    this.#socket = null;
    this.emit('transportClose');
    this.#retryTimer = this.platform.clock.setTimeout(() => {
      this.#retryTimer = null;
      if (this.#machine.trySend('retry')) this.#connect();
    }, this.#backoff.next());
  }

  #clearTimers(): void {
    const { clock } = this.platform;
    clock.clearTimeout(this.#heartbeat);
    clock.clearTimeout(this.#retryTimer);
    this.#heartbeat = null;
    this.#retryTimer = null;
  }
}
