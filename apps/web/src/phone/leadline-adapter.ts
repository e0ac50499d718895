/**
 * The phone port over our SDK (`@leadline/softphone`), signalling to the page's own host
 * (`/signal`) with the product's sounds. Loaded lazily, as its own chunk, when `VOICE_SDK` is
 * `leadline` (the default). The port's `audio` is the SDK's `device.audio` (`AudioHelper`),
 * passed through (`adaptDevice` checks its shape). The SDK's sockets are watched for rings
 * (`invite-tap.ts`): the device emits `invite` as a ring arrives, before `incoming`. A call the
 * server declined is restated as the 31603 it is ({@link declinedCallError}).
 */
import { Device, browserPlatform, type Platform } from '@leadline/softphone';
import { InviteTap } from './invite-tap';
import type { PhoneError, PhoneFactory } from './phone-port';
import { adaptDevice } from './sdk-adapter';

/** The code of a call the server declined, with the sentence for the agent (Decline). */
const DECLINED = 31603;

/**
 * A call's error as the console sees it: the server's hangup of a call it declined (31603, with
 * the dial guard's sentence: a number the account may not call, a login that ended) comes from
 * our SDK, as from the official one without `enableImprovedSignalingErrorPrecision`, as a 31005
 * ConnectionError (which the console ignores) carrying the wire error as `originalError`; it is
 * restated as that 31603 with the server's sentence. Every other error is the SDK's own.
 */
export function declinedCallError(error: PhoneError): PhoneError {
  const wire = (error as { originalError?: unknown }).originalError;
  if (
    error.code !== 31005 ||
    typeof wire !== 'object' ||
    wire === null ||
    (wire as { code?: unknown }).code !== DECLINED ||
    typeof (wire as { message?: unknown }).message !== 'string'
  ) {
    return error;
  }
  return { code: DECLINED, name: 'Decline', message: (wire as { message: string }).message };
}

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
    callError: declinedCallError,
  });
};
