/**
 * Why a text could not be read as a phone number (spec sections 5 and 8). The codes are
 * `libphonenumber-js`'s, surfaced to callers unchanged.
 */

/** Every parse error code, in the spec's order. */
export const PHONE_PARSE_ERROR_CODES = [
  /** No phone number in the text (no digits, letters only, or an extension over 20 digits). */
  'NOT_A_NUMBER',
  /** The country (default country, or the `+` calling code) is unknown. */
  'INVALID_COUNTRY',
  /** Fewer than 2 digits. */
  'TOO_SHORT',
  /** Over 250 characters, or a national number over 17 digits. */
  'TOO_LONG',
] as const;

/** A parse error code. */
export type PhoneParseErrorCode = (typeof PHONE_PARSE_ERROR_CODES)[number];

/** Whether `value` is one of the {@link PHONE_PARSE_ERROR_CODES}. */
export function isPhoneParseErrorCode(value: unknown): value is PhoneParseErrorCode {
  return (PHONE_PARSE_ERROR_CODES as readonly unknown[]).includes(value);
}
