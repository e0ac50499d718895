import { describe, expect, it } from 'vitest';
import {
  PHONE_COUNTRY_CODES,
  allowedCountries,
  callingCodeOf,
  isCountryAllowed,
  normalizeCountry,
  phoneCountryMetadata,
} from './phone-countries';

describe('phone countries', () => {
  it('knows every country of the metadata, by upper-case ISO code', () => {
    expect(PHONE_COUNTRY_CODES.length).toBeGreaterThan(240);
    expect(PHONE_COUNTRY_CODES).toEqual(expect.arrayContaining(['US', 'GB', 'DE', 'ZA', 'XK']));
    expect(PHONE_COUNTRY_CODES.every((c) => /^[A-Z]{2}$/.test(c))).toBe(true);
  });

  it.each([
    ['us', 'US'],
    [' gb ', 'GB'],
    ['ZZ', null],
    ['', null],
    [null, null],
    [undefined, null],
  ])('normalizes %j to %j', (input, expected) => {
    expect(normalizeCountry(input)).toBe(expected);
  });

  it.each([
    // country, calling code, international prefix, trunk prefix, a possible length
    ['US', '1', '011', '1', 10],
    ['GB', '44', '00', '0', 10],
    ['DE', '49', '00', '0', 11],
    ['FR', '33', '00', '0', 9],
    ['IN', '91', '00', '0', 10],
    ['BR', '55', null, '0', 11],
    ['AU', '61', '0011', '0', 9],
    ['JP', '81', '010', '0', 10],
    ['MX', '52', '00', null, 10],
    ['ZA', '27', '00', '0', 9],
    ['CA', '1', '011', '1', 10],
    ['IT', '39', '00', null, 10],
    // Russia: dial 8, wait for the tone (~), then 10.
    ['RU', '7', '8~10', '8', 10],
    // Singapore accepts several prefixes (a pattern) and prefers none.
    ['SG', '65', null, null, 8],
    ['NG', '234', '009', '0', 10],
  ] as const)(
    '%s: calling code %s, international prefix %s, trunk prefix %s',
    (iso2, callingCode, internationalPrefix, nationalPrefix, length) => {
      const metadata = phoneCountryMetadata(iso2.toLowerCase());
      expect(metadata).toMatchObject({ iso2, callingCode, internationalPrefix, nationalPrefix });
      expect(metadata?.possibleLengths).toContain(length);
      expect(metadata?.nationalPattern).toEqual(expect.any(String));
      expect(metadata?.formats.length).toBeGreaterThan(0);
      expect(callingCodeOf(iso2)).toBe(callingCode);
    },
  );

  it('a national pattern matches that country’s numbers entirely', () => {
    const gb = phoneCountryMetadata('GB')!;
    expect(new RegExp(`^(?:${gb.nationalPattern})$`).test('2079460958')).toBe(true);
    expect(new RegExp(`^(?:${gb.nationalPattern})$`).test('0079460958')).toBe(false);
  });

  it('formats carry their pattern, template and leading digits', () => {
    const us = phoneCountryMetadata('US')!;
    expect(us.formats).toContainEqual(
      expect.objectContaining({ pattern: '(\\d{3})(\\d{3})(\\d{4})', format: '($1) $2-$3' }),
    );
  });

  it('gives the area codes of a country sharing its calling code', () => {
    expect(phoneCountryMetadata('JE')?.callingCode).toBe('44');
    expect(phoneCountryMetadata('DO')?.leadingDigits).toBe('8001|8[024]9');
    expect(phoneCountryMetadata('GB')?.leadingDigits).toBeNull();
  });

  it('has nothing for an unknown country', () => {
    expect(phoneCountryMetadata('ZZ')).toBeNull();
    expect(callingCodeOf('ZZ')).toBeNull();
  });

  it('filters countries by only-countries and ignored-countries (any case)', () => {
    expect(isCountryAllowed('GB')).toBe(true);
    expect(isCountryAllowed(null)).toBe(false);
    expect(isCountryAllowed('GB', { onlyCountries: ['us', 'gb'] })).toBe(true);
    expect(isCountryAllowed('DE', { onlyCountries: ['US', 'GB'] })).toBe(false);
    expect(isCountryAllowed('GB', { ignoredCountries: ['gb'] })).toBe(false);
    expect(
      allowedCountries({ onlyCountries: ['GB', 'us', 'DE'], ignoredCountries: ['DE'] }),
    ).toEqual(['GB', 'US']);
    expect(allowedCountries({ ignoredCountries: ['US'] })).toHaveLength(
      PHONE_COUNTRY_CODES.length - 1,
    );
  });
});
