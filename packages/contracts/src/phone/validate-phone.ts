/**
 * The phone input's validation result (spec sections 2 and 5), computed from the text and the
 * selected country on every change: the number's country, its formatted text, whether it is
 * valid (matches the country's national pattern) and possible (its length fits), and its
 * national number. Numbers of countries the input does not allow are invalid.
 */
import { parsePhone } from './parse-phone';
import { isCountryAllowed, normalizeCountry, type CountryFilter } from './phone-countries';
import { resolvePhoneFormat, type PhoneFormat } from './phone-format';
import type { PhoneParseErrorCode } from './phone-parse-error';

/** What {@link validatePhone} needs besides the text. */
export interface ValidatePhoneOptions extends CountryFilter {
  /** The selected country (ISO code, any case): how text without `+` is read. */
  readonly country?: string | null;
  /**
   * Output format of `formatted` (a {@link PhoneFormatMode}); `automatic` by default, and an
   * unknown value means international.
   */
  readonly mode?: string;
}

/** The validation result. */
export interface PhoneValidation {
  /** ISO code of the number's country; null when it cannot be told. */
  readonly countryCode: string | null;
  /** The number in the output format when valid; otherwise the text as typed. */
  readonly formatted: string;
  /** Parsed, of an allowed country, and matching that country's national pattern. */
  readonly valid: boolean;
  /** Parsed and of a length the country allows (dialable). */
  readonly possible: boolean;
  /** The national (significant) number's digits, or null when the text did not parse. */
  readonly nationalNumber: string | null;
  /** The number in E.164 when it is at least possible, else null: what the server dials. */
  readonly e164: string | null;
  /** The extension's digits, if any. */
  readonly extension: string | null;
  /** The output format used for `formatted`. */
  readonly format: PhoneFormat;
  /** Why the text did not parse (empty text is NOT_A_NUMBER); null when it did. */
  readonly error: PhoneParseErrorCode | null;
}

/** Validates `text` as typed into the phone input with `options.country` selected. */
export function validatePhone(text: string, options: ValidatePhoneOptions = {}): PhoneValidation {
  const format = resolvePhoneFormat(options.mode ?? 'automatic', text);
  const parsed = parsePhone(text, { defaultCountry: options.country ?? null });
  if (!parsed.ok) {
    return {
      countryCode: null,
      formatted: text,
      valid: false,
      possible: false,
      nationalNumber: null,
      e164: null,
      extension: null,
      format,
      error: parsed.error,
    };
  }
  const { phone } = parsed;
  // A non-geographic number (+800) has no country: fine unless the countries are restricted.
  const restricted =
    (options.onlyCountries ?? []).length > 0 || (options.ignoredCountries ?? []).length > 0;
  const allowed = restricted ? isCountryAllowed(phone.country, options) : true;
  const valid = phone.valid && allowed;
  return {
    countryCode: phone.country,
    formatted: valid
      ? phone.format(format, { fromCountry: normalizeCountry(options.country) })
      : text,
    valid,
    possible: phone.possible,
    nationalNumber: phone.nationalNumber,
    e164: phone.possible ? phone.e164 : null,
    extension: phone.extension,
    format,
    error: null,
  };
}
