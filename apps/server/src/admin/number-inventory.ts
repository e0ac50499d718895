/**
 * The `NumberInventory` port: which phone numbers the telephony account holds, so an admin can
 * only make a caller number of a number the product can actually call from and be called on
 * (issue 37). With Twilio (`twilio/twilio-number-inventory.ts`) it is the account's
 * IncomingPhoneNumbers, read when asked (a number bought a minute ago counts); the embedded
 * engine's sandbox network carries any number, so every number is allowed there. With a
 * provider's inventory the operator also assigns each number to one account
 * (`number-assignments.ts`): an account uses only its own.
 */
import { AppError } from '../http/errors';

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

/** The sentence when the provider cannot be asked for its numbers. */
export const INVENTORY_UNREACHABLE =
  "Twilio could not be asked for the account's numbers just now. Try again in a moment.";

/** The numbers `inventory` holds; 503 `INVENTORY_UNREACHABLE` when it cannot be asked. */
export async function heldNumbersOf(inventory: NumberInventory): Promise<HeldNumber[]> {
  try {
    return await inventory.list();
  } catch (error) {
    throw new AppError('CALL_SERVICE_UNREACHABLE', INVENTORY_UNREACHABLE, { cause: error });
  }
}
