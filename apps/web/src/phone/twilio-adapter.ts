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
 */
import { Call, Device } from '@twilio/voice-sdk';
import { SIGNALING_RECONNECT_WINDOW_MS } from '../constants';
import type { SoftphoneSettings } from '@leadline/contracts';
import type { PhoneFactory } from './phone-port';
import { adaptDevice } from './sdk-adapter';

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

/** Creates a device of the official Voice SDK. */
export const createTwilioPhone: PhoneFactory = (token, settings) => {
  const options: Device.Options = {
    ...edgeOptions(settings, window.location.host),
    sounds: settings.sounds,
    maxCallSignalingTimeoutMs: SIGNALING_RECONNECT_WINDOW_MS,
    codecPreferences: [Call.Codec.PCMU, Call.Codec.Opus],
    logLevel: 'warn',
  };
  return adaptDevice(new Device(token, options));
};
