import { describe, expect, it } from 'vitest';
import {
  PHONE_MAX_EXTENSION_DIGITS,
  PHONE_MAX_INPUT_CHARS,
  PHONE_MAX_NATIONAL_DIGITS,
  PHONE_MIN_DIGITS,
} from './constants';
import { parsePhone, type ParsedPhone } from './parse-phone';
import { PHONE_PARSE_ERROR_CODES, type PhoneParseErrorCode } from './phone-parse-error';

function parsed(text: string, defaultCountry?: string | null): ParsedPhone {
  const result = parsePhone(text, { defaultCountry });
  if (!result.ok) throw new Error(`${text} did not parse: ${result.error}`);
  return result.phone;
}

function errorOf(text: string, defaultCountry?: string | null): PhoneParseErrorCode | null {
  const result = parsePhone(text, { defaultCountry });
  return result.ok ? null : result.error;
}

/**
 * One number per country as people there write it (with the trunk prefix where the country has
 * one), and what each output format must give. IDD is dialled from the US, or from GB for the
 * US's own number.
 */
const COUNTRIES = [
  {
    country: 'US',
    typed: '(415) 555-0132',
    callingCode: '1',
    nationalNumber: '4155550132',
    national: '(415) 555-0132',
    international: '+1 415 555 0132',
    e164: '+14155550132',
    idd: '00 1 415 555 0132',
  },
  {
    country: 'GB',
    typed: '020 7946 0958',
    callingCode: '44',
    nationalNumber: '2079460958',
    national: '020 7946 0958',
    international: '+44 20 7946 0958',
    e164: '+442079460958',
    idd: '011 44 20 7946 0958',
  },
  {
    country: 'DE',
    typed: '030 12345678',
    callingCode: '49',
    nationalNumber: '3012345678',
    national: '030 12345678',
    international: '+49 30 12345678',
    e164: '+493012345678',
    idd: '011 49 30 12345678',
  },
  {
    country: 'FR',
    typed: '01 23 45 67 89',
    callingCode: '33',
    nationalNumber: '123456789',
    national: '01 23 45 67 89',
    international: '+33 1 23 45 67 89',
    e164: '+33123456789',
    idd: '011 33 1 23 45 67 89',
  },
  {
    country: 'IN',
    typed: '098765 43210',
    callingCode: '91',
    nationalNumber: '9876543210',
    national: '098765 43210',
    international: '+91 98765 43210',
    e164: '+919876543210',
    idd: '011 91 98765 43210',
  },
  {
    country: 'BR',
    typed: '(11) 91234-5678',
    callingCode: '55',
    nationalNumber: '11912345678',
    national: '(11) 91234-5678',
    international: '+55 11 91234 5678',
    e164: '+5511912345678',
    idd: '011 55 11 91234 5678',
  },
  {
    country: 'AU',
    typed: '02 1234 5678',
    callingCode: '61',
    nationalNumber: '212345678',
    national: '(02) 1234 5678',
    international: '+61 2 1234 5678',
    e164: '+61212345678',
    idd: '011 61 2 1234 5678',
  },
  {
    country: 'JP',
    typed: '03-1234-5678',
    callingCode: '81',
    nationalNumber: '312345678',
    national: '03-1234-5678',
    international: '+81 3 1234 5678',
    e164: '+81312345678',
    idd: '011 81 3 1234 5678',
  },
  {
    country: 'MX',
    typed: '55 1234 5678',
    callingCode: '52',
    nationalNumber: '5512345678',
    national: '55 1234 5678',
    international: '+52 55 1234 5678',
    e164: '+525512345678',
    idd: '011 52 55 1234 5678',
  },
  {
    country: 'ZA',
    typed: '021 123 4567',
    callingCode: '27',
    nationalNumber: '211234567',
    national: '021 123 4567',
    international: '+27 21 123 4567',
    e164: '+27211234567',
    idd: '011 27 21 123 4567',
  },
  {
    country: 'CA',
    typed: '(416) 555-0132',
    callingCode: '1',
    nationalNumber: '4165550132',
    national: '(416) 555-0132',
    international: '+1 416 555 0132',
    e164: '+14165550132',
    // Same calling code as the US: dialled as a national long-distance call.
    idd: '1 (416) 555-0132',
  },
  {
    country: 'ES',
    typed: '912 34 56 78',
    callingCode: '34',
    nationalNumber: '912345678',
    national: '912 34 56 78',
    international: '+34 912 34 56 78',
    e164: '+34912345678',
    idd: '011 34 912 34 56 78',
  },
  {
    country: 'IT',
    // Italy keeps its leading 0 after the calling code: it is not a trunk prefix.
    typed: '06 1234 5678',
    callingCode: '39',
    nationalNumber: '0612345678',
    national: '06 1234 5678',
    international: '+39 06 1234 5678',
    e164: '+390612345678',
    idd: '011 39 06 1234 5678',
  },
  {
    country: 'NL',
    typed: '020 123 4567',
    callingCode: '31',
    nationalNumber: '201234567',
    national: '020 123 4567',
    international: '+31 20 123 4567',
    e164: '+31201234567',
    idd: '011 31 20 123 4567',
  },
  {
    country: 'SG',
    typed: '6123 4567',
    callingCode: '65',
    nationalNumber: '61234567',
    national: '6123 4567',
    international: '+65 6123 4567',
    e164: '+6561234567',
    idd: '011 65 6123 4567',
  },
  {
    country: 'NG',
    typed: '0802 123 4567',
    callingCode: '234',
    nationalNumber: '8021234567',
    national: '0802 123 4567',
    international: '+234 802 123 4567',
    e164: '+2348021234567',
    idd: '011 234 802 123 4567',
  },
  {
    country: 'CN',
    typed: '010 1234 5678',
    callingCode: '86',
    nationalNumber: '1012345678',
    national: '010 1234 5678',
    international: '+86 10 1234 5678',
    e164: '+861012345678',
    idd: '011 86 10 1234 5678',
  },
  {
    country: 'RU',
    // Russia's trunk prefix is 8.
    typed: '8 (495) 123-45-67',
    callingCode: '7',
    nationalNumber: '4951234567',
    national: '8 (495) 123-45-67',
    international: '+7 495 123 45 67',
    e164: '+74951234567',
    idd: '011 7 495 123 45 67',
  },
] as const;

