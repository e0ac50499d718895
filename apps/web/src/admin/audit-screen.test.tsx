/**
 * Admin › Audit (issue 37 item 4): a read-only paged table, when in the viewer's time, who,
 * action, target and the changes as text (never markup).
 */
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { changeLines, valueText } from './audit-format';

describe('Admin › Audit', () => {
  it('lists the entries with their changes as text', async () => {
    const t = await adminUnderTest();
    t.admin.audit = [
      {
        id: 1,
        at: '2026-11-20T09:30:00.000Z',
        actor: null,
        action: 'account.create',
        target: 'account:100',
        changes: {},
      },
      {
        id: 2,
        at: '2026-11-21T15:05:00.000Z',
        actor: { id: 7, full_name: '<b>Avery</b>' },
        action: 'user.update',
        target: 'user:12',
        changes: { role: ['agent', 'supervisor'], permissions: [[], ['listen', 'barge']] },
      },
    ];
    const area = await t.openAdmin('Audit');
    const table = await within(area).findByRole('table', { name: 'Audit log' });
    // Newest first, as the server sends them.
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    const first = within(rows[0]!);
    expect(first.getByText('<b>Avery</b>')).toBeVisible();
    expect(table.querySelector('b')).toBeNull();
    expect(first.getByText('role: agent → supervisor')).toBeVisible();
    expect(first.getByText('permissions: (none) → listen, barge')).toBeVisible();
    const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    expect(first.getByText(when.format(new Date('2026-11-21T15:05:00.000Z')))).toHaveAttribute(
      'datetime',
      '2026-11-21T15:05:00.000Z',
    );
    expect(within(rows[1]!).getByText('System')).toBeVisible();
    expect(within(area).getByText('Page 1 of 1')).toBeVisible();
    expect(within(area).queryByRole('button', { name: /New/ })).toBeNull();
    await expectNoAxeViolations(area);
  });
});

describe('changeLines', () => {
  it('writes each field as before → after', () => {
    expect(
      changeLines({
        name: ['Sales', 'Inside sales'],
        phone_number: [null, '+15550100100'],
        active: [true, false],
        password: ['[redacted]', '[redacted]'],
        settings: [{}, { hide_lead_email: true }],
      }),
    ).toEqual([
      'name: Sales → Inside sales',
      'phone_number: (none) → +15550100100',
      'active: true → false',
      'password: [redacted] → [redacted]',
      'settings: (none) → hide_lead_email true',
    ]);
  });

  it('writes what a create made as its values, objects by their set fields', () => {
    expect(
      changeLines(
        {
          name: [null, 'Solar leads'],
          tags: [
            null,
            [
              { key: 'hot', name: 'Hot lead', color: '#d93025' },
              { key: 'x', name: 'X', color: '#000' },
            ],
          ],
          integrations: [null, { hubspot_id: '24', salesforce_domain: null }],
        },
        'profile.create',
      ),
    ).toEqual([
      'name: Solar leads',
      'tags: key hot, name Hot lead, color #d93025; key x, name X, color #000',
      'integrations: hubspot_id 24',
    ]);
  });

  it('writes a change that is not a pair as its value', () => {
    expect(changeLines({ deleted: true })).toEqual(['deleted: true']);
    expect(valueText(undefined)).toBe('(none)');
  });
});
