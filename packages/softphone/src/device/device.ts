/**
 * The softphone device, with the official Voice SDK's public surface: `new Device(token,
 * options)`, `register`, `unregister`, `connect`, `updateToken`, `destroy`, and the events
 * `registering`, `registered`, `unregistered`, `incoming`, `tokenWillExpire`, `error`,
 * `destroyed`.
 */
import { StateMachine, TypedEmitter } from '@leadline/contracts/lib';
import type { GatewayPayload } from '@leadline/contracts/signalling';
import { REGISTRATION_INTERVAL_MS, TOKEN_REFRESH_MARGIN_MS } from '../constants';
import {
  createError,
  InvalidArgumentError,
  InvalidStateError,
  type SoftphoneError,
} from '../errors/errors';
import { browserPlatform, type Platform } from '../platform/platform';
import { PStreamClient } from '../signalling/pstream-client';
import { Call, CallDirection } from '../call/call';
import { DEVICE_TABLE, DeviceState, type DeviceTransition } from './device-states';

export { DeviceState };

/** Options of a device (the official SDK's names where they exist). */
export interface DeviceOptions {
  /**
   * The signalling gateway: `host[:port]` (the page's scheme picks ws/wss) or a full
   * `ws(s)://…/signal` URL. Default: the page's own host.
   */
  chunderw?: string;
  /** How long before the token expires `tokenWillExpire` fires (default 10,000 ms). */
  tokenRefreshMs?: number;
  /** Passed to every call's RTCPeerConnection (default: no ICE servers). */
  rtcConfiguration?: RTCConfiguration;
  /** The environment; the browser's by default. */
  platform?: Platform;
}

/** Events of a device and their arguments. */
export type DeviceEvents = {
  registering: [];
  registered: [];
  unregistered: [];
  /** An incoming call is ringing (its parameters carry `CallSid`, `From`, `To`). */
  incoming: [call: Call];
  /** The token expires in `tokenRefreshMs`: fetch a new one and call `updateToken`. */
  tokenWillExpire: [device: Device];
  error: [error: SoftphoneError, call?: Call];
  destroyed: [];
};

/** Options of `connect`. */
export interface ConnectOptions {
  /** Connect params, sent to the gateway (e.g. `To`, `call_user_id`). */
  params?: Record<string, string>;
  rtcConfiguration?: RTCConfiguration;
}

const INVALID_TOKEN_MESSAGE = 'Parameter "token" must be of type "string".';

let outboundCounter = 0;

/** The softphone device. */
export class Device extends TypedEmitter<DeviceEvents> {
  /** The device's states. */
  static readonly State = DeviceState;

