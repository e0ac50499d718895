/**
 * The phone input's country list: every country of the shared phone module with its name (from
 * the browser's `Intl.DisplayNames`, no data shipped), dial code and flag, sorted by name, with
 * the only/ignored/preferred props applied; plus name search and the type-to-find match.
 */
import {
  PHONE_COUNTRY_CODES,
  callingCodeOf,
  isCountryAllowed,
  type CountryFilter,
} from '@leadline/contracts/phone';
import { flagEmoji } from './flag-emoji';

/** One country of the dropdown. */
export interface CountryOption {
  /** ISO 3166-1 alpha-2 code, upper case. */
  readonly iso2: string;
  /** The country's name in the list's language (`United Kingdom`). */
  readonly name: string;
  /** Calling code without `+` (`44`). */
  readonly dialCode: string;
  /** The flag as an emoji (two regional-indicator symbols). */
  readonly flag: string;
  /** The name folded for matching: lower case, without accents. */
  readonly key: string;
}

/** How the list is built. */
export interface CountryListOptions extends CountryFilter {
  /** Countries shown first, in this order (ISO codes, any case). */
  readonly preferredCountries?: readonly string[];
  /** The language of the names (BCP 47); English by default. */
  readonly locale?: string;
}

/** Lower case, accents and punctuation folded (`Côte d’Ivoire` → `cote d'ivoire`). */
export function foldForMatch(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/[’‘`]/g, "'").toLowerCase();
}

const everyCountryByLocale = new Map<string, readonly CountryOption[]>();

/** Every known country with its name in `locale`, sorted by name. Built once per locale. */
export function everyCountry(locale = 'en'): readonly CountryOption[] {
  const cached = everyCountryByLocale.get(locale);
  if (cached) return cached;
  const names = regionNames(locale);
  const collator = new Intl.Collator(locale, { sensitivity: 'base' });
  const list = PHONE_COUNTRY_CODES.map((iso2): CountryOption => {
    const name = names(iso2);
    return {
      iso2,
      name,
      dialCode: callingCodeOf(iso2) ?? '',
      flag: flagEmoji(iso2),
      key: foldForMatch(name),
    };
  }).sort((a, b) => collator.compare(a.name, b.name));
  everyCountryByLocale.set(locale, list);
  return list;
}

function regionNames(locale: string): (iso2: string) => string {
  try {
    const display = new Intl.DisplayNames([locale, 'en'], { type: 'region', fallback: 'code' });
    return (iso2) => display.of(iso2) ?? iso2;
  } catch {
    return (iso2) => iso2;
  }
}

const listsByOptions = new Map<string, readonly CountryOption[]>();

/**
 * The allowed countries: preferred ones first (in their order), then the rest by name. The same
 * options give the same array, so components can call it on every render.
 */
export function countryList(options: CountryListOptions = {}): readonly CountryOption[] {
  const key = [
    options.locale ?? 'en',
    (options.onlyCountries ?? []).join(),
    (options.ignoredCountries ?? []).join(),
    (options.preferredCountries ?? []).join(),
  ]
    .join('|')
    .toUpperCase();
  const cached = listsByOptions.get(key);
  if (cached) return cached;
  const list = buildList(options);
  listsByOptions.set(key, list);
  return list;
}

function buildList(options: CountryListOptions): readonly CountryOption[] {
  const allowed = everyCountry(options.locale).filter((c) => isCountryAllowed(c.iso2, options));
  const preferred = (options.preferredCountries ?? [])
    .map((code) => allowed.find((c) => c.iso2 === code.toUpperCase()))
    .filter((c): c is CountryOption => c !== undefined);
  if (preferred.length === 0) return allowed;
  const first = new Set(preferred);
  return [...preferred, ...allowed.filter((c) => !first.has(c))];
}

/** The country `iso2` (any case) in `list`, if there. */
export function findCountry(
  list: readonly CountryOption[],
  iso2: string | null | undefined,
): CountryOption | undefined {
  if (!iso2) return undefined;
  const upper = iso2.toUpperCase();
  return list.find((c) => c.iso2 === upper);
}

/**
 * The search box's matches for `query`: names starting with it, then names with a word starting
 * with it, then names containing it; a dial code (`44`, `+44`) or ISO code (`gb`) matches too.
 * An empty query keeps the whole list.
 */
export function searchCountries(
  list: readonly CountryOption[],
  query: string,
): readonly CountryOption[] {
  const folded = foldForMatch(query.trim());
  if (folded === '') return list;
  const digits = folded.replace(/^\+/, '');
  const ranked: CountryOption[][] = [[], [], [], []];
  for (const country of list) {
    if (country.key.startsWith(folded) || country.iso2.toLowerCase() === folded) {
      ranked[0]!.push(country);
    } else if (country.key.split(/[\s\-'(&.]+/).some((word) => word.startsWith(folded))) {
      ranked[1]!.push(country);
    } else if (/^\d+$/.test(digits) && country.dialCode.startsWith(digits)) {
      ranked[country.dialCode === digits ? 0 : 2]!.push(country);
    } else if (country.key.includes(folded)) {
      ranked[3]!.push(country);
    }
  }
  return ranked.flat();
}

/**
 * Type-to-find (spec section 2): the index of the country `typed` points at in `list`. The
 * first name starting with the typed text after `fromIndex`'s country wins; typing one letter
 * again and again (`sss`) steps through the names starting with it. Null when nothing matches.
 */
export function typeToFind(
  list: readonly CountryOption[],
  typed: string,
  fromIndex: number,
): number | null {
  const folded = foldForMatch(typed);
  if (folded === '' || list.length === 0) return null;
  const repeated = [...folded].every((char) => char === folded[0]);
  // One letter typed again steps on from the current country; more letters refine it.
  const prefix = repeated ? folded[0]! : folded;
  const start = repeated || fromIndex < 0 ? fromIndex + 1 : fromIndex;
  for (let offset = 0; offset < list.length; offset++) {
    const index = (Math.max(0, start) + offset) % list.length;
    if (list[index]!.key.startsWith(prefix)) return index;
  }
  return null;
}
