/**
 * The softphone device, with the official Voice SDK's public surface: `new Device(token,
 * options)`, `register`, `unregister`, `connect`, `updateToken`, `updateOptions`, `destroy`,
 * `audio`, and the events `registering`, `registered`, `unregistered`, `incoming`,
 * `tokenWillExpire`, `error`, `destroyed`.
 */
import { StateMachine, TypedEmitter } from '@leadline/contracts/lib';
import type { GatewayPayload } from '@leadline/contracts/signalling';
import {
  CODEC_PREFERENCES,
  REGISTRATION_INTERVAL_MS,
  RINGTONE_WAIT_MS,
  SDK_VERSION,
  TOKEN_REFRESH_MARGIN_MS,
} from '../constants';
import {
  createError,
  gatewayError,
  InvalidArgumentError,
  InvalidStateError,
  NotSupportedError,
  type SoftphoneError,
} from '../errors/errors';
import { browserPlatform, type Platform } from '../platform/platform';
import { PStreamClient } from '../signalling/pstream-client';
import { decodeConnectToken } from '../signalling/connect-token';
import { AudioHelper } from '../audio/audio-helper';
import { Sounds, type SoundName } from '../audio/sounds';
import { Call, CallDirection, type CallPublisher, type Codec } from '../call/call';
import { checkInputStream } from '../call/media-session';
import { DEVICE_TABLE, DeviceState, type DeviceTransition } from './device-states';

export { DeviceState };

/** Options of a device (the official SDK's names). */
export interface DeviceOptions {
  /**
   * The signalling gateway: `host[:port]` (the page's scheme picks ws/wss) or a full
   * `ws(s)://…/signal` URL. Default: the page's own host.
   */
  chunderw?: string;
  /**
   * The edge(s) to use. The embedded gateway has one edge (`local`); the value is kept so that
   * changing it during a call is refused as the official SDK does.
   */
  edge?: string | string[];
  /** How long before the token expires `tokenWillExpire` fires (default 10,000 ms). */
  tokenRefreshMs?: number;
  /** Passed to every call's RTCPeerConnection (default: no ICE servers). */
  rtcConfiguration?: RTCConfiguration;
  /** Audio codecs in order of preference (default PCMU, then Opus). */
  codecPreferences?: Codec[];
  /** Sound files by name (`incoming`, `outgoing`, `disconnect`, `dtmf0`…); none: silent. */
  sounds?: Partial<Record<SoundName, string>>;
  /** How long a live call may wait for the signalling socket to come back (default 30,000 ms; 0: not at all). */
  maxCallSignalingTimeoutMs?: number;
  /** Report the gateway's precise codes (31404, 31486…) instead of 31005 (default false). */
  enableImprovedSignalingErrorPrecision?: boolean;
  /** Where calls publish their quality samples and feedback (default: nowhere). */
  publisher?: CallPublisher;
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
  /** Takes over a live call (`call.connectToken` of an earlier device). */
  connectToken?: string;
  rtcConfiguration?: RTCConfiguration;
}

const INVALID_TOKEN_MESSAGE = 'Parameter "token" must be of type "string".';
const LEGACY_EDGE_MESSAGE =
  'Microsoft Edge Legacy (https://support.microsoft.com/en-us/help/4533505/what-is-microsoft-edge-legacy) ' +
  'is deprecated and will not be able to make or receive calls. Please use a supported browser.';
const NO_WEBRTC_MESSAGE =
  'The softphone requires WebRTC browser support (RTCPeerConnection and getUserMedia).';
/** Wire codes of token problems and the errors the official SDK reports for them. */
const TOKEN_ERRORS: Record<number, 20151 | 20101 | 20104> = {
  31201: 20151,
  31204: 20101,
  31205: 20104,
};

let outboundCounter = 0;

/** The softphone device. */
export class Device extends TypedEmitter<DeviceEvents> {
  /** The device's states. */
  static readonly State = DeviceState;
  /** The SDK's version. */
  static readonly version = SDK_VERSION;

  /** Whether this browser can run the SDK (WebRTC, and not Microsoft Edge Legacy). */
  static get isSupported(): boolean {
    const platform = browserPlatform();
    return platform.webRtc && !isLegacyEdge(platform.userAgent);
  }

