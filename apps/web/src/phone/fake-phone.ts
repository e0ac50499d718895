/**
 * The shared test double of the phone port: a {@link FakePhone} hands out {@link FakeDevice}s
 * through its `factory`, and a device rings {@link FakeCall}s. The fakes follow the port's state
 * rules (spec section 4: accept only from pending, disconnect from open…) and emit the same
 * events as the SDK; test-side helpers (`ring`, `hangUpRemotely`, `fail`…) play the far end.
 */
import { CALL_USER_IDENTITY_PREFIX } from '../constants';
import type {
  PhoneCall,
  PhoneCallEventName,
  PhoneCallEvents,
  PhoneCallParameters,
  PhoneCallStatus,
  PhoneConnectParams,
  PhoneDevice,
  PhoneDeviceEventName,
  PhoneDeviceEvents,
  PhoneError,
  PhoneFactory,
} from './phone-port';
import { TypedEmitter } from './typed-emitter';

const DISCONNECTABLE: readonly PhoneCallStatus[] = [
  'open',
  'connecting',
  'reconnecting',
  'ringing',
];

/** Whether a call rang in (incoming) or was placed with `connect` (outgoing). */
export type FakeCallDirection = 'incoming' | 'outgoing';

/** A fake {@link PhoneCall}. */
export class FakeCall implements PhoneCall {
  readonly parameters: PhoneCallParameters;
  readonly direction: FakeCallDirection;
  /** Outgoing: the params it was placed with. */
  readonly connectParams: PhoneConnectParams;
  /** Every port method the console called, in order (`accept`, `mute(true)`…). */
  readonly invocations: string[] = [];
  readonly #events = new TypedEmitter<PhoneCallEvents>();
  #status: PhoneCallStatus;
  #muted = false;

  constructor(
    parameters: PhoneCallParameters,
    options: { direction?: FakeCallDirection; connectParams?: PhoneConnectParams } = {},
  ) {
    this.parameters = parameters;
    this.direction = options.direction ?? 'incoming';
    this.connectParams = options.connectParams ?? {};
    // An outgoing call starts connecting to the gateway (spec section 4).
    this.#status = this.direction === 'outgoing' ? 'connecting' : 'pending';
  }

