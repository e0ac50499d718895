/**
 * The destination rules of the toll-fraud guard, number by number: what the issue names, the
 * sandbox's numbers the product's own flows call, and the edges (no country, the +1 countries).
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS } from '@leadline/voice';
import { countryName, destinationRefusal, numberFacts } from './dial-destination';

const US = new Set(['US']);

describe('destinationRefusal', () => {
  it.each([
    ['+449098790000', 'call', 'Calls to premium-rate numbers are not allowed.'],
    ['+19005550123', 'call', 'Calls to premium-rate numbers are not allowed.'],
    ['+19005550123', 'text', 'Texts to premium-rate numbers are not allowed.'],
    ['+448431234567', 'call', 'Calls to premium-rate numbers are not allowed.'],
    ['+15005550123', 'call', 'Calls to personal numbers are not allowed.'],
    ['+447012345678', 'text', 'Texts to personal numbers are not allowed.'],
    ['+74951234567', 'call', 'Calls to Russia are not allowed for this account.'],
    ['+74951234567', 'text', 'Texts to Russia are not allowed for this account.'],
    ['+442079460958', 'call', 'Calls to the United Kingdom are not allowed for this account.'],
    // +1 is shared: a Jamaican or Dominican number is no US number.
    ['+18765550123', 'call', 'Calls to Jamaica are not allowed for this account.'],
    ['+18095550123', 'call', 'Calls to the Dominican Republic are not allowed for this account.'],
    ['+882123456789', 'call', 'Calls to international network numbers (+882) are not allowed.'],
    // A satellite phone: no country at all.
    ['+870773111632', 'text', 'Texts to international network numbers (+870) are not allowed.'],
  ] as const)('%s (%s): %s', (number, kind, message) => {
    expect(destinationRefusal(number, US, kind)?.message).toBe(message);
  });

  it('refuses a premium number as such in a country the account calls', () => {
    expect(destinationRefusal('+449098790000', new Set(['US', 'GB']), 'call')).toEqual({
      reason: 'number-type',
      type: 'PREMIUM_RATE',
      message: 'Calls to premium-rate numbers are not allowed.',
    });
  });

  it('refuses shared-cost and UAN numbers whatever the country', () => {
    // France's 081 numbers are shared cost; South Africa's 086 UAN in libphonenumber's metadata.
    const everywhere = new Set(['FR', 'ZA', 'GB', 'US']);
    expect(destinationRefusal('+33810123456', everywhere, 'call')?.message).toBe(
      'Calls to shared-cost numbers are not allowed.',
    );
    expect(numberFacts('+33810123456')?.type).toBe('SHARED_COST');
    const uan = '+27861234567';
    expect(numberFacts(uan)?.type).toBe('UAN');
    expect(destinationRefusal(uan, everywhere, 'text')?.message).toBe(
      'Texts to universal access numbers (UAN) are not allowed.',
    );
  });

  it('lets a US account call and text US numbers, toll-free ones and the sandbox’s numbers', () => {
    for (const number of [
      '+14155550132',
      '+12025550123',
      '+18005550123',
      '+15550100042',
      '+15550101234',
      '+15550142000',
      ...Object.values(SANDBOX_NUMBERS),
    ]) {
      expect(destinationRefusal(number, US, 'call'), number).toBeNull();
      expect(destinationRefusal(number, US, 'text'), number).toBeNull();
    }
  });

  it('places a number libphonenumber cannot classify in its calling code’s main country', () => {
    // +1 555 010 XXXX is no country's area code: valid for no country, possible for all of +1.
    expect(numberFacts('+15550100042')).toEqual({
      country: 'US',
      type: undefined,
      callingCode: '1',
    });
    expect(destinationRefusal('+15550100042', new Set(['CA']), 'call')?.message).toBe(
      'Calls to the United States are not allowed for this account.',
    );
  });

  it('lets the account call the countries its policy lists', () => {
    const policy = new Set(['US', 'GB', 'RU']);
    expect(destinationRefusal('+442079460958', policy, 'call')).toBeNull();
    expect(destinationRefusal('+74951234567', policy, 'call')).toBeNull();
  });
});

describe('countryName', () => {
  it('says a country as a sentence does', () => {
    expect(countryName('RU')).toBe('Russia');
    expect(countryName('gb')).toBe('the United Kingdom');
    expect(countryName('US')).toBe('the United States');
    expect(countryName('NL')).toBe('the Netherlands');
    expect(countryName('KY')).toBe('the Cayman Islands');
    expect(countryName('JM')).toBe('Jamaica');
  });
});
