/**
 * The phone port over our SDK (`@leadline/softphone`), signalling to the page's own host
 * (`/signal`) with the product's sounds. Loaded lazily, as its own chunk, when `VOICE_SDK` is
 * `leadline` (the default). The port's `audio` is the SDK's `device.audio` (`AudioHelper`),
 * passed through (`adaptDevice` checks its shape).
 */
import { Device } from '@leadline/softphone';
import type { PhoneFactory } from './phone-port';
import { adaptDevice } from './sdk-adapter';

/** Creates a device of our SDK. */
export const createLeadlinePhone: PhoneFactory = (token, settings) =>
  adaptDevice(new Device(token, { sounds: settings.sounds }));
