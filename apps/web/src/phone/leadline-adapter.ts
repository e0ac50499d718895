/**
 * The phone port over our SDK (`@leadline/softphone`). The SDK mirrors the official Voice
 * SDK's surface, so this is a pass-through that only hands listeners the port's call objects.
 */
import { Device, type Call } from '@leadline/softphone';
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
  PhoneFactory,
} from './phone-port';

type AnyListener = (...args: unknown[]) => void;

/** Keeps the SDK-side unsubscribe function of each port listener, per event. */
class Subscriptions {
  readonly #offs = new Map<string, Map<unknown, () => void>>();

  add(event: string, listener: unknown, off: () => void): void {
    let byListener = this.#offs.get(event);
    if (!byListener) this.#offs.set(event, (byListener = new Map<unknown, () => void>()));
    byListener.set(listener, off);
  }

  remove(event: string, listener: unknown): void {
    const byListener = this.#offs.get(event);
    byListener?.get(listener)?.();
    byListener?.delete(listener);
  }
}

const calls = new WeakMap<Call, LeadlinePhoneCall>();

/** The port's view of one SDK call (one wrapper per call). */
function wrapCall(call: Call): LeadlinePhoneCall {
  let wrapper = calls.get(call);
  if (!wrapper) calls.set(call, (wrapper = new LeadlinePhoneCall(call)));
  return wrapper;
}

class LeadlinePhoneCall implements PhoneCall {
  readonly #subscriptions = new Subscriptions();

  constructor(private readonly call: Call) {}

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
  status(): PhoneCallStatus {
    return this.call.status();
  }

  on<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    const forward: AnyListener = (...args) =>
      (listener as AnyListener)(...args.map((arg) => (arg === this.call ? this : arg)));
    const on = this.call.on.bind(this.call) as (event: string, listener: AnyListener) => () => void;
    this.#subscriptions.add(event, listener, on(event, forward));
  }

  off<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

class LeadlinePhoneDevice implements PhoneDevice {
  readonly #subscriptions = new Subscriptions();

  constructor(private readonly device: Device) {}

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
    const forward: AnyListener = (...args) =>
      (listener as AnyListener)(...args.map((arg) => (isSdkCall(arg) ? wrapCall(arg) : arg)));
    const on = this.device.on.bind(this.device) as (
      event: string,
      listener: AnyListener,
    ) => () => void;
    this.#subscriptions.add(event, listener, on(event, forward));
  }

  off<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void {
    this.#subscriptions.remove(event, listener);
  }
}

const isSdkCall = (value: unknown): value is Call =>
  typeof value === 'object' && value !== null && 'parameters' in value && 'accept' in value;

/** Creates a device of our SDK, signalling to the page's own host (`/signal`). */
export const createLeadlinePhone: PhoneFactory = (token) =>
  new LeadlinePhoneDevice(new Device(token));
