import { describe, expect, it } from 'vitest';
import {
  FALLBACK_PHONE_FORMAT,
  PHONE_FORMATS,
  isPhoneFormatMode,
  resolvePhoneFormat,
} from './phone-format';
import { validatePhone } from './validate-phone';

describe('resolvePhoneFormat', () => {
  it.each(PHONE_FORMATS.map((format) => [format]))('keeps %s', (format) => {
    expect(resolvePhoneFormat(format, '+44 20')).toBe(format);
    expect(resolvePhoneFormat(format, '020')).toBe(format);
  });

  it('automatic is international when the text starts with +, else national', () => {
    expect(resolvePhoneFormat('automatic', '+44 20 7946 0958')).toBe('international');
    expect(resolvePhoneFormat('automatic', '  +44')).toBe('international');
    expect(resolvePhoneFormat('automatic', '020 7946 0958')).toBe('national');
    expect(resolvePhoneFormat('automatic', '')).toBe('national');
  });

  it.each(['', 'auto', 'E164', 'INTERNATIONAL', 'e164', 'nope'])(
    'an invalid mode %j falls back to international',
    (mode) => {
      expect(isPhoneFormatMode(mode)).toBe(false);
      expect(resolvePhoneFormat(mode, '020 7946 0958')).toBe('international');
    },
  );

  it('the fallback is international', () => {
    expect(FALLBACK_PHONE_FORMAT).toBe('international');
  });
});

describe('validatePhone', () => {
  it('gives the spec’s result for a valid national number', () => {
    expect(validatePhone('(415) 555-0132', { country: 'US' })).toEqual({
      countryCode: 'US',
      formatted: '(415) 555-0132',
      valid: true,
      possible: true,
      nationalNumber: '4155550132',
      e164: '+14155550132',
      extension: null,
      format: 'national',
      error: null,
    });
  });

  it('formats by mode (automatic picks from the text)', () => {
    const gb = { country: 'GB' };
    expect(validatePhone('02079460958', gb).formatted).toBe('020 7946 0958');
    expect(validatePhone('+442079460958', gb).formatted).toBe('+44 20 7946 0958');
    expect(validatePhone('02079460958', { ...gb, mode: 'national' }).formatted).toBe(
      '020 7946 0958',
    );
    expect(validatePhone('02079460958', { ...gb, mode: 'international' }).formatted).toBe(
      '+44 20 7946 0958',
    );
    expect(validatePhone('02079460958', { ...gb, mode: 'e.164' }).formatted).toBe('+442079460958');
    expect(validatePhone('02079460958', { ...gb, mode: 'rfc3966' }).formatted).toBe(
      'tel:+442079460958',
    );
    // IDD is dialled from the selected country.
    expect(validatePhone('+442079460958', { country: 'US', mode: 'idd' }).formatted).toBe(
      '011 44 20 7946 0958',
    );
    expect(validatePhone('+442079460958', { country: 'AU', mode: 'idd' }).formatted).toBe(
      '0011 44 20 7946 0958',
    );
    const fallback = validatePhone('02079460958', { ...gb, mode: 'bogus' });
    expect(fallback).toMatchObject({ format: 'international', formatted: '+44 20 7946 0958' });
  });

  it('keeps the text as typed while the number is not valid', () => {
    expect(validatePhone('415 55', { country: 'US' })).toMatchObject({
      formatted: '415 55',
      valid: false,
      possible: false,
      nationalNumber: '41555',
      e164: null,
      error: null,
    });
  });

  it('a possible but invalid number has an E.164 to dial but no formatting', () => {
    expect(validatePhone('+1 555 010 0142', { country: 'US' })).toMatchObject({
      countryCode: null,
      formatted: '+1 555 010 0142',
      valid: false,
      possible: true,
      e164: '+15550100142',
    });
  });

  it.each([
    ['', 'NOT_A_NUMBER'],
    ['abc', 'NOT_A_NUMBER'],
    ['5', 'TOO_SHORT'],
    ['9'.repeat(19), 'TOO_LONG'],
    ['+999 1234', 'INVALID_COUNTRY'],
  ])('surfaces the parse error of %j', (text, error) => {
    expect(validatePhone(text, { country: 'US' })).toEqual({
      countryCode: null,
      formatted: text,
      valid: false,
      possible: false,
      nationalNumber: null,
      e164: null,
      extension: null,
      format: text.startsWith('+') ? 'international' : 'national',
      error,
    });
  });

  it('an unknown selected country makes national text INVALID_COUNTRY', () => {
    expect(validatePhone('020 7946 0958', { country: 'XX' }).error).toBe('INVALID_COUNTRY');
    expect(validatePhone('020 7946 0958', {}).error).toBe('INVALID_COUNTRY');
  });

  it('only-countries makes numbers of other countries invalid', () => {
    const only = { country: 'US', onlyCountries: ['us', 'CA'] };
    expect(validatePhone('+1 416 555 0132', only)).toMatchObject({ valid: true });
    expect(validatePhone('+44 20 7946 0958', only)).toMatchObject({
      countryCode: 'GB',
      valid: false,
      possible: true,
      formatted: '+44 20 7946 0958',
      e164: '+442079460958',
    });
  });

  it('ignored-countries makes numbers of those countries invalid', () => {
    const ignored = { country: 'US', ignoredCountries: ['gb'] };
    expect(validatePhone('+44 20 7946 0958', ignored).valid).toBe(false);
    expect(validatePhone('+49 30 12345678', ignored).valid).toBe(true);
    // A non-geographic number has no country to allow.
    expect(validatePhone('+800 1234 5678', { onlyCountries: ['US'] }).valid).toBe(false);
    expect(validatePhone('+800 1234 5678', {}).valid).toBe(true);
  });
});
