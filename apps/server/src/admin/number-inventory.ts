/**
 * The `NumberInventory` port: which phone numbers the telephony account holds, so an admin can
 * only make a caller number of a number the product can actually call from and be called on
 * (issue 37). With Twilio (`twilio/twilio-number-inventory.ts`) it is the account's
 * IncomingPhoneNumbers, read when asked (a number bought a minute ago counts); the embedded
 * engine's sandbox network carries any number, so every number is allowed there.
 */

/** A number the telephony account holds. */
export interface HeldNumber {
  /** E.164. */
  phoneNumber: string;
  /** The provider's name for it, if any. */
  friendlyName: string | null;
}

/** The numbers a telephony account holds. */
export interface NumberInventory {
  /** Whether `list` is the provider's account (true) or any number is allowed (false). */
  readonly providerChecked: boolean;
  /**
   * The numbers held (empty when `providerChecked` is false). Rejects when the provider cannot
   * be asked.
   */
  list(): Promise<HeldNumber[]>;
}

/** The embedded engine's: any number may be a caller number, none is listed. */
export const ANY_NUMBER: NumberInventory = {
  providerChecked: false,
  list: () => Promise.resolve([]),
};
