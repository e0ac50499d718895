/**
 * The console's phone factory: loads the SDK the server names (`VOICE_SDK`, handed over in
 * `GET /api/v1/user`'s `softphone.sdk`) as a lazy chunk, so only that SDK is downloaded.
 */
import type { PhoneFactory } from './phone-port';

/** Creates a device of the configured SDK. */
export const loadPhone: PhoneFactory = async (token, settings) => {
  const create =
    settings.sdk === 'twilio'
      ? (await import('./twilio-adapter')).createTwilioPhone
      : (await import('./leadline-adapter')).createLeadlinePhone;
  return create(token, settings);
};