  /** The microphone, speakers, ringtone devices and sounds. */
  readonly audio: AudioHelper;
  readonly #machine = new StateMachine<DeviceState, DeviceTransition>(
    'device',
    DEVICE_TABLE,
    'unregistered',
  );
  readonly #platform: Platform;
  readonly #sounds: Sounds;
  #options: DeviceOptions & { tokenRefreshMs: number; rtcConfiguration: RTCConfiguration };
  #token: string;
  #identity: string | null = null;
  #edge: string | null = null;
  #home: string | null = null;
  #stream: PStreamClient | null = null;
  /** The accepted or outgoing call. */
  #activeCall: Call | null = null;
  /** Incoming calls still ringing. */
  #pending: Call[] = [];
  #speakerSinkId = 'default';
  #registrationTimer: unknown = null;
  #tokenTimer: unknown = null;
  /** Whether the user asked to be registered (re-registration after a reconnect). */
  #wantsRegistration = false;

  constructor(token: string, options: DeviceOptions = {}) {
    super();
    if (typeof token !== 'string') throw new InvalidArgumentError(INVALID_TOKEN_MESSAGE);
    this.#token = token;
    const platform = (this.#platform = options.platform ?? browserPlatform());
    if (isLegacyEdge(platform.userAgent)) throw new NotSupportedError(LEGACY_EDGE_MESSAGE);
    if (!platform.webRtc) throw new NotSupportedError(NO_WEBRTC_MESSAGE);
    this.#options = {
      tokenRefreshMs: TOKEN_REFRESH_MARGIN_MS,
      rtcConfiguration: { iceServers: [] },
      ...options,
    };
    this.#sounds = new Sounds(platform, options.sounds);
    this.audio = new AudioHelper(platform, {
      inputChanged: async (stream) => {
        const call = this.#activeCall;
        if (call && !stream) {
          throw new InvalidStateError('Cannot unset input device while a call is in progress.');
        }
        if (stream) checkInputStream(stream);
        await call?._setInputTracksFromStream(stream);
      },
      outputsChanged: async (kind, sinkIds) => {
        await this.#sounds.setSinkIds(kind, sinkIds);
        if (kind === 'ringtone') return;
        this.#speakerSinkId = sinkIds[0] ?? 'default';
        await this.#activeCall?._setSinkIds(sinkIds);
      },
    });
  }

  /** The current state. */
  get state(): DeviceState {
    return this.#machine.state;
  }

  /** The identity the gateway confirmed. */
  get identity(): string | null {
    return this.#identity;
  }

  /** The edge the device is connected to (null while offline). */
  get edge(): string | null {
    return this.#edge;
  }

  /** The home region the device is connected to (null while offline). */
  get home(): string | null {
    return this.#home;
  }

  /** The current token. */
  get token(): string {
    return this.#token;
  }

  /** Whether a call is in progress. */
  get isBusy(): boolean {
    return this.#activeCall !== null;
  }

  /** The calls the device holds: incoming ones still ringing and the one in progress. */
  get calls(): Call[] {
    return this.#activeCall ? [...this.#pending, this.#activeCall] : [...this.#pending];
  }

  /** Registers for incoming calls; resolves once registered (or refused). */
  async register(): Promise<void> {
    this.#throwIfDestroyed();
    if (this.state !== DeviceState.Unregistered) {
      throw new InvalidStateError(
        `Attempt to register when device is in state "${this.state}". Must be "${DeviceState.Unregistered}".`,
      );
    }
    this.#wantsRegistration = true;
    const settled = this.#next('registered', 'unregistered', 'destroyed');
    this.#transition('register');
    this.#ensureStream().register(true);
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
    const settled = this.#next('unregistered', 'destroyed');
    this.#ensureStream().register(false);
    await settled;
  }

  /** Replaces the access token (re-sends `listen`). */
  updateToken(token: string): void {
    if (this.state === DeviceState.Destroyed) {
      throw new InvalidStateError(
        `Attempt to "updateToken" when device is in state "${this.state}".`,
      );
    }
    if (typeof token !== 'string') throw new InvalidArgumentError(INVALID_TOKEN_MESSAGE);
    this.#token = token;
    this.#stream?.setToken(token);
  }

  /**
   * Changes options. Changing the gateway (`chunderw`) or `edge` during a call is refused with
   * 'Cannot change Edge while on an active Call'; otherwise the socket moves to the new gateway.
   */
  updateOptions(options: DeviceOptions = {}): void {
    if (this.state === DeviceState.Destroyed) {
      throw new InvalidStateError(
        `Attempt to "updateOptions" when device is in state "${this.state}".`,
      );
    }
    const next = { ...this.#options, ...options };
    const endpoint = (o: DeviceOptions) =>
      `${this.#url(o.chunderw)} ${[o.edge ?? ''].flat().join()}`;
    const moved = endpoint(next) !== endpoint(this.#options);
    if (moved && this.isBusy)
      throw new InvalidStateError('Cannot change Edge while on an active Call');
    this.#options = next;
    this.#sounds.setUrls(next.sounds ?? {});
    if (moved && this.#stream) {
      this.#stream.destroy();
      this.#stream = null;
      this.#ensureStream();
    }
  }

  /** Places an outgoing call, or takes over a live one with `connectToken`. */
  async connect(options: ConnectOptions = {}): Promise<Call> {
    this.#throwIfDestroyed();
    if (this.#activeCall) throw new InvalidStateError('A Call is already active');
    const token = options.connectToken ? decodeConnectToken(options.connectToken) : null;
    const call = this.#makeCall({
      direction: CallDirection.Outgoing,
      rtcConfiguration: options.rtcConfiguration ?? this.#options.rtcConfiguration,
      parameters: token?.parameters as Record<string, string> | undefined,
      customParameters: token ? token.customParameters : options.params,
      reconnectToken: token?.signalingReconnectToken,
      outboundConnectionId: `TJSxxxxxxxx-${this.#platform.clock.now().toString(16)}-${++outboundCounter}`,
    });
    this.#activeCall = call;
    for (const pending of this.#pending.splice(0)) pending.ignore();
    this.#sounds.stop('incoming');
    call.once('accept', () => {
      if (!token && this.audio.outgoing())
        void this.#sounds.play('outgoing').catch(() => undefined);
    });
    void call.placeOutgoing();
    return call;
  }

  /** Hangs up every call. */
  disconnectAll(): void {
    for (const call of this.calls) call.disconnect();
  }

  /** Ends the device: calls end, the socket closes; nothing works afterwards. */
  destroy(): void {
    if (this.state === DeviceState.Destroyed) return;
    for (const call of [...this.#pending]) call.reject();
    this.disconnectAll();
    this.#stopRegistrationTimer();
    this.#platform.clock.clearTimeout(this.#tokenTimer);
    this.#stream?.destroy();
    this.#stream = null;
    this.audio.destroy();
    this.#transition('destroy');
  }

  #throwIfDestroyed(): void {
    if (this.state === DeviceState.Destroyed) {
      throw new InvalidStateError('Device has been destroyed.');
    }
  }

  /** Resolves at the first of these events. */
  #next(...events: Array<'registered' | 'unregistered' | 'destroyed'>): Promise<void> {
    return new Promise<void>((resolve) => {
      const offs = events.map((event) =>
        this.once(event, () => {
          offs.forEach((off) => off());
          resolve();
        }),
      );
    });
  }

  /** Applies a transition; a change of state emits the event named after the new state. */
  #transition(event: DeviceTransition): void {
    const before = this.state;
    if (!this.#machine.trySend(event) || before === this.state) return;
    const after = this.state;
    if (after === DeviceState.Registered) this.#startRegistrationTimer();
    else this.#stopRegistrationTimer();
    this.emit(after);
  }

  #url(chunderw: string | undefined): string {
    if (chunderw && /^wss?:\/\//.test(chunderw)) return chunderw;
    const location = this.#platform.location;
    const scheme = location?.protocol === 'http:' ? 'ws' : 'wss';
    return `${scheme}://${chunderw ?? location?.host ?? 'localhost'}/signal`;
  }

  #ensureStream(): PStreamClient {
    if (this.#stream) return this.#stream;
    const stream = new PStreamClient(this.#url(this.#options.chunderw), this.#platform, {
      maxCallSignalingTimeoutMs: this.#options.maxCallSignalingTimeoutMs,
    });
    this.#stream = stream;
    stream.on('connected', (p) => this.#onConnected(p));
    stream.on('ready', () => {
      if (this.#wantsRegistration) this.#transition('ready');
    });
    stream.on('offline', () => this.#transition('offline'));
    stream.on('invite', (p) => this.#onInvite(p));
    stream.on('error', (p) => {
      if (p.callsid) return; // the call reports its own errors
      const code = TOKEN_ERRORS[p.error.code];
      if (code) {
        // The gateway dropped the registration with the token.
        this.#transition('offline');
      }
      const precise = !!this.#options.enableImprovedSignalingErrorPrecision;
      this.emit(
        'error',
        code
          ? createError(code, p.error.message, p.error)
          : gatewayError(p.error, precise, p.error.message),
      );
    });
    stream.on('malformed', (type) => {
      if (type === 'invite')
        this.emit('error', createError(31400, 'Malformed invite from gateway'));
    });
    stream.on('transportClose', () => {
      this.#edge = this.#home = null;
      // Registration is lost with the socket; the stream re-registers when it comes back.
      if (this.state === DeviceState.Unregistered || stream.isDestroyed) return;
      this.#transition('offline');
      if (this.#wantsRegistration) this.#transition('register');
    });
    stream.setToken(this.#token);
    // A new stream (e.g. after `updateOptions` moved the socket) registers on open, rather than
    // waiting for the next registration tick.
    if (this.#wantsRegistration) stream.register(true);
    stream.open();
    return stream;
  }

  #onConnected(p: GatewayPayload<'connected'>): void {
    this.#identity = p.token.identity;
    this.#edge = p.edge ?? p.region;
    this.#home = p.home ?? null;
    const { clock } = this.#platform;
    clock.clearTimeout(this.#tokenTimer);
    const delay = Math.max(0, p.token.ttl * 1000 - this.#options.tokenRefreshMs);
    this.#tokenTimer = clock.setTimeout(() => {
      this.#tokenTimer = null;
      this.emit('tokenWillExpire', this);
    }, delay);
  }

  #makeCall(options: Omit<ConstructorParameters<typeof Call>[0], 'platform' | 'stream'>): Call {
    const o = this.#options;
    const call: Call = new Call({
      platform: this.#platform,
      stream: this.#ensureStream(),
      codecPreferences: o.codecPreferences ?? CODEC_PREFERENCES,
      enableImprovedSignalingErrorPrecision: o.enableImprovedSignalingErrorPrecision,
      maxCallSignalingTimeoutMs: o.maxCallSignalingTimeoutMs,
      getInputStream: () => this.audio.inputStream,
      sinkId: this.#speakerSinkId,
      publisher: o.publisher,
      playSound: (name) => void this.#sounds.play(name).catch(() => undefined),
      onClosed: () => this.#forget(call),
      ...options,
    });
    call.on('error', (error) => this.emit('error', error, call));
    call.once('accept', () => {
      this.#sounds.stop('incoming');
      void this.audio.refreshDevices().catch(() => undefined);
    });
    call.once('disconnect', () => {
      if (this.audio.disconnect()) void this.#sounds.play('disconnect').catch(() => undefined);
    });
    return call;
  }

  #onInvite(p: GatewayPayload<'invite'>): void {
    if (this.state === DeviceState.Destroyed) return;
    if (this.#activeCall) {
      // One call at a time: another incoming call is refused while busy.
      this.#stream?.send('reject', { callsid: p.callsid });
      return;
    }
    const call = this.#makeCall({
      direction: CallDirection.Incoming,
      rtcConfiguration: this.#options.rtcConfiguration,
      parameters: { ...p.parameters, CallSid: p.callsid },
      customParameters: Object.fromEntries(new URLSearchParams(p.parameters.Params ?? '')),
      offerSdp: p.sdp,
      reconnectToken: p.reconnect,
      // Accepting makes it the call in progress even before media is up.
      beforeAccept: () => {
        this.#pending = this.#pending.filter((c) => c !== call);
        this.#activeCall ??= call;
      },
    });
    this.#pending.push(call);
    const ring = this.audio.incoming() ? this.#sounds.play('incoming') : Promise.resolve();
    const { clock } = this.#platform;
    let timer: unknown;
    const waited = new Promise<void>(
      (resolve) => (timer = clock.setTimeout(resolve, RINGTONE_WAIT_MS)),
    );
    void Promise.race([ring.catch(() => undefined), waited]).then(() => {
      clock.clearTimeout(timer);
      if (call.status() === 'pending') this.emit('incoming', call);
    });
  }

  /** A call closed: free its slot; the ringtone stops when nothing rings any more. */
  #forget(call: Call): void {
    if (this.#activeCall === call) this.#activeCall = null;
    this.#pending = this.#pending.filter((c) => c !== call);
    if (!this.#pending.length) this.#sounds.stop('incoming');
  }

  #startRegistrationTimer(): void {
    this.#stopRegistrationTimer();
    this.#registrationTimer = this.#platform.clock.setInterval(() => {
      this.#stream?.register(true);
    }, REGISTRATION_INTERVAL_MS);
  }

  #stopRegistrationTimer(): void {
    this.#platform.clock.clearInterval(this.#registrationTimer);
    this.#registrationTimer = null;
  }
}

/** Whether the user agent is Microsoft Edge Legacy (EdgeHTML, `Edge/NN`). */
export const isLegacyEdge = (userAgent: string): boolean => /edge\/\d+/i.test(userAgent);
