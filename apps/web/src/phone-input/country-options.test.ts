import { describe, expect, it } from 'vitest';
import {
  countryList,
  everyCountry,
  findCountry,
  foldForMatch,
  searchCountries,
  typeToFind,
} from './country-options';
import {
  flagEmoji,
  resolveFlagStyle,
  supportsFlagEmoji,
  type ProbeCanvasFactory,
} from './flag-emoji';

const names = (list: readonly { name: string }[]) => list.map((c) => c.name);

describe('the country list', () => {
  it('has every country with its English name, dial code and flag, sorted by name', () => {
    const list = everyCountry();
    expect(list).toHaveLength(245);
    expect(names(list.slice(0, 3))).toEqual(['Afghanistan', 'Åland Islands', 'Albania']);
    expect(names(list.slice(-2))).toEqual(['Zambia', 'Zimbabwe']);
    expect(findCountry(list, 'gb')).toEqual({
      iso2: 'GB',
      name: 'United Kingdom',
      dialCode: '44',
      flag: '🇬🇧',
      key: 'united kingdom',
    });
    expect(findCountry(list, 'CI')?.key).toBe("cote d'ivoire");
  });

  it('is built once per set of options', () => {
    expect(countryList({ onlyCountries: ['US', 'GB'] })).toBe(
      countryList({ onlyCountries: ['us', 'gb'] }),
    );
  });

  it('keeps only the only-countries and drops the ignored ones', () => {
    expect(names(countryList({ onlyCountries: ['US', 'gb', 'DE'] }))).toEqual([
      'Germany',
      'United Kingdom',
      'United States',
    ]);
    const withoutGb = countryList({ ignoredCountries: ['GB'] });
    expect(withoutGb).toHaveLength(244);
    expect(findCountry(withoutGb, 'GB')).toBeUndefined();
  });

  it('lists preferred countries first, once', () => {
    const list = countryList({ preferredCountries: ['us', 'GB', 'ZZ'] });
    expect(names(list.slice(0, 3))).toEqual(['United States', 'United Kingdom', 'Afghanistan']);
    expect(list.filter((c) => c.iso2 === 'US')).toHaveLength(1);
    expect(list).toHaveLength(245);
  });

  it('names countries in another language when asked', () => {
    expect(findCountry(everyCountry('de'), 'DE')?.name).toBe('Deutschland');
  });

  it('folds accents, case and curly apostrophes for matching', () => {
    expect(foldForMatch('Côte d’Ivoire')).toBe("cote d'ivoire");
    expect(foldForMatch('ÅLAND')).toBe('aland');
  });
});

describe('search', () => {
  const list = everyCountry();

  it('ranks names starting with the text, then words, then containing it', () => {
    expect(names(searchCountries(list, 'ger'))).toEqual(['Germany', 'Algeria', 'Niger', 'Nigeria']);
    expect(names(searchCountries(list, 'kingdom'))).toEqual(['United Kingdom']);
    expect(names(searchCountries(list, 'cote'))).toEqual(['Côte d’Ivoire']);
  });

  it('finds by dial code (with or without +) and ISO code', () => {
    expect(names(searchCountries(list, '+44'))).toEqual([
      'Guernsey',
      'Isle of Man',
      'Jersey',
      'United Kingdom',
    ]);
    expect(names(searchCountries(list, '49'))).toEqual(['Germany']);
    expect(names(searchCountries(list, 'gb'))[0]).toBe('United Kingdom');
  });

  it('keeps the whole list for an empty query and nothing for nonsense', () => {
    expect(searchCountries(list, '  ')).toBe(list);
    expect(searchCountries(list, 'zzzz')).toEqual([]);
  });
});

describe('type-to-find', () => {
  const list = everyCountry();
  const at = (index: number | null) => (index === null ? null : list[index]!.name);
  const indexOf = (name: string) => list.findIndex((c) => c.name === name);

  it('finds the first name starting with the typed letters', () => {
    expect(at(typeToFind(list, 'g', -1))).toBe('Gabon');
    expect(at(typeToFind(list, 'ge', indexOf('Gabon')))).toBe('Georgia');
    expect(at(typeToFind(list, 'ger', indexOf('Georgia')))).toBe('Germany');
    expect(at(typeToFind(list, 'united k', indexOf('Uganda')))).toBe('United Kingdom');
  });

  it('one letter again steps to the next name with it, wrapping around', () => {
    expect(at(typeToFind(list, 'g', indexOf('Germany')))).toBe('Ghana');
    expect(at(typeToFind(list, 'gg', indexOf('Ghana')))).toBe('Gibraltar');
    expect(at(typeToFind(list, 'z', indexOf('Zimbabwe')))).toBe('Zambia');
  });

  it('ignores accents and case', () => {
    expect(at(typeToFind(list, 'ALA', -1))).toBe('Åland Islands');
  });

  it('finds nothing for letters no name starts with', () => {
    expect(typeToFind(list, 'xq', 0)).toBeNull();
    expect(typeToFind([], 'a', -1)).toBeNull();
  });
});

describe('flags', () => {
  it('are the two regional-indicator symbols of the ISO code', () => {
    expect(flagEmoji('us')).toBe('\u{1F1FA}\u{1F1F8}');
    expect(flagEmoji('DE')).toBe('🇩🇪');
  });

  const canvas =
    (pixel: [number, number, number]): ProbeCanvasFactory =>
    (size) => ({
      font: '',
      textBaseline: '',
      fillStyle: '',
      fillText: () => {},
      getImageData: () => ({
        data: Array.from({ length: size * size }, (_, i) => (i === 0 ? pixel : [0, 0, 0])).flatMap(
          (rgb) => [...rgb, 255],
        ),
      }),
    });

  it('are drawn as emoji only where the system draws them in colour', () => {
    expect(supportsFlagEmoji(canvas([178, 34, 52]))).toBe(true);
    expect(supportsFlagEmoji(canvas([90, 90, 90]))).toBe(false);
    expect(supportsFlagEmoji(() => null)).toBe(false);
  });

  it('fall back to letters without a canvas (as here, in jsdom)', () => {
    expect(resolveFlagStyle('auto')).toBe('letters');
    expect(resolveFlagStyle('emoji')).toBe('emoji');
    expect(resolveFlagStyle('letters')).toBe('letters');
  });
});
