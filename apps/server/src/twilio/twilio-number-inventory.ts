/**
 * The Twilio account's phone numbers (`IncomingPhoneNumbers`), read when asked: only these may
 * be an account's caller numbers (`admin/number-inventory.ts`).
 */
import type twilio from 'twilio';
import type { HeldNumber, NumberInventory } from '../admin/number-inventory';

/** The most numbers read (one page of Twilio's list). */
export const TWILIO_NUMBERS_LIMIT = 1000;

/** The inventory of the account `client` is authenticated for. */
export function twilioNumberInventory(client: twilio.Twilio): NumberInventory {
  return {
    providerChecked: true,
    async list(): Promise<HeldNumber[]> {
      const listed = await client.incomingPhoneNumbers.list({ limit: TWILIO_NUMBERS_LIMIT });
      return listed.map((number) => ({
        phoneNumber: number.phoneNumber,
        friendlyName: number.friendlyName || null,
      }));
    },
  };
}
