import { z } from 'zod';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';

/**
 * Normalises a dialable number to E.164, or returns null. "Possible" (length fits), not "valid",
 * so the sandbox's +1555… numbers are accepted.
 */
export function toE164(input: string, defaultCountry: string = 'US'): string | null {
  const parsed = parsePhoneNumberFromString(input, {
    defaultCountry: defaultCountry.toUpperCase() as CountryCode,
  });
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}

/** Formats an E.164 number for display (international format), or returns it unchanged. */
export function formatPhone(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  return parsed ? parsed.formatInternational() : e164;
}

/** A phone number field: any common notation in, E.164 out. */
export const PhoneNumber = z
  .string({ error: 'The phone number field is required.' })
  .trim()
  .min(1, { error: 'The phone number field is required.' })
  .max(25, { error: 'The phone number may not be longer than 25 characters.' })
  .transform((value, ctx) => {
    const e164 = toE164(value);
    if (!e164) {
      ctx.addIssue({ code: 'custom', message: 'The phone number is not a valid phone number.' });
      return z.NEVER;
    }
    return e164;
  });
