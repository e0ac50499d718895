/**
 * The phone port over an SDK with the official Voice SDK's surface: ours (`@leadline/softphone`)
 * and the official `@twilio/voice-sdk` share it, so one pass-through serves both. It only hands
 * listeners the port's call objects instead of the SDK's (one wrapper per call) and unsubscribes
 * through the SDK's `off`.
 */
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
} from './phone-port';

type AnyListener = (...args: never[]) => void;

/** What both SDKs' emitters have (Node-style `on`/`off`). */
interface SdkEmitter {
  on(event: string, listener: AnyListener): unknown;
  off(event: string, listener: AnyListener): unknown;
}

/** The part of an SDK `Call` the port uses. */
export interface SdkCall extends SdkEmitter {
  readonly parameters: Record<string, string | undefined>;
  accept(): void;
  reject(): void;
  ignore(): void;
  disconnect(): void;
  mute(shouldMute?: boolean): void;
  isMuted(): boolean;
  sendDigits(digits: string): void;
  status(): string;
}

/** The part of an SDK `Device` the port uses. */
export interface SdkDevice<C extends SdkCall = SdkCall> extends SdkEmitter {
  register(): Promise<void>;
  connect(options: { params: Record<string, string> }): Promise<C>;
  updateToken(token: string): void;
  destroy(): void;
}

/** The SDK-side listener of each port listener, per event, so `off` finds it. */
class Subscriptions {
  readonly #forwards = new Map<string, Map<unknown, AnyListener>>();

  constructor(private readonly target: SdkEmitter) {}

  add(event: string, listener: unknown, forward: AnyListener): void {
    let byListener = this.#forwards.get(event);
    if (!byListener) this.#forwards.set(event, (byListener = new Map<unknown, AnyListener>()));
    this.remove(event, listener);
    byListener.set(listener, forward);
    this.target.on(event, forward);
  }

  remove(event: string, listener: unknown): void {
    const byListener = this.#forwards.get(event);
    const forward = byListener?.get(listener);
    if (!forward) return;
    this.target.off(event, forward);
    byListener!.delete(listener);
  }
}

const wrappers = new WeakMap<SdkCall, AdaptedCall>();

/** The port's view of one SDK call (one wrapper per call). */
function wrapCall(call: SdkCall): AdaptedCall {
  let wrapper = wrappers.get(call);
  if (!wrapper) wrappers.set(call, (wrapper = new AdaptedCall(call)));
  return wrapper;
}

const isSdkCall = (value: unknown): value is SdkCall =>
  typeof value === 'object' && value !== null && 'parameters' in value && 'accept' in value;

/** Replaces SDK calls among an event's arguments by their port wrappers. */
const toPort = (args: unknown[]): unknown[] =>
  args.map((arg) => (isSdkCall(arg) ? wrapCall(arg) : arg));

class AdaptedCall implements PhoneCall {
  readonly #subscriptions: Subscriptions;

  constructor(private readonly call: SdkCall) {
    this.#subscriptions = new Subscriptions(call);
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
    const forward = (...args: unknown[]) =>
      (listener as (...args: unknown[]) => void)(...toPort(args));
    this.#subscriptions.add(event, listener, forward);
  }

  off<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

class AdaptedDevice implements PhoneDevice {
  readonly #subscriptions: Subscriptions;

  constructor(private readonly device: SdkDevice) {
    this.#subscriptions = new Subscriptions(device);
  }

  register(): Promise<void> {
    return this.device.register();
  }
  async connect(params: PhoneConnectParams): Promise<PhoneCall> {
    return wrapCall(await this.device.connect({ params: { ...params } }));
  }
  updateToken(token: string): void {
    this.device.updateToken(token);
  }
  destroy(): void {
    this.device.destroy();
  }

  on<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    const forward = (...args: unknown[]) =>
      (listener as (...args: unknown[]) => void)(...toPort(args));
    this.#subscriptions.add(event, listener, forward);
  }

  off<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

/**
 * The phone port over an SDK device. Both SDKs type their emitters per event name, which no
 * one structural type can state for both; the adapter forwards whatever each event carries, so
 * it takes the device as the common shape.
 */
export function adaptDevice(device: object): PhoneDevice {
  return new AdaptedDevice(device as SdkDevice);
}
