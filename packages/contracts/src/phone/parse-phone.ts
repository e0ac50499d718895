/**
 * Reads a typed phone number (spec section 5): at least 2 digits, a national number of at most
 * 17 digits, text of at most 250 characters, an extension of at most 20 digits. Parsing is
 * `libphonenumber-js`'s (min metadata); this module turns its thrown errors into data.
 */
import {
  ParseError,
  parsePhoneNumberWithError,
  type CountryCode,
  type PhoneNumber,
} from 'libphonenumber-js/min';
import { normalizeCountry } from './phone-countries';
import { isPhoneParseErrorCode, type PhoneParseErrorCode } from './phone-parse-error';
import type { PhoneFormat } from './phone-format';

/** How to read text that does not start with `+`. */
export interface ParsePhoneOptions {
  /**
   * The country (ISO code, any case) of numbers written without a calling code. An unknown
   * country makes such numbers INVALID_COUNTRY; numbers starting with `+` still parse.
   */
  readonly defaultCountry?: string | null;
}

/** Options of {@link ParsedPhone.format}. */
export interface FormatPhoneOptions {
  /** For `idd`: the country the number is dialled from (defaults to the number's own). */
  readonly fromCountry?: string | null;
}

/** A phone number read from text. */
export interface ParsedPhone {
  /** ISO code of the number's country; null for non-geographic numbers (`+800`). */
  readonly country: string | null;
  /** Calling code without `+` (`44`). */
  readonly callingCode: string;
  /** The national (significant) number, digits only, without the trunk prefix. */
  readonly nationalNumber: string;
  /** The number in E.164 (`+442079460958`), without the extension. */
  readonly e164: string;
  /** The extension's digits, if one was written. */
  readonly extension: string | null;
  /** The national number matches its country's national pattern. */
  readonly valid: boolean;
  /** The national number's length is one its country allows. */
  readonly possible: boolean;
  /** The number written in `format`. */
  format(format: PhoneFormat, options?: FormatPhoneOptions): string;
}

/** The outcome of {@link parsePhone}. */
export type ParsePhoneResult =
  | { readonly ok: true; readonly phone: ParsedPhone }
  | { readonly ok: false; readonly error: PhoneParseErrorCode };

/** Reads `text` as a phone number; never throws. */
export function parsePhone(text: string, options: ParsePhoneOptions = {}): ParsePhoneResult {
  const requested = options.defaultCountry ?? null;
  const defaultCountry = normalizeCountry(requested);
  const international = text.trimStart().startsWith('+');
  // The library refuses an unknown default country even for `+` numbers, which do not need it.
  if (requested && !defaultCountry && !international)
    return { ok: false, error: 'INVALID_COUNTRY' };
  let number: PhoneNumber;
  try {
    number = parsePhoneNumberWithError(
      text,
      defaultCountry ? { defaultCountry: defaultCountry as CountryCode } : {},
    );
  } catch (error) {
    if (error instanceof ParseError && isPhoneParseErrorCode(error.message)) {
      return { ok: false, error: error.message };
    }
    throw error;
  }
  return { ok: true, phone: wrap(number) };
}

function wrap(number: PhoneNumber): ParsedPhone {
  let valid: boolean | undefined;
  let possible: boolean | undefined;
  return {
    country: number.country ?? null,
    callingCode: number.countryCallingCode,
    nationalNumber: number.nationalNumber,
    e164: number.number,
    extension: number.ext ?? null,
    // Checked when asked (matching the country's patterns is most of a parse's cost).
    get valid() {
      return (valid ??= number.isValid());
    },
    get possible() {
      return (possible ??= number.isPossible());
    },
    format(format, options = {}) {
      switch (format) {
        case 'national':
          return number.formatNational();
        case 'international':
          return number.formatInternational();
        case 'e.164':
          return number.number;
        case 'rfc3966':
          return number.getURI();
        case 'idd': {
          const fromCountry = normalizeCountry(options.fromCountry) ?? number.country;
          // Without a country to dial from (or one with no IDD prefix) there is no IDD form.
          const idd = fromCountry
            ? (number.format('IDD', { fromCountry: fromCountry as CountryCode }) as
                string | undefined)
            : undefined;
          return idd || number.formatInternational();
        }
      }
    },
  };
}
