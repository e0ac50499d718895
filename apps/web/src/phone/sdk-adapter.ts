/**
 * The phone port over an SDK with the official Voice SDK's surface: ours (`@leadline/softphone`)
 * and the official `@twilio/voice-sdk` share it, so one pass-through serves both. It only hands
 * listeners the port's call objects instead of the SDK's (one wrapper per call), unsubscribes
 * through the SDK's `off`, and lets an SDK's adapter restate a call's errors in the spec's codes
 * ({@link AdapterOptions.callError}). `device.audio` passes through as it is (the official SDK
 * drops it when the device is destroyed; the port's audio then lists nothing and refuses every
 * choice).
 */
import type {
  PhoneAudio,
  PhoneAudioDevice,
  PhoneAudioEventName,
  PhoneAudioEvents,
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
  PhoneOutputDevices,
} from './phone-port';
import type { InviteTap } from './invite-tap';

type AnyListener = (...args: never[]) => void;

/** What both SDKs' emitters have (Node-style `on`/`off`). */
interface SdkEmitter {
  on(event: string, listener: AnyListener): unknown;
  off(event: string, listener: AnyListener): unknown;
}

/** The part of an SDK `Call` the port uses. */
export interface SdkCall extends SdkEmitter {
  readonly parameters: Record<string, string | undefined>;
  /** `'INCOMING'` or `'OUTGOING'` (both SDKs' `Call.CallDirection`). */
  readonly direction?: string;
  accept(): void;
  reject(): void;
  ignore(): void;
  disconnect(): void;
  mute(shouldMute?: boolean): void;
  isMuted(): boolean;
  sendDigits(digits: string): void;
  status(): string;
}

/** The part of an SDK `OutputDeviceCollection` (`speakerDevices`, `ringtoneDevices`) used. */
export interface SdkOutputDevices {
  get(): ReadonlySet<PhoneAudioDevice>;
  set(deviceIds: string[]): Promise<void>;
}

/**
 * The part of an SDK `AudioHelper` (`device.audio`) the port uses, besides its emitter (typed
 * per event by each SDK, like the device's; see {@link adaptDevice}).
 */
export interface SdkAudioHelper {
  readonly availableInputDevices: ReadonlyMap<string, PhoneAudioDevice>;
  readonly availableOutputDevices: ReadonlyMap<string, PhoneAudioDevice>;
  readonly inputDevice: PhoneAudioDevice | null;
  readonly isOutputSelectionSupported: boolean;
  readonly speakerDevices: SdkOutputDevices;
  readonly ringtoneDevices: SdkOutputDevices;
  setInputDevice(deviceId: string): Promise<void>;
}

/** The part of an SDK `Device` the port uses. */
export interface SdkDevice<C extends SdkCall = SdkCall> extends SdkEmitter {
  /** The official SDK's is `null` once the device is destroyed. */
  readonly audio: (SdkAudioHelper & SdkEmitter) | null;
  register(): Promise<void>;
  connect(options: { params: Record<string, string> }): Promise<C>;
  updateToken(token: string): void;
  destroy(): void;
}

/** What an SDK's adapter changes in what the SDK reports, before the console sees it. */
export interface AdapterOptions {
  /**
   * Where the device's `invite` event comes from (our SDK's sockets, watched:
   * `invite-tap.ts`); without it the device never emits `invite`.
   */
  readonly invites?: Pick<InviteTap, 'on' | 'off'>;
  /**
   * The error the console sees for an error of `call`: on the call's `error`, and on the
   * device's `error` when that names the call. Default: the SDK's own error.
   */
  readonly callError?: (error: PhoneError, call: SdkCall) => PhoneError;
}

/** An SDK-side listener and the emitter it was added to. */
interface Forward {
  readonly target: SdkEmitter;
  readonly forward: AnyListener;
}

/**
 * The SDK-side listener of each port listener, per event, so `off` finds it (on the emitter it
 * was added to). `target` gives the SDK emitter, or null when there is none (nothing to hear).
 */
class Subscriptions {
  readonly #forwards = new Map<string, Map<unknown, Forward>>();

  constructor(private readonly target: () => SdkEmitter | null) {}

  add(event: string, listener: unknown, forward: AnyListener): void {
    this.remove(event, listener);
    const target = this.target();
    if (!target) return;
    let byListener = this.#forwards.get(event);
    if (!byListener) this.#forwards.set(event, (byListener = new Map<unknown, Forward>()));
    byListener.set(listener, { target, forward });
    target.on(event, forward);
  }

  remove(event: string, listener: unknown): void {
    const byListener = this.#forwards.get(event);
    const added = byListener?.get(listener);
    if (!added) return;
    added.target.off(event, added.forward);
    byListener!.delete(listener);
  }
}

const wrappers = new WeakMap<SdkCall, AdaptedCall>();

/** The port's view of one SDK call (one wrapper per call). */
function wrapCall(call: SdkCall, options: AdapterOptions): AdaptedCall {
  let wrapper = wrappers.get(call);
  if (!wrapper) wrappers.set(call, (wrapper = new AdaptedCall(call, options)));
  return wrapper;
}

const isSdkCall = (value: unknown): value is SdkCall =>
  typeof value === 'object' && value !== null && 'parameters' in value && 'accept' in value;

/** Replaces SDK calls among an event's arguments by their port wrappers. */
const toPort = (args: unknown[], options: AdapterOptions): unknown[] =>
  args.map((arg) => (isSdkCall(arg) ? wrapCall(arg, options) : arg));

/** An `error` event's arguments with the error restated for its call (when it names one). */
function errorArgs(args: unknown[], call: unknown, options: AdapterOptions): unknown[] {
  const [error, ...rest] = args;
  if (!options.callError || !isSdkCall(call)) return args;
  return [options.callError(error as PhoneError, call), ...rest];
}

