/**
 * The two helpers the server uses before storing and dialling numbers, and for display.
 */
import { parsePhone } from './parse-phone';

/**
 * Normalises a dialable number to E.164, or returns null. "Possible" (length fits), not
 * "valid", so the sandbox's +1555… numbers are accepted. `defaultCountry` (ISO code, any case)
 * reads numbers written without `+`.
 */
export function toE164(input: string, defaultCountry: string = 'US'): string | null {
  const parsed = parsePhone(input.trim(), { defaultCountry });
  if (!parsed.ok || !parsed.phone.possible) return null;
  return parsed.phone.e164;
}

/** Formats an E.164 number for display (international format), or returns it unchanged. */
export function formatPhone(e164: string): string {
  const parsed = parsePhone(e164);
  return parsed.ok ? parsed.phone.format('international') : e164;
}