describe('parsePhone: one number per country, every output format', () => {
  it('covers at least 15 countries, including the ones the issue names', () => {
    const countries = COUNTRIES.map((c) => c.country);
    expect(countries.length).toBeGreaterThanOrEqual(15);
    expect(countries).toEqual(
      expect.arrayContaining(['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'AU', 'JP', 'MX', 'ZA']),
    );
  });

  describe.each(COUNTRIES)('$country: $typed', (row) => {
    it('reads the national notation with the country selected', () => {
      const phone = parsed(row.typed, row.country);
      expect(phone).toMatchObject({
        country: row.country,
        callingCode: row.callingCode,
        nationalNumber: row.nationalNumber,
        e164: row.e164,
        extension: null,
        valid: true,
        possible: true,
      });
    });

    it('formats it as national, international, e.164, rfc3966 and idd', () => {
      const phone = parsed(row.typed, row.country);
      expect(phone.format('national')).toBe(row.national);
      expect(phone.format('international')).toBe(row.international);
      expect(phone.format('e.164')).toBe(row.e164);
      expect(phone.format('rfc3966')).toBe(`tel:${row.e164}`);
      expect(phone.format('idd', { fromCountry: row.country === 'US' ? 'GB' : 'US' })).toBe(
        row.idd,
      );
    });

    it('reads the international notation whatever country is selected', () => {
      const other = row.country === 'JP' ? 'US' : 'JP';
      const phone = parsed(row.international, other);
      expect(phone.country).toBe(row.country);
      expect(phone.e164).toBe(row.e164);
      expect(parsed(row.e164, null).e164).toBe(row.e164);
    });
  });

  it('IDD from the number’s own country is how it is dialled there', () => {
    expect(parsed('020 7946 0958', 'GB').format('idd', { fromCountry: 'GB' })).toBe(
      '020 7946 0958',
    );
    // No country to dial from (a non-geographic number): international.
    expect(parsed('+800 1234 5678').format('idd')).toBe('+800 1234 5678');
  });

  it('reads a trunk prefix after the calling code the way people mistype it', () => {
    expect(parsed('+44 (0)20 7946 0958', 'US').e164).toBe('+442079460958');
    expect(parsed('+49 (0)30 12345678', 'US').e164).toBe('+493012345678');
  });

  it('tells countries that share a calling code apart by their area codes', () => {
    expect(parsed('+1 416 555 0132', 'US').country).toBe('CA');
    expect(parsed('+1 415 555 0132', 'CA').country).toBe('US');
    expect(parsed('+44 1534 456789', 'US').country).toBe('JE');
  });
});

describe('parsePhone: the rules of spec section 5', () => {
  it('has the spec’s limits', () => {
    expect([
      PHONE_MIN_DIGITS,
      PHONE_MAX_NATIONAL_DIGITS,
      PHONE_MAX_INPUT_CHARS,
      PHONE_MAX_EXTENSION_DIGITS,
    ]).toEqual([2, 17, 250, 20]);
  });

  it('surfaces exactly the four parse error codes', () => {
    expect(PHONE_PARSE_ERROR_CODES).toEqual([
      'NOT_A_NUMBER',
      'INVALID_COUNTRY',
      'TOO_SHORT',
      'TOO_LONG',
    ]);
  });

  it('needs at least 2 digits', () => {
    expect(errorOf('7', 'GB')).toBe('TOO_SHORT');
    expect(errorOf('+7', 'GB')).toBe('TOO_SHORT');
    const two = parsed('12', 'US');
    expect(two.nationalNumber).toBe('12');
    expect(two).toMatchObject({ valid: false, possible: false });
  });

  it('allows a national number of 17 digits and refuses 18 (TOO_LONG)', () => {
    const seventeen = parsed(`+49 ${'3'.repeat(PHONE_MAX_NATIONAL_DIGITS)}`);
    expect(seventeen.nationalNumber).toHaveLength(17);
    expect(seventeen.possible).toBe(false);
    expect(errorOf(`+49 ${'3'.repeat(PHONE_MAX_NATIONAL_DIGITS + 1)}`)).toBe('TOO_LONG');
    expect(errorOf('2'.repeat(PHONE_MAX_NATIONAL_DIGITS + 1), 'US')).toBe('TOO_LONG');
  });

  it('reads text of 250 characters and refuses 251 (TOO_LONG)', () => {
    const padded = (length: number) => '+44 20 7946 0958'.padEnd(length, ' ');
    expect(padded(PHONE_MAX_INPUT_CHARS)).toHaveLength(250);
    expect(parsed(padded(PHONE_MAX_INPUT_CHARS)).e164).toBe('+442079460958');
    expect(errorOf(padded(PHONE_MAX_INPUT_CHARS + 1))).toBe('TOO_LONG');
    expect(errorOf('x'.repeat(PHONE_MAX_INPUT_CHARS + 1), 'US')).toBe('TOO_LONG');
  });

  it('reads an extension of up to 20 digits; a longer one makes the text NOT_A_NUMBER', () => {
    const twenty = '1'.repeat(PHONE_MAX_EXTENSION_DIGITS);
    const phone = parsed(`(415) 555-0132 ext. ${twenty}`, 'US');
    expect(phone.extension).toBe(twenty);
    expect(phone.e164).toBe('+14155550132');
    expect(phone.format('national')).toBe(`(415) 555-0132 ext. ${twenty}`);
    expect(phone.format('rfc3966')).toBe(`tel:+14155550132;ext=${twenty}`);
    expect(parsed('+44 20 7946 0958 x123').extension).toBe('123');
    expect(errorOf(`(415) 555-0132 ext. ${twenty}1`, 'US')).toBe('NOT_A_NUMBER');
  });

  it.each([
    ['empty text', ''],
    ['blanks', '   '],
    ['letters', 'call me'],
    ['a plus alone', '+'],
    ['punctuation', '()-'],
  ])('refuses %s as NOT_A_NUMBER', (_name, text) => {
    expect(errorOf(text, 'US')).toBe('NOT_A_NUMBER');
  });

  it('refuses an unknown country as INVALID_COUNTRY', () => {
    expect(errorOf('020 7946 0958', 'ZZ')).toBe('INVALID_COUNTRY');
    expect(errorOf('020 7946 0958', null)).toBe('INVALID_COUNTRY');
    expect(errorOf('+999 123 4567', 'US')).toBe('INVALID_COUNTRY');
    // A `+` number does not need the default country, even an unknown one.
    expect(parsed('+44 20 7946 0958', 'ZZ').country).toBe('GB');
  });

  it('accepts the country in any case', () => {
    expect(parsed('020 7946 0958', 'gb').e164).toBe('+442079460958');
  });

  it('tells valid (national pattern) from possible (length)', () => {
    // The sandbox's +1 555 numbers have a possible length but no real area code.
    expect(parsed('+1 555 010 0142')).toMatchObject({ valid: false, possible: true });
    expect(parsed('(415) 555-0132', 'US')).toMatchObject({ valid: true, possible: true });
    expect(parsed('415 555 013', 'US')).toMatchObject({ valid: false, possible: false });
  });

  it('never throws on any input', () => {
    for (const text of ['\u0000', '+' + '9'.repeat(300), '٠١٢٣٤٥٦٧٨٩', 'tel:+1-415-555-0132']) {
      expect(() => parsePhone(text, { defaultCountry: 'US' })).not.toThrow();
    }
    expect(parsed('tel:+1-415-555-0132').e164).toBe('+14155550132');
  });
});
