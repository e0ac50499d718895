/**
 * Where a number rings, and whether an account may call or text it (issue 36, the toll-fraud
 * guard's pure part): libphonenumber's full metadata (`libphonenumber-js/max`, server side only)
 * gives the number's country and type.
 *
 * - Types refused whatever the country: premium rate, shared cost, personal numbers and
 *   universal access numbers (UAN), where the caller pays the far end's owner.
 * - The country: libphonenumber's when it can tell; a number it cannot place in one country of
 *   its calling code (the sandbox's +1 555 010 XXXX: no area code of any country) is the calling
 *   code's main country among those it could be (+1: the United States); a number of no country
 *   at all (+882 international networks, +870 satellite phones) is refused.
 * - A number libphonenumber cannot classify (type unknown) is not refused for its type: it is no
 *   premium number as far as anyone can tell, and the sandbox's numbers are such. A number that
 *   is not a phone number at all was refused before (the `phone_number` schemas, `toE164`).
 */
import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';

/** A call (`Calls to …`) or an SMS (`Texts to …`). */
export type DialKind = 'call' | 'text';

/** The number types refused whatever the country, with the words the refusal uses. */
export const REFUSED_NUMBER_TYPES: Partial<Record<NonNullable<NumberType>, string>> = {
  PREMIUM_RATE: 'premium-rate numbers',
  SHARED_COST: 'shared-cost numbers',
  PERSONAL_NUMBER: 'personal numbers',
  UAN: 'universal access numbers (UAN)',
};

/** Why a destination is refused, and the sentence the agent reads. */
export type DestinationRefusal =
  | { reason: 'number-type'; type: NonNullable<NumberType>; message: string }
  | { reason: 'country'; country: string; message: string }
  | { reason: 'no-country'; callingCode: string; message: string }
  | { reason: 'not-a-number'; message: string };

const subject = (kind: DialKind) => (kind === 'call' ? 'Calls' : 'Texts');

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** Names said with "the" in a sentence ("Calls to the United Kingdom …"). */
const WITH_ARTICLE =
  /^(United |Czech Republic|Dominican Republic|Central African Republic|Netherlands|Philippines|Bahamas|Gambia|Maldives|Comoros|Seychelles|Vatican City)|Islands$/;

/** A country's English name as a sentence says it: "Russia", "the United Kingdom". */
export function countryName(iso: string): string {
  const name = regionNames.of(iso.toUpperCase()) ?? iso.toUpperCase();
  return WITH_ARTICLE.test(name) ? `the ${name}` : name;
}

/** Where an E.164 number rings: its country (ISO 3166-1 alpha-2) and type, as far as known. */
export interface NumberFacts {
  /** Null for a number of no country (international networks, satellite phones). */
  country: string | null;
  /** libphonenumber's type; undefined when it cannot classify the number. */
  type: NumberType;
  /** The calling code, without the plus. */
  callingCode: string;
}

/** The facts of an E.164 number, or null when it is not a phone number. */
export function numberFacts(e164: string): NumberFacts | null {
  const phone = parsePhoneNumberFromString(e164);
  if (!phone) return null;
  let country: string | null = phone.country ?? null;
  if (country === null) {
    // The countries it could be, the calling code's main country first (metadata order).
    const possible = phone.getPossibleCountries();
    country = possible[0] ?? null;
  }
  return { country, type: phone.getType(), callingCode: phone.countryCallingCode };
}

/**
 * Whether an account that calls `allowedCountries` may call (or text, `kind`) `e164`: null when
 * it may, else why not. The number's type is looked at first: a premium-rate number is refused
 * as such even in a country the account calls.
 */
export function destinationRefusal(
  e164: string,
  allowedCountries: ReadonlySet<string>,
  kind: DialKind,
): DestinationRefusal | null {
  const facts = numberFacts(e164);
  if (!facts) {
    return { reason: 'not-a-number', message: `${e164} is not a valid phone number.` };
  }
  const refusedType = facts.type ? REFUSED_NUMBER_TYPES[facts.type] : undefined;
  if (facts.type && refusedType) {
    return {
      reason: 'number-type',
      type: facts.type,
      message: `${subject(kind)} to ${refusedType} are not allowed.`,
    };
  }
  if (facts.country === null) {
    return {
      reason: 'no-country',
      callingCode: facts.callingCode,
      message: `${subject(kind)} to international network numbers (+${facts.callingCode}) are not allowed.`,
    };
  }
  if (!allowedCountries.has(facts.country)) {
    return {
      reason: 'country',
      country: facts.country,
      message: `${subject(kind)} to ${countryName(facts.country)} are not allowed for this account.`,
    };
  }
  return null;
}