  readonly #machine = new StateMachine<DeviceState, DeviceTransition>(
    'device',
    DEVICE_TABLE,
    'unregistered',
  );
  readonly #platform: Platform;
  readonly #options: Required<Pick<DeviceOptions, 'tokenRefreshMs' | 'rtcConfiguration'>> &
    DeviceOptions;
  #token: string;
  #identity: string | null = null;
  #stream: PStreamClient | null = null;
  #activeCall: Call | null = null;
  #registrationTimer: unknown = null;
  #tokenTimer: unknown = null;
  /** Whether the user asked to be registered (re-registration after a reconnect). */
  #wantsRegistration = false;

  constructor(token: string, options: DeviceOptions = {}) {
    super();
    if (typeof token !== 'string') throw new InvalidArgumentError(INVALID_TOKEN_MESSAGE);
    this.#token = token;
    this.#platform = options.platform ?? browserPlatform();
    this.#options = {
      tokenRefreshMs: TOKEN_REFRESH_MARGIN_MS,
      rtcConfiguration: { iceServers: [] },
      ...options,
    };
  }

  /** The current state. */
  get state(): DeviceState {
    return this.#machine.state;
  }

  /** The identity the gateway confirmed. */
  get identity(): string | null {
    return this.#identity;
  }

  /** The current token. */
  get token(): string {
    return this.#token;
  }

  /** Whether a call is in progress. */
  get isBusy(): boolean {
    return this.#activeCall !== null;
  }

  /** The calls in progress (at most one). */
  get calls(): Call[] {
    return this.#activeCall ? [this.#activeCall] : [];
  }

  /** Registers for incoming calls; resolves once registered. */
  async register(): Promise<void> {
    this.#throwIfDestroyed();
    if (this.state !== DeviceState.Unregistered) {
      throw new InvalidStateError(
        `Attempt to register when device is in state "${this.state}". Must be "${DeviceState.Unregistered}".`,
      );
    }
    this.#wantsRegistration = true;
    this.#transition('register');
    this.emit('registering');
    const stream = this.#ensureStream();
    const settled = new Promise<void>((resolve) => {
      const offs = [
        this.once('registered', done),
        this.once('unregistered', done),
        this.once('destroyed', done),
      ];
      function done() {
        offs.forEach((off) => off());
        resolve();
      }
    });
    stream.register(true);
    await settled;
  }

  /** Stops receiving incoming calls; resolves once the gateway confirmed. */
  async unregister(): Promise<void> {
    this.#throwIfDestroyed();
    if (this.state !== DeviceState.Registered) {
      throw new InvalidStateError(
        `Attempt to unregister when device is in state "${this.state}". Must be "${DeviceState.Registered}".`,
      );
    }
    this.#wantsRegistration = false;
    this.#stopRegistrationTimer();
    const stream = this.#ensureStream();
    const offline = new Promise<void>((resolve) => stream.once('offline', () => resolve()));
    stream.register(false);
    await offline;
  }

  /** Replaces the access token (re-sends `listen`). */
  updateToken(token: string): void {
    this.#throwIfDestroyed();
    if (typeof token !== 'string') throw new InvalidArgumentError(INVALID_TOKEN_MESSAGE);
    this.#token = token;
    this.#stream?.setToken(token);
  }

  /** Places an outgoing call. */
  async connect(options: ConnectOptions = {}): Promise<Call> {
    this.#throwIfDestroyed();
    if (this.#activeCall) throw new InvalidStateError('A Call is already active');
    const stream = this.#ensureStream();
    const call = new Call({
      direction: CallDirection.Outgoing,
      platform: this.#platform,
      stream,
      rtcConfiguration: options.rtcConfiguration ?? this.#options.rtcConfiguration,
      parameters: options.params ?? {},
      outboundConnectionId: `TJSxxxxxxxx-${Date.now().toString(16)}-${++outboundCounter}`,
      onClosed: () => this.#onCallClosed(call),
    });
    this.#activeCall = call;
    call.on('error', (error) => this.emit('error', error, call));
    void call.placeOutgoing();
    return call;
  }

  /** Hangs up every call. */
  disconnectAll(): void {
    this.#activeCall?.disconnect();
  }

  /** Ends the device: calls hang up, the socket closes; nothing works afterwards. */
  destroy(): void {
    if (this.state === DeviceState.Destroyed) return;
    this.disconnectAll();
    this.#stopRegistrationTimer();
    if (this.#tokenTimer !== null) this.#platform.clock.clearTimeout(this.#tokenTimer);
    this.#stream?.destroy();
    this.#stream = null;
    this.#transition('destroy');
    this.emit('destroyed');
  }

  #throwIfDestroyed(): void {
    if (this.state === DeviceState.Destroyed)
      throw new InvalidStateError('Device has been destroyed.');
  }

  #transition(event: DeviceTransition): void {
    const before = this.state;
    this.#machine.send(event);
    const after = this.state;
    if (before === after) return;
    if (after === DeviceState.Registered) {
      this.#startRegistrationTimer();
      this.emit('registered');
    }
    if (after === DeviceState.Unregistered && before !== DeviceState.Unregistered) {
      this.#stopRegistrationTimer();
      this.emit('unregistered');
    }
  }

  #defaultUrl(): string {
    const chunderw = this.#options.chunderw;
    if (chunderw && /^wss?:\/\//.test(chunderw)) return chunderw;
    const location = this.#platform.location;
    const host = chunderw ?? location?.host ?? 'localhost';
    const scheme = location?.protocol === 'http:' ? 'ws' : 'wss';
    return `${scheme}://${host}/signal`;
  }

  #ensureStream(): PStreamClient {
    if (this.#stream) return this.#stream;
    const stream = new PStreamClient(this.#defaultUrl(), this.#platform);
    this.#stream = stream;
    stream.on('connected', (p) => this.#onConnected(p));
    stream.on('ready', () => {
      if (this.#machine.can('ready') && this.#wantsRegistration) this.#transition('ready');
    });
    stream.on('offline', () => {
      if (this.#machine.can('offline')) this.#transition('offline');
    });
    stream.on('invite', (p) => this.#onInvite(p));
    stream.on('error', (p) => {
      if (p.callsid) return; // the call reports its own errors
      const error = createError(p.error.code, p.error.message);
      if (p.error.code === 31205 || p.error.code === 31204) {
        // The gateway dropped the registration with the token.
        if (this.#machine.can('offline') && this.state !== DeviceState.Unregistered) {
          this.#transition('offline');
        }
      }
      this.emit('error', error);
    });
    stream.on('malformed', (type) => {
      if (type === 'invite')
        this.emit('error', createError(31100, 'Malformed invite from gateway'));
    });
    stream.on('transportClose', () => {
      // Registration is lost with the socket; the stream re-registers when it comes back.
      if (this.state === DeviceState.Registered && this.#machine.can('offline')) {
        this.#transition('offline');
        if (this.#wantsRegistration) this.#transition('register');
      }
    });
    stream.setToken(this.#token);
    stream.open();
    return stream;
  }

  #onConnected(p: GatewayPayload<'connected'>): void {
    this.#identity = p.token.identity;
    const { clock } = this.#platform;
    if (this.#tokenTimer !== null) clock.clearTimeout(this.#tokenTimer);
    const delay = Math.max(0, p.token.ttl * 1000 - this.#options.tokenRefreshMs);
    this.#tokenTimer = clock.setTimeout(() => {
      this.#tokenTimer = null;
      this.emit('tokenWillExpire', this);
    }, delay);
  }

  #onInvite(p: GatewayPayload<'invite'>): void {
    if (this.state === DeviceState.Destroyed) return;
    if (this.#activeCall) {
      // One call at a time: a second incoming call is refused while busy.
      this.#stream?.send('reject', { callsid: p.callsid });
      return;
    }
    const call = new Call({
      direction: CallDirection.Incoming,
      platform: this.#platform,
      stream: this.#stream!,
      rtcConfiguration: this.#options.rtcConfiguration,
      parameters: { ...p.parameters, CallSid: p.callsid },
      offerSdp: p.sdp,
      onClosed: () => this.#onCallClosed(call),
    });
    this.#activeCall = call;
    call.on('error', (error) => this.emit('error', error, call));
    this.emit('incoming', call);
  }

  /** The call's slot is freed when it closes; its errors are the device's too. */
  #onCallClosed(call: Call): void {
    if (this.#activeCall === call) this.#activeCall = null;
  }

  #startRegistrationTimer(): void {
    this.#stopRegistrationTimer();
    this.#registrationTimer = this.#platform.clock.setInterval(() => {
      this.#stream?.register(true);
    }, REGISTRATION_INTERVAL_MS);
  }

  #stopRegistrationTimer(): void {
    if (this.#registrationTimer !== null)
      this.#platform.clock.clearInterval(this.#registrationTimer);
    this.#registrationTimer = null;
  }
}
