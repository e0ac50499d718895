import { describe, expect, it } from 'vitest';
import {
  PhoneNumber,
  formatPhone as formatFromHttp,
  toE164 as toE164FromHttp,
} from '../http/phone';
import * as contracts from '../index';
import { formatPhone, toE164 } from './normalize-phone';

describe('toE164 (what the server dials)', () => {
  it.each([
    ['(415) 555-0132', 'US', '+14155550132'],
    ['+44 20 7946 0958', 'US', '+442079460958'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['020 7946 0958', 'gb', '+442079460958'],
    ['030 12345678', 'DE', '+493012345678'],
    ['  +1 555 010 0142  ', 'US', '+15550100142'],
    ['5550100142', 'US', '+15550100142'],
  ])('%j in %s is %s', (input, country, expected) => {
    expect(toE164(input, country)).toBe(expected);
  });

  it('defaults to the US for national numbers', () => {
    expect(toE164('(415) 555-0132')).toBe('+14155550132');
  });

  it.each([
    ['not a number', 'abc'],
    ['too short', '5'],
    ['an impossible length', '415 555 013'],
    ['an unknown calling code', '+999 1234 5678'],
    ['national text with an unknown country', '020 7946 0958'],
  ])('is null for %s', (_name, input) => {
    expect(toE164(input, input.startsWith('020') ? 'ZZ' : 'US')).toBeNull();
  });
});

describe('formatPhone (display)', () => {
  it('formats E.164 internationally and leaves anything else alone', () => {
    expect(formatPhone('+442079460958')).toBe('+44 20 7946 0958');
    expect(formatPhone('+15550100142')).toBe('+1 555 010 0142');
    expect(formatPhone('not a number')).toBe('not a number');
  });

  it('formats a number toE164 just read (remembered) as it formats one read afresh', () => {
    // Written nationally, in two countries; the second also with an extension (not remembered).
    expect(toE164('020 7946 0959', 'GB')).toBe('+442079460959');
    expect(formatPhone('+442079460959')).toBe('+44 20 7946 0959');
    expect(toE164('(415) 555-0177')).toBe('+14155550177');
    expect(formatPhone('+14155550177')).toBe('+1 415 555 0177');
    expect(toE164('415 555 0178 ext. 12')).toBe('+14155550178');
    expect(formatPhone('+14155550178')).toBe('+1 415 555 0178');
    // Past the memory's bound the oldest are parsed again, with the same result.
    for (let n = 0; n < 1100; n++) toE164(`+1415555${String(1000 + n).padStart(4, '0')}`);
    expect(formatPhone('+442079460959')).toBe('+44 20 7946 0959');
  });
});

describe('the server’s imports keep working', () => {
  it('http/phone and the package root re-export the phone module’s helpers', () => {
    expect(toE164FromHttp).toBe(toE164);
    expect(formatFromHttp).toBe(formatPhone);
    expect(contracts.toE164).toBe(toE164);
    expect(contracts.formatPhone).toBe(formatPhone);
    expect(contracts.PhoneNumber).toBe(PhoneNumber);
  });

  it('PhoneNumber turns any notation into E.164 and refuses the rest with the server’s texts', () => {
    expect(PhoneNumber.parse(' (415) 555-0132 ')).toBe('+14155550132');
    expect(PhoneNumber.parse('+44 20 7946 0958')).toBe('+442079460958');
    const message = (value: unknown) => PhoneNumber.safeParse(value).error?.issues[0]?.message;
    expect(message(undefined)).toBe('The phone number field is required.');
    expect(message('   ')).toBe('The phone number field is required.');
    expect(message('1'.repeat(26))).toBe('The phone number may not be longer than 25 characters.');
    expect(message('call me')).toBe('The phone number is not a valid phone number.');
  });
});
