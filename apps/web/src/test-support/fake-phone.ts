/**
 * The shared test double of the phone port: a {@link FakePhone} hands out {@link FakeDevice}s
 * through its `factory`, and a device rings {@link FakeCall}s. The fakes follow the port's state
 * rules (spec section 4: accept only from pending, disconnect from open…) and emit the same
 * events as the SDK; test-side helpers (`ring`, `hangUpRemotely`, `fail`…) play the far end.
 * Each device has a {@link FakeAudio} whose devices a test plugs in and out.
 */
import { CALL_USER_IDENTITY_PREFIX, DEFAULT_AUDIO_DEVICE_ID } from '../constants';
import type {
  PhoneAudio,
  PhoneAudioDevice,
  PhoneAudioEventName,
  PhoneAudioEvents,
  PhoneCall,
  PhoneCallEventName,
  PhoneCallEvents,
  PhoneCallParameters,
  PhoneCallSample,
  PhoneCallStatus,
  PhoneCallWarningData,
  PhoneCallWarningName,
  PhoneConnectParams,
  PhoneDevice,
  PhoneDeviceEventName,
  PhoneDeviceEvents,
  PhoneError,
  PhoneFactory,
  PhoneOutputDevices,
} from '../phone/phone-port';
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
  /** The quality warnings raised now. */
  readonly #warnings = new Set<PhoneCallWarningName>();

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

  /** A hang-up that does not take (the connection stays as it is), for the debug report. */
  disconnectFails = false;

  disconnect(): void {
    this.invocations.push('disconnect');
    if (this.disconnectFails || !DISCONNECTABLE.includes(this.#status)) return;
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

  /**
   * The signalling channel is down: `sendDigits` sends nothing and emits the 31005
   * ConnectionError both SDKs emit then (spec section 8).
   */
  signallingDown = false;

  /** `sendDigits` throws this (an SDK failing unexpectedly). */
  sendDigitsFailure: Error | null = null;

  sendDigits(digits: string): void {
    if (!/^[0-9*#w]*$/.test(digits)) throw new Error('Illegal character passed into sendDigits');
    if (this.sendDigitsFailure) throw this.sendDigitsFailure;
    if (this.signallingDown) {
      this.#events.emit('error', {
        code: 31005,
        name: 'ConnectionError',
        // As both SDKs word it: the name and code, then the message.
        message: 'ConnectionError (31005): Could not send DTMF: Signaling channel is disconnected',
      });
      return;
    }
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

  /**
   * The quality monitor reports a sample of an open call: the given figures over those of a
   * clean second on a LAN (50 packets of PCMU each way, none lost, a little jitter).
   */
  reportSample(figures: Partial<PhoneCallSample> = {}): PhoneCallSample {
    if (this.#status !== 'open') throw new Error(`a ${this.#status} call reports no samples`);
    const sample: PhoneCallSample = {
      timestamp: 0,
      mos: 4.4,
      jitter: 2,
      rtt: 20,
      packetsLost: 0,
      packetsReceived: 50,
      packetsLostFraction: 0,
      bytesSent: 8600,
      bytesReceived: 8600,
      ...figures,
    };
    this.#events.emit('sample', sample);
    return sample;
  }

  /**
   * The SDK raises a call quality warning (spec section 9) on a connected call, as both SDKs do:
   * once until it clears (raising it again while it stands emits nothing).
   */
  raiseWarning(name: PhoneCallWarningName, data: PhoneCallWarningData | null = null): void {
    if (this.#status !== 'open' && this.#status !== 'reconnecting') {
      throw new Error(`a ${this.#status} call raises no warnings`);
    }
    if (this.#warnings.has(name)) return;
    this.#warnings.add(name);
    this.#events.emit('warning', name, data);
  }

  /** A raised warning clears (`warning-cleared`); nothing happens for one not raised. */
  clearWarning(name: PhoneCallWarningName): void {
    if (!this.#warnings.delete(name)) return;
    this.#events.emit('warning-cleared', name);
  }
}

/** Microphones and speakers, as a {@link FakeAudio} lists them. */
export interface FakeAudioDevices {
  readonly inputs?: readonly PhoneAudioDevice[];
  readonly outputs?: readonly PhoneAudioDevice[];
}

/** What a {@link FakeAudio} starts with: a laptop's microphone and speakers, and the defaults. */
export const FAKE_AUDIO_DEVICES = {
  inputs: [
    { deviceId: DEFAULT_AUDIO_DEVICE_ID, label: 'Default - Built-in Microphone' },
    { deviceId: 'built-in-mic', label: 'Built-in Microphone' },
  ],
  outputs: [
    { deviceId: DEFAULT_AUDIO_DEVICE_ID, label: 'Default - Built-in Speakers' },
    { deviceId: 'built-in-speakers', label: 'Built-in Speakers' },
  ],
} as const satisfies FakeAudioDevices;

/** The device both SDKs fall back to: the system default if listed, else the first one. */
const fallbackDevice = (list: ReadonlyMap<string, PhoneAudioDevice>): PhoneAudioDevice | null =>
  list.get(DEFAULT_AUDIO_DEVICE_ID) ?? list.values().next().value ?? null;

/**
 * The choices made on one {@link FakeAudio} (all its parts), the refusal set for the next one,
 * and the gate that holds their answers while paused.
 */
class FakeAudioChoices {
  readonly invocations: string[] = [];
  refusal: Error | null = null;
  gate: Promise<void> | null = null;

  /** Records a choice (at once); rejects with the refusal set for it, if any, once let through. */
  async attempt(invocation: string): Promise<void> {
    this.invocations.push(invocation);
    const refusal = this.refusal;
    this.refusal = null;
    if (this.gate) await this.gate;
    if (refusal) throw refusal;
  }
}

/** A fake {@link PhoneOutputDevices}: the speaker or ringtone devices of a {@link FakeAudio}. */
export class FakeOutputDevices implements PhoneOutputDevices {
  #active: ReadonlySet<PhoneAudioDevice> = new Set();

  constructor(
    readonly name: 'speakerDevices' | 'ringtoneDevices',
    private readonly audio: FakeAudio,
    private readonly choices: FakeAudioChoices,
  ) {}

  get(): ReadonlySet<PhoneAudioDevice> {
    return this.#active;
  }

  async set(deviceIds: readonly string[]): Promise<void> {
    await this.choices.attempt(`${this.name}.set(${deviceIds.join(',')})`);
    // The SDKs' own refusals (official SDK's wording).
    if (!this.audio.isOutputSelectionSupported) {
      throw new Error('This browser does not support audio output selection');
    }
    if (!deviceIds.length) throw new Error('Must specify at least one device to set');
    const missing = deviceIds.filter((id) => !this.audio.availableOutputDevices.has(id));
    if (missing.length) throw new Error(`Devices not found: ${missing.join(', ')}`);
    this.#active = new Set(deviceIds.map((id) => this.audio.availableOutputDevices.get(id)!));
  }

  /**
   * After the output list changed: drops the active devices that are gone and, as both SDKs
   * do, makes the fallback device active when none is left. Returns the dropped devices.
   */
  refresh(): PhoneAudioDevice[] {
    const available = this.audio.availableOutputDevices;
    const lost = [...this.#active].filter((d) => !available.has(d.deviceId));
    const kept = [...this.#active].flatMap((d) => available.get(d.deviceId) ?? []);
    const fallback = this.audio.isOutputSelectionSupported ? fallbackDevice(available) : null;
    this.#active = new Set(kept.length || !fallback ? kept : [fallback]);
    return lost;
  }
}

/**
 * A fake {@link PhoneAudio}: device lists a test sets, plugs and unplugs (each change emits
 * `deviceChange`, with the lost devices that were in use, after falling back to the default
 * device as the SDKs do), the choices made (`invocations`), and a refusal for the next choice.
 */
export class FakeAudio implements PhoneAudio {
  readonly availableInputDevices = new Map<string, PhoneAudioDevice>();
  readonly availableOutputDevices = new Map<string, PhoneAudioDevice>();
  readonly speakerDevices: FakeOutputDevices;
  readonly ringtoneDevices: FakeOutputDevices;
  readonly isOutputSelectionSupported: boolean;
  readonly #choices = new FakeAudioChoices();
  readonly #events = new TypedEmitter<PhoneAudioEvents>();
  #inputDevice: PhoneAudioDevice | null = null;

  /** `outputSelection: false` plays a browser without `setSinkId`. */
  constructor(
    devices: FakeAudioDevices = FAKE_AUDIO_DEVICES,
    options: { outputSelection?: boolean } = {},
  ) {
    this.isOutputSelectionSupported = options.outputSelection ?? true;
    this.speakerDevices = new FakeOutputDevices('speakerDevices', this, this.#choices);
    this.ringtoneDevices = new FakeOutputDevices('ringtoneDevices', this, this.#choices);
    this.#update(devices);
  }

  get inputDevice(): PhoneAudioDevice | null {
    return this.#inputDevice;
  }

  /** Every choice the console made, in order (`setInputDevice(id)`, `speakerDevices.set(id)`…). */
  get invocations(): readonly string[] {
    return this.#choices.invocations;
  }

  async setInputDevice(deviceId: string): Promise<void> {
    await this.#choices.attempt(`setInputDevice(${deviceId})`);
    const device = this.availableInputDevices.get(deviceId);
    if (!device) throw new Error(`Device not found: ${deviceId}`);
    this.#inputDevice = device;
  }

  on<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void {
    this.#events.off(event, listener);
  }

  /** How many listeners the console left on `event`. */
  listenerCount(event: PhoneAudioEventName): number {
    return this.#events.listenerCount(event);
  }

  /** The next choice (of any kind) is refused with `error`, changing nothing. */
  refuseNext(error: Error = new Error('Could not start audio source')): void {
    this.#choices.refusal = error;
  }

  /**
   * Holds the answers to the choices made from now on (a slow microphone) until the returned
   * function is called; they then settle in the order they were made.
   */
  pauseChoices(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.#choices.gate = gate;
    return () => {
      if (this.#choices.gate === gate) this.#choices.gate = null;
      release();
    };
  }

  /** The browser now lists exactly these devices (a kind left out keeps its list). */
  setDevices(devices: FakeAudioDevices): void {
    this.#events.emit('deviceChange', this.#update(devices));
  }

  /** Devices are plugged in (a headset: its microphone and its speaker), in one change. */
  plug(devices: FakeAudioDevices): void {
    this.setDevices({
      inputs: [...this.availableInputDevices.values(), ...(devices.inputs ?? [])],
      outputs: [...this.availableOutputDevices.values(), ...(devices.outputs ?? [])],
    });
  }

  /** The devices with these ids (inputs or outputs) are unplugged, in one change. */
  unplug(...deviceIds: string[]): void {
    const kept = (list: ReadonlyMap<string, PhoneAudioDevice>) =>
      [...list.values()].filter((d) => !deviceIds.includes(d.deviceId));
    this.setDevices({
      inputs: kept(this.availableInputDevices),
      outputs: kept(this.availableOutputDevices),
    });
  }

  /** Replaces the lists and falls back from lost devices in use; returns those (once each). */
  #update(devices: FakeAudioDevices): PhoneAudioDevice[] {
    const fill = (list: Map<string, PhoneAudioDevice>, next?: readonly PhoneAudioDevice[]) => {
      if (!next) return;
      list.clear();
      for (const device of next) list.set(device.deviceId, device);
    };
    fill(this.availableInputDevices, devices.inputs);
    fill(this.availableOutputDevices, devices.outputs);
    const lost: PhoneAudioDevice[] = [];
    const input = this.#inputDevice;
    if (input) {
      const listed = this.availableInputDevices.get(input.deviceId);
      if (!listed) lost.push(input);
      this.#inputDevice = listed ?? fallbackDevice(this.availableInputDevices);
    }
    for (const device of [...this.speakerDevices.refresh(), ...this.ringtoneDevices.refresh()]) {
      if (!lost.some((d) => d.deviceId === device.deviceId)) lost.push(device);
    }
    return lost;
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
  readonly audio: FakeAudio;
  readonly #events = new TypedEmitter<PhoneDeviceEvents>();
  #state: FakeDeviceState = 'unregistered';
  #nextCallSid = 1;

  constructor(token: string, audio: FakeAudio = new FakeAudio()) {
    this.tokens = [token];
    this.audio = audio;
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

  /**
   * A ring for call-user `callUserId` reaches the socket (`invite`), before the SDK hands the
   * call over: `ring` with the same `callSid` hands it over. Returns its parameters.
   */
  invite(
    callUserId: number,
    options: { from?: string; callSid?: string } = {},
  ): PhoneCallParameters {
    if (this.#state !== 'registered') throw new Error(`a ${this.#state} device cannot ring`);
    const parameters = {
      CallSid: options.callSid ?? `CA${String(this.#nextCallSid++).padStart(32, '0')}`,
      From: options.from ?? `${CALL_USER_IDENTITY_PREFIX}${callUserId}`,
    };
    this.#events.emit('invite', parameters);
    return parameters;
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

/** Options of a {@link FakePhone}. */
export interface FakePhoneOptions {
  /** The audio of each new device (default: a {@link FakeAudio} of {@link FAKE_AUDIO_DEVICES}). */
  readonly audio?: () => FakeAudio;
}

/** Hands out fake devices; pass `phone.factory` where a {@link PhoneFactory} is wanted. */
export class FakePhone {
  /** Every device created, oldest first. */
  readonly devices: FakeDevice[] = [];

  constructor(private readonly options: FakePhoneOptions = {}) {}

  readonly factory: PhoneFactory = (token) => {
    const device = new FakeDevice(token, this.options.audio?.());
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