  accept(): void {
    this.invocations.push('accept');
    // Accept is a no-op unless pending; outgoing calls are never accepted again.
    if (this.#status !== 'pending') return;
    this.#status = 'open';
    this.#events.emit('accept', this);
  }

  reject(): void {
    this.invocations.push('reject');
    if (this.#status !== 'pending') return;
    this.#status = 'closed';
    this.#events.emit('reject');
  }

  ignore(): void {
    this.invocations.push('ignore');
    if (this.#status !== 'pending') return;
    this.#status = 'closed';
  }

  disconnect(): void {
    this.invocations.push('disconnect');
    if (!DISCONNECTABLE.includes(this.#status)) return;
    this.#status = 'closed';
    this.#events.emit('disconnect', this);
  }

  mute(shouldMute = true): void {
    this.invocations.push(`mute(${shouldMute})`);
    if (this.#muted === shouldMute) return;
    this.#muted = shouldMute;
    this.#events.emit('mute', shouldMute, this);
  }

  isMuted(): boolean {
    return this.#muted;
  }

  sendDigits(digits: string): void {
    if (!/^[0-9*#w]*$/.test(digits)) throw new Error('Illegal character passed into sendDigits');
    this.invocations.push(`sendDigits(${digits})`);
  }

  status(): PhoneCallStatus {
    return this.#status;
  }

  on<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    this.#events.off(event, listener);
  }

  /** How many listeners the console left on `event`. */
  listenerCount(event: PhoneCallEventName): number {
    return this.#events.listenerCount(event);
  }

  /** The far end hangs up an open call. */
  hangUpRemotely(): void {
    if (!DISCONNECTABLE.includes(this.#status))
      throw new Error(`cannot hang up a ${this.#status} call`);
    this.#status = 'closed';
    this.#events.emit('disconnect', this);
  }

  /** Outgoing: the far end answers (the call opens and emits `accept`). */
  answerRemotely(): void {
    if (this.direction !== 'outgoing' || !['connecting', 'ringing'].includes(this.#status)) {
      throw new Error(`cannot answer a ${this.direction} ${this.#status} call remotely`);
    }
    this.#status = 'open';
    this.#events.emit('accept', this);
  }

  /** The caller gives up while the call is still ringing. */
  cancelByCaller(): void {
    if (this.#status !== 'pending') throw new Error(`cannot cancel a ${this.#status} call`);
    this.#status = 'closed';
    this.#events.emit('cancel');
  }

  /** The call fails with an SDK error. */
  fail(code: number, message = 'Call failed', name = 'CallError'): PhoneError {
    const error: PhoneError = { code, name, message };
    this.#events.emit('error', error);
    return error;
  }

  /** The call's connection drops: it is `reconnecting` until {@link reconnect}. */
  dropConnection(code = 53405, message = 'Media connection failed.'): void {
    if (this.#status !== 'open') throw new Error(`cannot drop a ${this.#status} call`);
    this.#status = 'reconnecting';
    this.#events.emit('reconnecting', { code, name: 'ConnectionError', message });
  }

  /** The call's connection comes back (`reconnected`). */
  reconnect(): void {
    if (this.#status !== 'reconnecting') throw new Error(`cannot reconnect a ${this.#status} call`);
    this.#status = 'open';
    this.#events.emit('reconnected');
  }

  /** Reports volume levels (each 0..1). */
  reportVolume(inputVolume: number, outputVolume: number): void {
    this.#events.emit('volume', inputVolume, outputVolume);
  }
}

/** The registration state of a {@link FakeDevice}. */
export type FakeDeviceState = 'unregistered' | 'registered' | 'destroyed';

/** A fake {@link PhoneDevice}. */
export class FakeDevice implements PhoneDevice {
  /** The token it was created with, then every `updateToken`, in order. */
  readonly tokens: string[];
  /** Every call it rang or placed. */
  readonly calls: FakeCall[] = [];
  /** The error the next `connect` rejects with, if set. */
  connectFailure: Error | null = null;
  readonly #events = new TypedEmitter<PhoneDeviceEvents>();
  #state: FakeDeviceState = 'unregistered';
  #nextCallSid = 1;

  constructor(token: string) {
    this.tokens = [token];
  }

  get state(): FakeDeviceState {
    return this.#state;
  }

  register(): Promise<void> {
    if (this.#state === 'destroyed') return Promise.reject(new Error('device destroyed'));
    if (this.#state === 'registered') return Promise.resolve();
    this.#state = 'registered';
    this.#events.emit('registered');
    return Promise.resolve();
  }

  updateToken(token: string): void {
    this.tokens.push(token);
  }

  connect(params: PhoneConnectParams): Promise<PhoneCall> {
    if (this.#state === 'destroyed') return Promise.reject(new Error('device destroyed'));
    const failure = this.connectFailure;
    if (failure) {
      this.connectFailure = null;
      return Promise.reject(failure);
    }
    if (this.calls.some((c) => c.status() !== 'closed')) {
      return Promise.reject(new Error('A Call is already active'));
    }
    const call = new FakeCall(
      { CallSid: `CA${String(this.#nextCallSid++).padStart(32, '0')}`, From: '', To: params.To },
      { direction: 'outgoing', connectParams: { ...params } },
    );
    this.calls.push(call);
    return Promise.resolve(call);
  }

  /** The newest call placed with `connect`; throws if there is none. */
  get lastOutgoing(): FakeCall {
    const call = this.calls.filter((c) => c.direction === 'outgoing').at(-1);
    if (!call) throw new Error('no outgoing call was placed');
    return call;
  }

  destroy(): void {
    if (this.#state === 'destroyed') return;
    for (const call of this.calls) {
      if (DISCONNECTABLE.includes(call.status())) call.disconnect();
    }
    const wasRegistered = this.#state === 'registered';
    this.#state = 'destroyed';
    if (wasRegistered) this.#events.emit('unregistered');
  }

  on<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    this.#events.off(event, listener);
  }

  /** A call for call-user `callUserId` rings (`From: client:<id>`, unless `from` is given). */
  ring(callUserId: number, options: { from?: string; callSid?: string } = {}): FakeCall {
    if (this.#state !== 'registered') throw new Error(`a ${this.#state} device cannot ring`);
    const call = new FakeCall({
      CallSid: options.callSid ?? `CA${String(this.#nextCallSid++).padStart(32, '0')}`,
      From: options.from ?? `${CALL_USER_IDENTITY_PREFIX}${callUserId}`,
    });
    this.calls.push(call);
    this.#events.emit('incoming', call);
    return call;
  }

  /** The token will expire soon. */
  warnTokenExpiry(): void {
    this.#events.emit('tokenWillExpire');
  }

  /** The gateway dropped the registration. */
  dropRegistration(): void {
    if (this.#state !== 'registered') throw new Error(`a ${this.#state} device is not registered`);
    this.#state = 'unregistered';
    this.#events.emit('unregistered');
  }

  /** The device reports an error (with `call` when it belongs to one). */
  fail(code: number, message = 'Device error', call?: FakeCall): PhoneError {
    const error: PhoneError = { code, name: 'DeviceError', message };
    this.#events.emit('error', error, call);
    return error;
  }
}

/** Hands out fake devices; pass `phone.factory` where a {@link PhoneFactory} is wanted. */
export class FakePhone {
  /** Every device created, oldest first. */
  readonly devices: FakeDevice[] = [];

  readonly factory: PhoneFactory = (token) => {
    const device = new FakeDevice(token);
    this.devices.push(device);
    return device;
  };

  /** The newest device; throws if none was created. */
  get device(): FakeDevice {
    const device = this.devices.at(-1);
    if (!device) throw new Error('no device was created');
    return device;
  }
}
