/**
 * The signalling client: one WebSocket to the gateway speaking PStream 1.6 (see
 * docs/signalling.md). It authenticates with `listen`, answers heartbeats, reconnects with
 * back-off when the socket drops, and re-sends `listen` (and `register` when registered) on
 * every reconnect. Incoming frames are parsed with the contract's schemas.
 *
 * ```
 * idle ──open──▶ connecting ──opened──▶ open ──dropped──▶ waiting ──retry──▶ connecting
 *   (any) ──destroy──▶ destroyed
 * ```
 */
import {
  GatewayMessage,
  encodeFrame,
  type ClientMessage,
  type GatewayPayload,
} from '@leadline/contracts/signalling';
import { StateMachine, TypedEmitter, type TransitionTable } from '@leadline/contracts/lib';
import { DEFAULT_BACKOFF, HEARTBEAT_TIMEOUT_MS, SDK_VERSION } from '../constants';
import { Backoff } from '../lib/backoff';
import { SOCKET_OPEN, type Platform, type SocketLike } from '../platform/platform';

type TransportState = 'idle' | 'connecting' | 'open' | 'waiting' | 'destroyed';
type TransportEvent = 'open' | 'opened' | 'dropped' | 'retry' | 'destroy';

const TRANSPORT_TABLE: TransitionTable<TransportState, TransportEvent> = {
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
  /** The socket opened (first time or after a reconnect). */
  transportOpen: [];
  /** The socket closed; the client will reconnect unless destroyed. */
  transportClose: [];
  /** A frame could not be understood (`type` is its `type` field, if it had one). */
  malformed: [type: string | null, reason: string];
};

type ClientType = ClientMessage['type'];
type ClientPayloadOf<T extends ClientType> = Extract<ClientMessage, { type: T }>['payload'];

/** The signalling client. */
export class PStreamClient extends TypedEmitter<PStreamEvents> {
  readonly #machine = new StateMachine<TransportState, TransportEvent>(
    'signalling',
    TRANSPORT_TABLE,
    'idle',
  );
  readonly #backoff: Backoff;
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
  ) {
    super();
    this.#backoff = new Backoff(DEFAULT_BACKOFF, () => platform.random());
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
    if (this.#machine.state !== 'idle') return;
    this.#machine.send('open');
    this.#connect();
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
   * Sends a call message: now if the socket is open, else queued until it is (except when the
   * client is destroyed). Returns false if it could not even be queued.
   */
  send<T extends Exclude<ClientType, 'listen' | 'register'>>(
    type: T,
    payload: ClientPayloadOf<T>,
  ): boolean {
    if (this.isDestroyed) return false;
    const frame = encodeFrame(type, payload);
    if (this.isOpen && this.#socket) this.#socket.send(frame);
    else this.#queue.push(frame);
    return true;
  }

  /** Drops the socket on purpose to reconnect (tests, network change). */
  reconnectNow(): void {
    if (this.#socket) this.#socket.close(4000, 'reconnect');
  }

  /** Closes for good. */
  destroy(): void {
    if (this.isDestroyed) return;
    this.#machine.send('destroy');
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
      reconnectTimeout: 0,
    };
  }

  #sendNow<T extends 'listen' | 'register'>(type: T, payload: ClientPayloadOf<T>): void {
    this.#socket?.send(encodeFrame(type, payload));
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
      this.emit('transportOpen');
    };
    socket.onmessage = (event) => {
      if (!current()) return;
      this.#armHeartbeat();
      if (typeof event.data !== 'string') return;
      if (event.data === '\n') {
        if (socket.readyState === SOCKET_OPEN) socket.send('\n');
        return;
      }
      this.#receive(event.data);
    };
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (!current()) return;
      this.#dropped();
    };
  }

  #receive(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.emit('malformed', null, 'not JSON');
      return;
    }
    const parsed = GatewayMessage.safeParse(json);
    if (!parsed.success) {
      const type = (json as { type?: unknown } | null)?.type;
      const issue = parsed.error.issues[0];
      this.emit(
        'malformed',
        typeof type === 'string' ? type : null,
        `${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim(),
      );
      return;
    }
    const frame = parsed.data;
    this.emit(frame.type, frame.payload);
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
    if (!this.#machine.can('dropped')) return;
    this.#machine.send('dropped');
    this.#attempt += 1;
    this.#clearTimers();
    this.#socket = null;
    this.emit('transportClose');
    this.#retryTimer = this.platform.clock.setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#machine.can('retry')) return;
      this.#machine.send('retry');
      this.#connect();
    }, this.#backoff.next());
  }

  #clearTimers(): void {
    const { clock } = this.platform;
    if (this.#heartbeat !== null) clock.clearTimeout(this.#heartbeat);
    if (this.#retryTimer !== null) clock.clearTimeout(this.#retryTimer);
    this.#heartbeat = null;
    this.#retryTimer = null;
  }
}
