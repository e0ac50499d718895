/**
 * One client's signalling socket: parses PStream frames, authenticates with `listen`, tracks
 * registration, keeps the socket alive with heartbeats, and hands call messages to the gateway.
 * A socket that is not authenticated within {@link AUTH_DEADLINE_MS} of opening (or of its
 * token expiring) is closed with {@link AUTH_DEADLINE_CLOSE}: an anonymous socket holds nothing
 * here for long.
 *
 * ```
 *   open ──authenticate──▶ listening ──register──▶ registered
 *    ▲                        │   ▲                   │
 *    └──────expire────────────┘   └────unregister─────┘
 *   (any) ──close──▶ closed
 * ```
 */
import type { WebSocket } from 'ws';
import {
  ClientMessage,
  encodeFrame,
  PSTREAM_VERSION,
  SignallingErrorCode,
  type GatewayMessage,
  type WireError,
} from '@leadline/contracts/signalling';
import { StateMachine, type TransitionTable } from '@leadline/contracts/lib';
import type { Clock } from './clock';
import {
  AUTH_DEADLINE_CLOSE,
  AUTH_DEADLINE_MS,
  GATEWAY_REGION,
  HEARTBEAT_INTERVAL_MS,
  MAX_FRAME_BYTES,
  SOCKET_IDLE_TIMEOUT_MS,
} from './gateway-constants';

type SessionState = 'open' | 'listening' | 'registered' | 'closed';
type SessionEvent = 'authenticate' | 'register' | 'unregister' | 'expire' | 'close';

const SESSION_TABLE: TransitionTable<SessionState, SessionEvent> = {
  open: { authenticate: 'listening', close: 'closed' },
  listening: {
    authenticate: 'listening',
    register: 'registered',
    unregister: 'listening',
    expire: 'open',
    close: 'closed',
  },
  registered: {
    authenticate: 'registered',
    register: 'registered',
    unregister: 'listening',
    expire: 'open',
    close: 'closed',
  },
  closed: {},
};

/**
 * Result of checking an access token. `session` names the login the token was issued to (opaque
 * to the gateway): the owner withdraws a session's sockets when it ends (`revoke`).
 */
export type TokenCheck =
  | { ok: true; identity: string; expiresAt: number; session?: string | undefined }
  | { ok: false; reason: 'expired' | 'invalid' };

/** The call-level frames a session forwards to the gateway. */
export type CallFrame = Extract<
  ClientMessage,
  { type: 'invite' | 'answer' | 'reinvite' | 'dtmf' | 'hangup' | 'reject' | 'message' }
>;

/** What a session needs from the gateway. */
export interface SessionHost {
  verifyToken(token: string): Promise<TokenCheck>;
  sessionRegistered(session: ClientSession): void;
  sessionUnregistered(session: ClientSession): void;
  sessionClosed(session: ClientSession): void;
  callFrame(session: ClientSession, frame: CallFrame): Promise<void>;
}

const TOKEN_ERRORS: Record<'expired' | 'invalid', WireError> = {
  expired: { code: SignallingErrorCode.AccessTokenExpired, message: 'JWT Token Expired' },
  invalid: { code: SignallingErrorCode.AccessTokenInvalid, message: 'Invalid Access Token' },
};

let nextSessionId = 1;

