/**
 * Admin › Account (issue 37 item 4): the account's fields as read, one Save sending the whole
 * body, and the server's sentence.
 */
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { demoAdminAccount } from '../test-support/fake-admin-api';

/** A whole console typed into by a person: slower than the default 5 s on a busy machine. */
const SLOW = { timeout: 30_000 };

describe('Admin › Account', () => {
  it('shows the settings and saves them in one body', SLOW, async () => {
    const t = await adminUnderTest();
    t.admin.account = demoAdminAccount({ settings: { hide_lead_email: true } });
    const area = await t.openAdmin('Account');
    const form = await within(area).findByRole('form', { name: 'Account settings' });
    expect(within(form).getByLabelText('Account name')).toHaveValue('Brightwater Sales');
    expect(within(form).getByLabelText('Time zone')).toHaveValue('America/New_York');
    expect(within(form).getByLabelText(/Hide the lead's e-mail/)).toBeChecked();
    expect(within(form).getByLabelText('Countries agents may call')).toHaveValue('US');
    await expectNoAxeViolations(area);

    await t.user.click(within(form).getByLabelText(/Call History shows the lead's first/));
    await t.user.clear(within(form).getByLabelText('Countries agents may call'));
    await t.user.type(within(form).getByLabelText('Countries agents may call'), 'us, CA');
    await t.user.clear(within(form).getByLabelText('Calls a minute per agent'));
    await t.user.type(within(form).getByLabelText('Calls a minute per agent'), '20');
    await t.user.click(within(form).getByLabelText('Single sign-on on'));
    await t.user.type(
      within(form).getByLabelText('Only e-mail addresses of this domain'),
      'example.com',
    );
    await t.user.type(within(form).getByLabelText('Session idle minutes'), '60');
    await t.user.clear(within(form).getByLabelText('Service level seconds'));
    await t.user.type(within(form).getByLabelText('Service level seconds'), '30');
    await t.user.selectOptions(within(form).getByLabelText('Time zone'), 'Europe/Berlin');
    await t.user.click(within(form).getByRole('button', { name: 'Save' }));

    expect(t.bodiesTo('PATCH', '/api/v1/admin/account')).toEqual([
      {
        name: 'Brightwater Sales',
        country_code: 'US',
        time_zone: 'Europe/Berlin',
        settings: {
          hide_lead_email: true,
          history_shows_lead_name: true,
          lead_card_shows_phone: false,
          inbound_banner_shows_number: false,
          no_token_refetch: false,
          external_crm_link_template: '',
        },
        single_sign_on: { enabled: true, domain: 'example.com', sso_only: false },
        dial_policy: {
          call_countries: ['us', 'CA'],
          calls_per_minute_per_agent: 20,
          calls_per_minute_per_account: 120,
          sms_per_hour_per_agent: 60,
          sms_per_hour_per_account: 600,
        },
        session_idle_minutes: 60,
        service_level_seconds: 30,
        crm_defaults: { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
      },
    ]);
    expect(await within(area).findByRole('status')).toHaveTextContent('Account settings saved.');
    expect(t.admin.account.dial_policy.call_countries).toEqual(['US', 'CA']);
  });

  it("shows the server's sentence and moves focus to it", async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Account');
    const form = await within(area).findByRole('form', { name: 'Account settings' });
    await t.user.clear(within(form).getByLabelText('Country'));
    await t.user.type(within(form).getByLabelText('Country'), '1A{Enter}');
    const alert = await within(area).findByRole('alert');
    expect(alert).toHaveTextContent(
      'The country code must be two letters (ISO 3166-1), such as US.',
    );
    expect(alert).toHaveFocus();
  });
});
