/**
 * The phone port over our SDK (`@leadline/softphone`), signalling to the page's own host
 * (`/signal`) with the product's sounds. Loaded lazily, as its own chunk, when `VOICE_SDK` is
 * `leadline` (the default). The port's `audio` is the SDK's `device.audio` (`AudioHelper`),
 * passed through (`adaptDevice` checks its shape). The SDK's sockets are watched for rings
 * (`invite-tap.ts`): the device emits `invite` as a ring arrives, before `incoming`.
 */
import { Device, browserPlatform, type Platform } from '@leadline/softphone';
import { InviteTap } from './invite-tap';
import type { PhoneFactory } from './phone-port';
import { adaptDevice } from './sdk-adapter';

/** Creates a device of our SDK, its sockets watched for rings. */
export const createLeadlinePhone: PhoneFactory = (token, settings) => {
  const platform = browserPlatform();
  const invites = new InviteTap();
  const watched: Platform = {
    ...platform,
    createSocket: invites.watching((url) => platform.createSocket(url)),
  };
  return adaptDevice(new Device(token, { sounds: settings.sounds, platform: watched }), {
    invites,
  });
};
