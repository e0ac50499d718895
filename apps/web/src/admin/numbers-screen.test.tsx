/**
 * Admin › Numbers (issue 37 item 4): add a number typed in E.164 or, when the provider is
 * checked (Twilio), chosen from the account's free numbers; the server's sentence; remove asked
 * first.
 */
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { rowCells } from './row-cells';

const profile = {
  id: 12,
  name: 'Inbound',
  is_deal_whispertext: false,
  auto_answer: true,
  ring_timeout_seconds: null,
  team_id: null,
  hours: null,
  tags: [],
  created_at: '2026-11-20T09:30:00Z',
};

describe('Admin › Numbers', () => {
  it('adds a typed number with its profile', async () => {
    const t = await adminUnderTest();
    t.admin.profiles = [profile];
    const area = await t.openAdmin('Numbers');
    await t.user.click(await within(area).findByRole('button', { name: 'New number' }));
    const form = within(area).getByRole('form', { name: 'New caller number' });
    await within(form).findByRole('option', { name: 'Inbound' });
    await expectNoAxeViolations(area);
    await t.user.type(within(form).getByLabelText('Name'), 'Sales line');
    await t.user.type(within(form).getByLabelText('Phone number'), '+15550100100');
    await t.user.selectOptions(within(form).getByLabelText('Profile'), 'Inbound');
    await t.user.click(within(form).getByRole('button', { name: 'Add number' }));
    expect(t.bodiesTo('POST', '/api/v1/admin/caller-numbers')).toEqual([
      { name: 'Sales line', phone_number: '+15550100100', profile_id: 12 },
    ]);
    const table = await within(area).findByRole('table', { name: 'Caller numbers' });
    await within(table).findByRole('rowheader', { name: 'Sales line' });
    expect(rowCells(table, 'Sales line')).toEqual(['Sales line', '+1 555 010 0100', 'Inbound']);
    expect(within(area).getByRole('status')).toHaveTextContent(
      'Sales line (+1 555 010 0100) added.',
    );
  });

  it("offers the provider's free numbers in a select when the provider is checked", async () => {
    const t = await adminUnderTest();
    t.admin.available = {
      provider_checked: true,
      data: [
        {
          phone_number: '+15550100100',
          phone_number_formatted: '+1 555 010 0100',
          friendly_name: 'Main',
          in_use: true,
        },
        {
          phone_number: '+15550100101',
          phone_number_formatted: '+1 555 010 0101',
          friendly_name: null,
          in_use: false,
        },
      ],
    };
    const area = await t.openAdmin('Numbers');
    await t.user.click(await within(area).findByRole('button', { name: 'New number' }));
    const form = within(area).getByRole('form', { name: 'New caller number' });
    const select = await within(form).findByRole('combobox', { name: 'Phone number' });
    // The one in use is not offered.
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Choose a number', '+1 555 010 0101']);
    await t.user.type(within(form).getByLabelText('Name'), 'Second line');
    await t.user.selectOptions(select, '+1 555 010 0101');
    await t.user.click(within(form).getByRole('button', { name: 'Add number' }));
    expect(t.bodiesTo('POST', '/api/v1/admin/caller-numbers')).toEqual([
      { name: 'Second line', phone_number: '+15550100101', profile_id: null },
    ]);
  });

  it("shows the server's sentence for a number it refuses (422) or has (409)", async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Numbers');
    await t.user.click(await within(area).findByRole('button', { name: 'New number' }));
    const form = within(area).getByRole('form', { name: 'New caller number' });
    await t.user.type(within(form).getByLabelText('Name'), 'Bad');
    await t.user.type(within(form).getByLabelText('Phone number'), '12{Enter}');
    const alert = await within(area).findByRole('alert');
    expect(alert.textContent).toMatch(/phone number/i);
    expect(alert).toHaveFocus();

    t.server.refuseNext(
      'POST',
      '/api/v1/admin/caller-numbers',
      409,
      'This number is already one of the caller numbers.',
    );
    await t.user.click(within(form).getByRole('button', { name: 'Add number' }));
    await within(area).findByText('This number is already one of the caller numbers.');
  });

  it('removes a number only once confirmed', async () => {
    const t = await adminUnderTest();
    t.admin.numbers = [
      {
        id: 41,
        name: 'Sales line',
        phone_number: '+15550100100',
        phone_number_formatted: '+1 555 010 0100',
        profile_id: null,
        created_at: '2026-11-20T09:30:00Z',
      },
    ];
    const area = await t.openAdmin('Numbers');
    await t.user.click(await within(area).findByRole('button', { name: 'Remove Sales line' }));
    expect(t.server.requestsTo('DELETE', '/api/v1/admin/caller-numbers/41')).toHaveLength(0);
    await t.user.click(within(area).getByRole('button', { name: 'Yes, remove' }));
    expect(await within(area).findByText('No caller numbers yet.')).toBeVisible();
    expect(t.server.requestsTo('DELETE', '/api/v1/admin/caller-numbers/41')).toHaveLength(1);
  });
});
