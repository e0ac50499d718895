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
 * The port's `audio` is the official `device.audio` (`AudioHelper`), passed through
 * (`adaptDevice` checks its shape). It names devices whose label the browser hides itself
 * ('Unknown Audio Input Device 1'), and is `null` once the device is destroyed.
 */
import { Call, Device } from '@twilio/voice-sdk';
import { SIGNALING_RECONNECT_WINDOW_MS } from '../constants';
import type { PhoneFactory } from './phone-port';
import { adaptDevice } from './sdk-adapter';

/**
 * `chunderw` (the signalling host) and `publishEvents` are among the official SDK's extended
 * options (`IExtendedDeviceOptions`), which its package root does not export.
 */
type TwilioDeviceOptions = Device.Options & { chunderw: string; publishEvents: boolean };

/** Creates a device of the official Voice SDK. */
export const createTwilioPhone: PhoneFactory = (token, settings) => {
  const options: TwilioDeviceOptions = {
    chunderw: window.location.host,
    publishEvents: false,
    sounds: settings.sounds,
    maxCallSignalingTimeoutMs: SIGNALING_RECONNECT_WINDOW_MS,
    codecPreferences: [Call.Codec.PCMU, Call.Codec.Opus],
    logLevel: 'warn',
  };
  return adaptDevice(new Device(token, options));
};