class AdaptedCall implements PhoneCall {
  readonly #subscriptions: Subscriptions;

  constructor(
    private readonly call: SdkCall,
    private readonly options: AdapterOptions,
  ) {
    this.#subscriptions = new Subscriptions(() => call);
  }

  get parameters(): PhoneCallParameters {
    const { CallSid = '', From = '', To } = this.call.parameters;
    return To === undefined ? { CallSid, From } : { CallSid, From, To };
  }

  accept(): void {
    this.call.accept();
  }
  reject(): void {
    this.call.reject();
  }
  ignore(): void {
    this.call.ignore();
  }
  disconnect(): void {
    this.call.disconnect();
  }
  mute(shouldMute = true): void {
    this.call.mute(shouldMute);
  }
  isMuted(): boolean {
    return this.call.isMuted();
  }
  sendDigits(digits: string): void {
    this.call.sendDigits(digits);
  }
  status(): PhoneCallStatus {
    return this.call.status() as PhoneCallStatus;
  }

  on<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    const forward = (...args: unknown[]) => {
      const restated = event === 'error' ? errorArgs(args, this.call, this.options) : args;
      (listener as (...args: unknown[]) => void)(...toPort(restated, this.options));
    };
    this.#subscriptions.add(event, listener, forward);
  }

  off<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

/** Why the port's audio refuses a choice once the SDK has no audio helper. */
const NO_AUDIO_HELPER = 'The phone has no audio helper (the device was destroyed)';

const NO_DEVICES: ReadonlyMap<string, PhoneAudioDevice> = new Map();
const NO_OUTPUTS: ReadonlySet<PhoneAudioDevice> = new Set();

/** The port's view of an SDK's output device collection (read through the helper each time). */
class AdaptedOutputDevices implements PhoneOutputDevices {
  constructor(private readonly collection: () => SdkOutputDevices | null) {}

  get(): ReadonlySet<PhoneAudioDevice> {
    return this.collection()?.get() ?? NO_OUTPUTS;
  }

  async set(deviceIds: readonly string[]): Promise<void> {
    const collection = this.collection();
    if (!collection) throw new Error(NO_AUDIO_HELPER);
    await collection.set([...deviceIds]);
  }
}

/** The port's view of the SDK device's audio helper (`device.audio`, read each time). */
class AdaptedAudio implements PhoneAudio {
  readonly speakerDevices: PhoneOutputDevices;
  readonly ringtoneDevices: PhoneOutputDevices;
  readonly #subscriptions: Subscriptions;

  constructor(private readonly helper: () => (SdkAudioHelper & SdkEmitter) | null) {
    this.#subscriptions = new Subscriptions(helper);
    this.speakerDevices = new AdaptedOutputDevices(() => helper()?.speakerDevices ?? null);
    this.ringtoneDevices = new AdaptedOutputDevices(() => helper()?.ringtoneDevices ?? null);
  }

  get availableInputDevices(): ReadonlyMap<string, PhoneAudioDevice> {
    return this.helper()?.availableInputDevices ?? NO_DEVICES;
  }
  get availableOutputDevices(): ReadonlyMap<string, PhoneAudioDevice> {
    return this.helper()?.availableOutputDevices ?? NO_DEVICES;
  }
  get inputDevice(): PhoneAudioDevice | null {
    return this.helper()?.inputDevice ?? null;
  }
  get isOutputSelectionSupported(): boolean {
    return this.helper()?.isOutputSelectionSupported ?? false;
  }

  async setInputDevice(deviceId: string): Promise<void> {
    const helper = this.helper();
    if (!helper) throw new Error(NO_AUDIO_HELPER);
    await helper.setInputDevice(deviceId);
  }

  on<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void {
    this.#subscriptions.add(event, listener, listener);
  }

  off<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

class AdaptedDevice implements PhoneDevice {
  readonly audio: PhoneAudio;
  readonly #subscriptions: Subscriptions;

  constructor(
    private readonly device: SdkDevice,
    private readonly options: AdapterOptions,
  ) {
    this.#subscriptions = new Subscriptions(() => device);
    this.audio = new AdaptedAudio(() => device.audio);
  }

  register(): Promise<void> {
    return this.device.register();
  }
  async connect(params: PhoneConnectParams): Promise<PhoneCall> {
    return wrapCall(await this.device.connect({ params: { ...params } }), this.options);
  }
  updateToken(token: string): void {
    this.device.updateToken(token);
  }
  destroy(): void {
    this.device.destroy();
  }

  on<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    if (event === 'invite') {
      // Not the SDK's: the adapter's watch on its sockets.
      this.options.invites?.on(listener as PhoneDeviceEvents['invite']);
      return;
    }
    const forward = (...args: unknown[]) => {
      const restated = event === 'error' ? errorArgs(args, args[1], this.options) : args;
      (listener as (...args: unknown[]) => void)(...toPort(restated, this.options));
    };
    this.#subscriptions.add(event, listener, forward);
  }

  off<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    if (event === 'invite') {
      this.options.invites?.off(listener as PhoneDeviceEvents['invite']);
      return;
    }
    this.#subscriptions.remove(event, listener);
  }
}

/**
 * The phone port over an SDK device. Both SDKs type their emitters per event name, which no
 * one structural type can state for both; the adapter forwards whatever each event carries, so
 * it takes the device as the common shape; the rest of its audio helper is checked here.
 */
export function adaptDevice(
  device: { readonly audio: SdkAudioHelper | null },
  options: AdapterOptions = {},
): PhoneDevice {
  return new AdaptedDevice(device as SdkDevice, options);
}
