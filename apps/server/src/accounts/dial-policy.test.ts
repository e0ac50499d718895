/**
 * The dialling part of an account's policy (`dialPolicyOf`): the defaults, what an operator's
 * JSON sets, and a field of the wrong shape applied as its strictest; and the operator's ceiling
 * over it (`withinCeiling`, `ceilingRefusal`).
 */
import { describe, expect, it } from 'vitest';
import {
  ceilingRefusal,
  DEFAULT_DIAL_CEILING,
  dialPolicyOf,
  NO_DIAL_CEILING,
  withinCeiling,
  type DialCeiling,
} from './account-policy';

describe('dialPolicyOf', () => {
  it('without the fields: the account’s own country and the default limits', () => {
    expect(dialPolicyOf({}, 'us')).toEqual({
      callCountries: new Set(['US']),
      callsPerMinutePerAgent: 10,
      callsPerMinutePerAccount: 120,
      smsPerHourPerAgent: 60,
      smsPerHourPerAccount: 600,
      problems: [],
    });
    // An empty list is no list.
    expect(dialPolicyOf({ call_countries: [] }, 'GB').callCountries).toEqual(new Set(['GB']));
  });

  it('the countries and limits the policy sets', () => {
    expect(
      dialPolicyOf(
        {
          call_countries: ['us', 'CA', 'gb'],
          calls_per_minute_per_agent: 3,
          calls_per_minute_per_account: 400,
          sms_per_hour_per_agent: 30,
          sms_per_hour_per_account: 900,
        },
        'US',
      ),
    ).toEqual({
      callCountries: new Set(['US', 'CA', 'GB']),
      callsPerMinutePerAgent: 3,
      callsPerMinutePerAccount: 400,
      smsPerHourPerAgent: 30,
      smsPerHourPerAccount: 900,
      problems: [],
    });
  });

  it('a field of the wrong shape is applied as its strictest and named', () => {
    const policy = dialPolicyOf(
      {
        call_countries: ['USA'],
        calls_per_minute_per_agent: '10',
        calls_per_minute_per_account: 0,
        sms_per_hour_per_agent: 2.5,
        sms_per_hour_per_account: 1e9,
      },
      'US',
    );
    expect(policy).toEqual({
      callCountries: new Set(),
      callsPerMinutePerAgent: 1,
      callsPerMinutePerAccount: 1,
      smsPerHourPerAgent: 1,
      smsPerHourPerAccount: 1,
      problems: [
        'call_countries must be a list of two-letter country codes',
        'calls_per_minute_per_agent must be a whole number from 1 to 100000',
        'calls_per_minute_per_account must be a whole number from 1 to 100000',
        'sms_per_hour_per_agent must be a whole number from 1 to 100000',
        'sms_per_hour_per_account must be a whole number from 1 to 100000',
      ],
    });
    // Not an object at all: every field at its strictest.
    expect(dialPolicyOf('open', 'US').callCountries).toEqual(new Set());
  });
});

describe("the operator's ceiling", () => {
  const ceiling: DialCeiling = {
    countries: new Set(['US', 'GB']),
    callsPerMinutePerAgent: 5,
    callsPerMinutePerAccount: 50,
    smsPerHour: 100,
  };

  it('applies each field as the narrower of the policy and the ceiling', () => {
    const wide = dialPolicyOf(
      {
        call_countries: ['US', 'CA', 'GB'],
        calls_per_minute_per_agent: 9,
        calls_per_minute_per_account: 30,
        sms_per_hour_per_agent: 150,
        sms_per_hour_per_account: 80,
      },
      'US',
    );
    expect(withinCeiling(wide, ceiling)).toEqual({
      callCountries: new Set(['US', 'GB']),
      callsPerMinutePerAgent: 5,
      callsPerMinutePerAccount: 30,
      smsPerHourPerAgent: 100,
      smsPerHourPerAccount: 80,
      problems: [],
    });
    // An account of a country beyond the ceiling, with no list of its own: it calls nowhere.
    expect(withinCeiling(dialPolicyOf({}, 'DE'), ceiling).callCountries).toEqual(new Set());
    // No ceiling: the policy as it is.
    expect(withinCeiling(wide, NO_DIAL_CEILING)).toEqual(wide);
  });

  it('the default ceiling is the defaults an account gets, in the countries the demo calls', () => {
    expect(DEFAULT_DIAL_CEILING).toEqual({
      countries: new Set(['US', 'CA', 'GB']),
      callsPerMinutePerAgent: 10,
      callsPerMinutePerAccount: 120,
      smsPerHour: 600,
    });
  });

  it('refuses a change beyond it with a sentence naming it; a change within it is none of its business', () => {
    expect(
      ceilingRefusal({ call_countries: ['us', 'GB'], calls_per_minute_per_agent: 5 }, ceiling),
    ).toBeNull();
    expect(ceilingRefusal({ call_countries: ['US', 'fr'] }, ceiling)).toBe(
      "FR is beyond this server's limit: the call countries may only be among GB and US.",
    );
    expect(ceilingRefusal({ call_countries: ['DE', 'FR', 'IT'] }, ceiling)).toBe(
      "DE, FR and IT are beyond this server's limit: the call countries may only be among GB and US.",
    );
    expect(ceilingRefusal({ calls_per_minute_per_agent: 6 }, ceiling)).toBe(
      "The calls per minute per agent may be at most 5, this server's limit.",
    );
    expect(ceilingRefusal({ calls_per_minute_per_account: 51 }, ceiling)).toBe(
      "The calls per minute per account may be at most 50, this server's limit.",
    );
    expect(ceilingRefusal({ sms_per_hour_per_agent: 101 }, ceiling)).toBe(
      "The texts per hour per agent may be at most 100, this server's limit.",
    );
    expect(
      ceilingRefusal({ sms_per_hour_per_account: 2000 }, { ...ceiling, smsPerHour: 1500 }),
    ).toBe("The texts per hour per account may be at most 1,500, this server's limit.");
    expect(ceilingRefusal({ call_countries: ['RU'] }, NO_DIAL_CEILING)).toBeNull();
  });
});