/** One signalling socket. */
export class ClientSession {
  /** Unique for the process. */
  readonly id = `s${nextSessionId++}`;
  #identity: string | null = null;
  #accessSession: string | undefined;
  readonly #machine = new StateMachine<SessionState, SessionEvent>(
    'session',
    SESSION_TABLE,
    'open',
  );
  #queue: Promise<void> = Promise.resolve();
  #lastFrameAt: number;
  readonly #heartbeat: unknown;
  #expiry: unknown = null;
  /** Closes the socket unless it authenticates first; null while authenticated. */
  #authDeadline: unknown = null;

  constructor(
    private readonly socket: WebSocket,
    private readonly host: SessionHost,
    private readonly clock: Clock,
  ) {
    this.#lastFrameAt = clock.now();
    socket.on('message', (data, isBinary) => {
      this.#lastFrameAt = this.clock.now();
      if (isBinary) return this.#sendError(null, 'Binary frames are not part of PStream.');
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Buffer.concat(data as Buffer[]).toString('utf8');
      // Heartbeat: answered by the heartbeat timer's own frames; nothing else to do.
      if (text === '\n') return;
      this.#queue = this.#queue
        .then(() => this.#handle(text))
        .catch((error: unknown) => {
          this.#sendError(
            null,
            `Gateway failed to handle a ${text.slice(0, 20)}… frame: ${String(error)}`,
          );
        });
    });
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
    this.#heartbeat = clock.setInterval(() => this.#beat(), HEARTBEAT_INTERVAL_MS);
    this.#armAuthDeadline();
  }

  /** The socket's largest accepted frame, for the WebSocket server's `maxPayload`. */
  static readonly maxFrameBytes = MAX_FRAME_BYTES;

  /** The authenticated identity, or null before a valid `listen`. */
  get identity(): string | null {
    return this.#machine.state === 'listening' || this.#machine.state === 'registered'
      ? this.#identity
      : null;
  }

  /** The login session the socket's token was issued to, once authenticated. */
  get accessSession(): string | undefined {
    return this.identity === null ? undefined : this.#accessSession;
  }

  /** Whether the device receives incoming calls. */
  get registered(): boolean {
    return this.#machine.state === 'registered';
  }

  /** Whether the socket is gone. */
  get closed(): boolean {
    return this.#machine.state === 'closed';
  }

  /** Sends one frame; false when the socket is gone. */
  send<T extends GatewayMessage['type']>(
    type: T,
    payload: Extract<GatewayMessage, { type: T }>['payload'],
  ): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    this.socket.send(encodeFrame(type, payload));
    return true;
  }

  /** Closes the socket and forgets the session. */
  close(): void {
    if (this.closed) return;
    // Told while the session still has its identity (a closed session has none): a registered
    // device whose socket closes goes offline.
    if (this.registered) this.host.sessionUnregistered(this);
    this.#machine.send('close');
    this.clock.clearInterval(this.#heartbeat);
    if (this.#expiry !== null) this.clock.clearTimeout(this.#expiry);
    this.#clearAuthDeadline();
    this.host.sessionClosed(this);
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000);
  }

  /**
   * Access withdrawn (the login session ended): the client is told why (31204, as for a token
   * that is no longer valid) and the socket is closed.
   */
  revoke(message: string): void {
    if (this.closed) return;
    this.send('error', { error: { code: SignallingErrorCode.AccessTokenInvalid, message } });
    this.close();
  }

  #beat(): void {
    if (this.clock.now() - this.#lastFrameAt > SOCKET_IDLE_TIMEOUT_MS) {
      this.socket.terminate();
      this.close();
      return;
    }
    if (this.socket.readyState === this.socket.OPEN) this.socket.send('\n');
  }

  #sendError(
    callsid: string | null,
    message: string,
    code: number = SignallingErrorCode.BadRequest,
  ): void {
    this.send(
      'error',
      callsid ? { callsid, error: { code, message } } : { error: { code, message } },
    );
  }

  async #handle(text: string): Promise<void> {
    if (this.closed) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.#sendError(null, 'Malformed message: not JSON.');
    }
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      const type = (json as { type?: unknown } | null)?.type;
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || 'type';
      return this.#sendError(
        null,
        `Malformed ${typeof type === 'string' ? `'${type}'` : ''} message: ${where} ${issue?.message ?? 'is invalid'}.`.replace(
          '  ',
          ' ',
        ),
      );
    }
    const frame = parsed.data;
    if (frame.version !== PSTREAM_VERSION) {
      return this.#sendError(
        null,
        `Unsupported PStream version ${frame.version}; this gateway speaks ${PSTREAM_VERSION}.`,
      );
    }
    switch (frame.type) {
      case 'listen':
        return this.#listen(frame.payload.token);
      case 'register':
        return this.#register(frame.payload.media?.audio !== false);
      default:
        if (!this.identity) {
          this.send('error', {
            callsid: 'callsid' in frame.payload ? frame.payload.callsid : undefined,
            error: TOKEN_ERRORS.invalid,
          });
          return;
        }
        return this.host.callFrame(this, frame);
    }
  }

  async #listen(token: string): Promise<void> {
    const check = await this.host.verifyToken(token);
    if (this.closed) return;
    if (!check.ok) {
      this.send('error', { error: TOKEN_ERRORS[check.reason] });
      return;
    }
    if (this.#identity !== null && this.#identity !== check.identity && this.registered) {
      // A token for someone else: the old identity stops receiving calls here.
      this.#machine.send('unregister');
      this.host.sessionUnregistered(this);
    }
    this.#identity = check.identity;
    this.#accessSession = check.session;
    this.#machine.send('authenticate');
    this.#clearAuthDeadline();
    this.#scheduleExpiry(check.expiresAt);
    const ttl = Math.max(0, Math.floor(check.expiresAt - this.clock.now() / 1000));
    this.send('connected', {
      region: GATEWAY_REGION,
      edge: GATEWAY_REGION,
      home: GATEWAY_REGION,
      token: { identity: check.identity, ttl },
    });
  }

  #scheduleExpiry(expiresAtSeconds: number): void {
    if (this.#expiry !== null) this.clock.clearTimeout(this.#expiry);
    const delay = Math.max(0, expiresAtSeconds * 1000 - this.clock.now());
    this.#expiry = this.clock.setTimeout(() => {
      this.#expiry = null;
      if (this.closed) return;
      const wasRegistered = this.registered;
      this.#machine.send('expire');
      this.#armAuthDeadline();
      this.send('error', { error: TOKEN_ERRORS.expired });
      if (wasRegistered) {
        this.send('offline', {});
        this.host.sessionUnregistered(this);
      }
    }, delay);
  }

  /** Closes the socket if it is still not authenticated after {@link AUTH_DEADLINE_MS}. */
  #armAuthDeadline(): void {
    this.#clearAuthDeadline();
    this.#authDeadline = this.clock.setTimeout(() => {
      this.#authDeadline = null;
      if (this.closed || this.identity !== null) return;
      const { code, reason } = AUTH_DEADLINE_CLOSE;
      if (this.socket.readyState === this.socket.OPEN) this.socket.close(code, reason);
      this.close();
    }, AUTH_DEADLINE_MS);
  }

  #clearAuthDeadline(): void {
    if (this.#authDeadline !== null) this.clock.clearTimeout(this.#authDeadline);
    this.#authDeadline = null;
  }

  #register(audio: boolean): void {
    if (!this.identity) {
      this.send('error', { error: TOKEN_ERRORS.invalid });
      return;
    }
    const was = this.registered;
    if (audio) {
      this.#machine.send('register');
      this.send('ready', {});
      if (!was) this.host.sessionRegistered(this);
    } else {
      this.#machine.send('unregister');
      this.send('offline', {});
      if (was) this.host.sessionUnregistered(this);
    }
  }
}
