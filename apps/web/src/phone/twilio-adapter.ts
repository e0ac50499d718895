/**
 * The phone port over the official `@twilio/voice-sdk`, for `VOICE_SDK=twilio`. Loaded lazily,
 * as its own chunk, so the default console never downloads it.
 *
 * Against the embedded engine the official SDK needs: the gateway on the page's own host
 * (`chunderw`; it always speaks `wss://<chunderw>/signal`, so the page is served over HTTPS),
 * no insights upload (`publishEvents: false`; it sets no ICE servers of its own), the product's own
 * sounds (otherwise it fetches them from a CDN), and `maxCallSignalingTimeoutMs` so that a call
 * survives a dropped signalling socket (off by default in the official SDK).
 *
 * With `TELEPHONY_PROVIDER=twilio` (`settings.edge`) none of the embedded overrides apply: the
 * device talks to Twilio's edge as any Twilio app's does.
 *
 * The port's `audio` is the official `device.audio` (`AudioHelper`), passed through
 * (`adaptDevice` checks its shape). It names devices whose label the browser hides itself
 * ('Unknown Audio Input Device 1'), and is `null` once the device is destroyed.
 *
 * A call's media errors reach the console in spec section 8's codes, as our SDK raises them:
 * the official SDK raises 53xxx for those events ({@link specCallError}).
 */
import { Call, Device } from '@twilio/voice-sdk';
import { SIGNALING_RECONNECT_WINDOW_MS } from '../constants';
import type { SoftphoneSettings } from '@leadline/contracts';
import type { PhoneDevice, PhoneError, PhoneFactory } from './phone-port';
import { adaptDevice, type SdkCall } from './sdk-adapter';

/**
 * `chunderw` (the signalling host) and `publishEvents` are among the official SDK's extended
 * options (`IExtendedDeviceOptions`), which its package root does not export.
 */
type TwilioDeviceOptions = Device.Options & { chunderw: string; publishEvents: boolean };

/**
 * Where the device connects: the embedded engine on the page's own host, without insights; or,
 * with `edge: 'twilio'`, Twilio's own edge and the SDK's defaults.
 */
export function edgeOptions(
  settings: SoftphoneSettings,
  host: string,
): Partial<TwilioDeviceOptions> {
  return settings.edge === 'twilio' ? {} : { chunderw: host, publishEvents: false };
}

/** A spec section 8 code, the official SDK's name for it, and the message for a call. */
interface SpecError {
  readonly code: 31000 | 31003;
  readonly name: 'UnknownError' | 'ConnectionTimeoutError';
  readonly message: (direction: string | undefined) => string;
}

/**
 * The official SDK's call errors for events that spec section 8 gives other codes, by its
 * code. It raises them from `rtc/peerconnection.ts` and `call.ts` (`MEDIA_DISCONNECT_ERROR`),
 * each with the spec's code and text as its legacy `info.code`/`info.message`, which it logs
 * but does not emit:
 * - 53400 ClientLocalDescFailed: 'Error creating the offer';
 * - 53402 ClientRemoteDescFailed: 'Error processing answer' (outgoing), 'Error creating the
 *   answer' (incoming);
 * - 53001 ConnectionDisconnected: 'Cannot establish connection. Client is disconnected' (a
 *   call's `error`; on `reconnecting` it keeps 53001, as ours does);
 * - 53405 ConnectionError: the media connection lost for good, legacy 31003 'Connection with
 *   Twilio was interrupted.' (on `reconnecting` it keeps 53405, as ours does).
 * The messages are our SDK's, so the console logs the same text on either SDK.
 */
const SPEC_ERRORS: Readonly<Record<number, SpecError>> = {
  53400: { code: 31000, name: 'UnknownError', message: () => 'Error creating the offer' },
  53402: {
    code: 31000,
    name: 'UnknownError',
    message: (direction) =>
      direction === Call.CallDirection.Incoming
        ? 'Error creating the answer'
        : 'Error processing answer',
  },
  53001: {
    code: 31000,
    name: 'UnknownError',
    message: () => 'Cannot establish connection. Client is disconnected',
  },
  53405: {
    code: 31003,
    name: 'ConnectionTimeoutError',
    message: () => 'Media connection was interrupted.',
  },
};

/** An official SDK error restated in a spec section 8 code; the original is its `cause`. */
export class SpecCodedError extends Error implements PhoneError {
  readonly code: number;
  /** The official SDK's error, as our SDK's errors name their cause. */
  readonly originalError: PhoneError;

  constructor(spec: SpecError, message: string, original: PhoneError) {
    super(`${spec.name} (${spec.code}): ${message}`, { cause: original });
    this.name = spec.name;
    this.code = spec.code;
    this.originalError = original;
  }
}

/**
 * A call's error as the console sees it: the official SDK's 53400, 53402, 53001 and 53405 in
 * spec section 8's codes (31000 with the failed step's text; 31003 for media interrupted),
 * every other error as the SDK raised it.
 */
export function specCallError(error: PhoneError, call: Pick<SdkCall, 'direction'>): PhoneError {
  const spec = SPEC_ERRORS[error.code];
  return spec ? new SpecCodedError(spec, spec.message(call.direction), error) : error;
}

/** The phone port over an official SDK device: its call errors in the spec's codes. */
export function adaptTwilioDevice(device: Device): PhoneDevice {
  return adaptDevice(device, { callError: specCallError });
}

/** Creates a device of the official Voice SDK. */
export const createTwilioPhone: PhoneFactory = (token, settings) => {
  const options: Device.Options = {
    ...edgeOptions(settings, window.location.host),
    sounds: settings.sounds,
    maxCallSignalingTimeoutMs: SIGNALING_RECONNECT_WINDOW_MS,
    codecPreferences: [Call.Codec.PCMU, Call.Codec.Opus],
    logLevel: 'warn',
  };
  return adaptTwilioDevice(new Device(token, options));
};
