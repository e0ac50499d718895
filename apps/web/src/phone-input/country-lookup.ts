/**
 * The optional lookup of the visitor's country (spec section 2): a small pluggable function
 * resolving to an ISO code. The default reads the region of the browser's languages
 * (`en-GB` → GB; `de` → DE by likely subtags); no network.
 */

/** Looks up the visitor's country; resolves to an ISO code or rejects. */
export type CountryLookup = () => Promise<string>;

/** The parts of `navigator` the default lookup reads. */
export interface LanguageSource {
  readonly languages?: readonly string[];
  readonly language?: string;
}

/** The region of the first of `source`'s languages that has one. */
export function localeCountry(source: LanguageSource): Promise<string> {
  const languages = [...(source.languages ?? []), ...(source.language ? [source.language] : [])];
  for (const language of languages) {
    try {
      const region = new Intl.Locale(language).maximize().region;
      if (region && /^[A-Z]{2}$/.test(region)) return Promise.resolve(region);
    } catch {
      // Not a language tag; try the next one.
    }
  }
  return Promise.reject(
    new Error(`No country in the browser's languages (${languages.join(', ')}).`),
  );
}

/** The default lookup: the browser's locale region. */
export const browserLocaleCountry: CountryLookup = () => localeCountry(navigator);
