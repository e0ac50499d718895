/**
 * The two helpers the server uses before storing and dialling numbers, and for display.
 */
import { parsePhone, type ParsedPhone } from './parse-phone';

/**
 * Numbers `toE164` parsed lately, by E.164: showing a number just stored (the lead an intake
 * answers with) then formats it without parsing it again. Bounded; the oldest go first.
 */
const recentlyParsed = new Map<string, ParsedPhone>();
const RECENTLY_PARSED_MAX = 1000;

function remember(phone: ParsedPhone): void {
  recentlyParsed.delete(phone.e164);
  recentlyParsed.set(phone.e164, phone);
  if (recentlyParsed.size > RECENTLY_PARSED_MAX) {
    recentlyParsed.delete(recentlyParsed.keys().next().value!);
  }
}

/**
 * Normalises a dialable number to E.164, or returns null. "Possible" (length fits), not
 * "valid", so the sandbox's +1555… numbers are accepted. `defaultCountry` (ISO code, any case)
 * reads numbers written without `+`.
 */
export function toE164(input: string, defaultCountry: string = 'US'): string | null {
  const parsed = parsePhone(input.trim(), { defaultCountry });
  if (!parsed.ok || !parsed.phone.possible) return null;
  if (!parsed.phone.extension) remember(parsed.phone);
  return parsed.phone.e164;
}

/** Formats an E.164 number for display (international format), or returns it unchanged. */
export function formatPhone(e164: string): string {
  const recent = recentlyParsed.get(e164);
  if (recent) return recent.format('international');
  const parsed = parsePhone(e164);
  return parsed.ok ? parsed.phone.format('international') : e164;
}
