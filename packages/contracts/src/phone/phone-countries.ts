/**
 * Country metadata for the phone input (spec section 3): ISO code, calling code, international
 * (IDD) prefix, national (trunk) prefix, leading digits ("area codes" of countries that share a
 * calling code), national pattern, possible lengths and formats. Read from `libphonenumber-js`'s
 * metadata; names and flags are the UI's business.
 */
import {
  Metadata,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  type CountryCode,
  type NumberingPlan,
} from 'libphonenumber-js/min';

/** One way numbers of a country are written. */
export interface PhoneNumberFormat {
  /** Groups of the national number, e.g. `(\d{3})(\d{3})(\d{4})`. */
  readonly pattern: string;
  /** How the groups are joined, e.g. `($1) $2-$3`. */
  readonly format: string;
  /** Leading-digit patterns the format applies to (all numbers when empty). */
  readonly leadingDigitsPatterns: readonly string[];
}

/** Metadata of one country's numbering plan. */
export interface PhoneCountryMetadata {
  /** ISO 3166-1 alpha-2 code, upper case (`GB`). */
  readonly iso2: string;
  /** Calling (dial) code without `+` (`44`). */
  readonly callingCode: string;
  /** The prefix dialled before an international number (`00`, `011`, `0011`), if any. */
  readonly internationalPrefix: string | null;
  /** Every international prefix the country accepts, as a pattern (`0011|001[14-689]`). */
  readonly internationalPrefixPattern: string | null;
  /** The national (trunk) prefix dialled before national numbers (`0` in GB, DE), if any. */
  readonly nationalPrefix: string | null;
  /**
   * Leading digits of the national number that identify the country among those sharing its
   * calling code (`1534` for Jersey under +44), if the metadata has them.
   */
  readonly leadingDigits: string | null;
  /** The pattern every valid national number matches entirely. */
  readonly nationalPattern: string;
  /** Allowed lengths of the national number. */
  readonly possibleLengths: readonly number[];
  /** National formats. */
  readonly formats: readonly PhoneNumberFormat[];
}

/**
 * The parts of a numbering plan this module reads. The library's typings list only some of
 * the methods its `NumberingPlan` class has; these are the others it documents in its source.
 */
interface FullNumberingPlan extends NumberingPlan {
  callingCode(): string;
  defaultIDDPrefix(): string | undefined;
  nationalNumberPattern(): string;
  nationalPrefix(): string | undefined;
  formats(): readonly {
    pattern(): string;
    format(): string;
    leadingDigitsPatterns(): string[];
  }[];
}

/** Every country the metadata knows, as upper-case ISO codes, in the library's order. */
export const PHONE_COUNTRY_CODES: readonly string[] = getCountries();

/** The upper-case ISO code if `iso2` names a known country (any case), else null. */
export function normalizeCountry(iso2: string | null | undefined): string | null {
  if (typeof iso2 !== 'string') return null;
  const upper = iso2.trim().toUpperCase();
  return isSupportedCountry(upper) ? upper : null;
}

/** The calling code (`44`) of a country (any case), or null for an unknown one. */
export function callingCodeOf(iso2: string): string | null {
  const country = normalizeCountry(iso2);
  return country ? getCountryCallingCode(country as CountryCode) : null;
}

const metadataCache = new Map<string, PhoneCountryMetadata>();

/** The numbering plan of a country (any case), or null for an unknown one. */
export function phoneCountryMetadata(iso2: string): PhoneCountryMetadata | null {
  const country = normalizeCountry(iso2);
  if (!country) return null;
  const cached = metadataCache.get(country);
  if (cached) return cached;
  const metadata = new Metadata();
  metadata.selectNumberingPlan(country as CountryCode);
  const plan = metadata.numberingPlan as FullNumberingPlan;
  const entry: PhoneCountryMetadata = {
    iso2: country,
    callingCode: plan.callingCode(),
    internationalPrefix: dialablePrefix(plan),
    internationalPrefixPattern: plan.IDDPrefix() || null,
    nationalPrefix: plan.nationalPrefix() || null,
    leadingDigits: plan.leadingDigits() || null,
    nationalPattern: plan.nationalNumberPattern(),
    possibleLengths: plan.possibleLengths(),
    formats: plan.formats().map((f) => ({
      pattern: f.pattern(),
      format: f.format(),
      leadingDigitsPatterns: f.leadingDigitsPatterns(),
    })),
  };
  metadataCache.set(country, entry);
  return entry;
}

/** The preferred international prefix; the accepted one when it is a plain digit string. */
function dialablePrefix(plan: FullNumberingPlan): string | null {
  const preferred = plan.defaultIDDPrefix();
  if (preferred) return preferred;
  const accepted = plan.IDDPrefix();
  return /^\d+$/.test(accepted) ? accepted : null;
}

/** Which countries are allowed: only these (when non-empty), minus the ignored ones. */
export interface CountryFilter {
  /** When non-empty, only these countries (ISO codes, any case). */
  readonly onlyCountries?: readonly string[];
  /** Countries left out (ISO codes, any case). */
  readonly ignoredCountries?: readonly string[];
}

/** Whether `iso2` passes `filter`. */
export function isCountryAllowed(iso2: string | null, filter: CountryFilter = {}): boolean {
  const country = normalizeCountry(iso2);
  if (!country) return false;
  const only = (filter.onlyCountries ?? []).map((c) => c.toUpperCase());
  if (only.length > 0 && !only.includes(country)) return false;
  return !(filter.ignoredCountries ?? []).some((c) => c.toUpperCase() === country);
}

/** The known countries that pass `filter`, in the order of `PHONE_COUNTRY_CODES`. */
export function allowedCountries(filter: CountryFilter = {}): readonly string[] {
  return PHONE_COUNTRY_CODES.filter((country) => isCountryAllowed(country, filter));
}
