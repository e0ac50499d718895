/**
 * The dialling part of an account's policy (`dialPolicyOf`): the defaults, what an operator's
 * JSON sets, and a field of the wrong shape applied as its strictest.
 */
import { describe, expect, it } from 'vitest';
import { dialPolicyOf } from './account-policy';

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
