/**
 * Admin › Users (issue 37 item 4): the list, create with the body the server takes (role,
 * permissions from the spec's six, teams, password only when typed), the server's sentences,
 * edit, and Deactivate asked first.
 */
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { demoAdminUser } from '../test-support/fake-admin-api';
import { rowCells } from './row-cells';

const sales = { id: 51, name: 'Sales', member_count: 0, created_at: '2026-11-20T09:30:00.000Z' };
const support = {
  id: 52,
  name: 'Support',
  member_count: 0,
  created_at: '2026-11-20T09:30:00.000Z',
};

/** A whole console typed into by a person: slower than the default 5 s on a busy machine. */
const SLOW = { timeout: 30_000 };

describe('Admin › Users', () => {
  it('lists the users with their role, teams and status', async () => {
    const t = await adminUnderTest();
    t.admin.teams = [sales, support];
    t.admin.users = [
      demoAdminUser({ id: 7, role: 'supervisor', team_ids: [51, 52] }),
      demoAdminUser({ id: 8, full_name: 'Sam Lee', email: 'sam@example.com', active: false }),
    ];
    const area = await t.openAdmin();
    const table = await within(area).findByRole('table', { name: 'Users' });
    await within(table).findByText('Sales, Support');
    expect(rowCells(table, 'Dana Whitfield')).toEqual([
      'Dana Whitfield',
      'dana@example.com',
      'Supervisor',
      'Sales, Support',
      'Active',
    ]);
    expect(rowCells(table, 'Sam Lee')).toEqual([
      'Sam Lee',
      'sam@example.com',
      'Agent',
      '—',
      'Deactivated',
    ]);
    expect(within(table).getByRole('button', { name: 'Deactivate Dana Whitfield' })).toBeVisible();
    expect(within(table).getByRole('button', { name: 'Reactivate Sam Lee' })).toBeVisible();
    await expectNoAxeViolations(area);
  });

  it('creates a user: the body sent has the chosen role, permissions and teams', SLOW, async () => {
    const t = await adminUnderTest();
    t.admin.teams = [sales, support];
    const area = await t.openAdmin();
    await t.user.click(await within(area).findByRole('button', { name: 'New user' }));
    const form = within(area).getByRole('form', { name: 'New user' });
    // The spec's six permission strings, each a labelled checkbox; the teams from the list.
    const permissions = within(form).getByRole('group', { name: 'Permissions' });
    expect(within(permissions).getAllByRole('checkbox')).toHaveLength(6);
    const teams = within(form).getByRole('group', { name: 'Teams' });
    await within(teams).findByRole('checkbox', { name: 'Support' });
    expect(within(form).getByText(/At least 12 characters/)).toBeVisible();
    await expectNoAxeViolations(area);

    await t.user.type(within(form).getByLabelText('Full name'), 'Riley Agent');
    await t.user.type(within(form).getByLabelText('E-mail'), 'riley@example.com');
    await t.user.selectOptions(within(form).getByLabelText('Role'), 'Supervisor');
    await t.user.click(within(permissions).getByRole('checkbox', { name: /\(app-sms\)/ }));
    await t.user.click(within(permissions).getByRole('checkbox', { name: /\(listen\)/ }));
    await t.user.click(within(teams).getByRole('checkbox', { name: 'Support' }));
    await t.user.type(within(form).getByLabelText('Country code'), 'CA');
    await t.user.type(within(form).getByLabelText('Phone number'), '+14165550123');
    await t.user.type(within(form).getByLabelText('Password'), 'correct horse battery{Enter}');

    expect(t.bodiesTo('POST', '/api/v1/admin/users')).toEqual([
      {
        full_name: 'Riley Agent',
        email: 'riley@example.com',
        role: 'supervisor',
        permissions: ['app-sms', 'listen'],
        team_ids: [52],
        country_code: 'CA',
        phone_number: '+14165550123',
        password: 'correct horse battery',
      },
    ]);
    expect(await within(area).findByRole('status')).toHaveTextContent('Riley Agent added.');
    const table = await within(area).findByRole('table', { name: 'Users' });
    expect(await within(table).findByRole('rowheader', { name: 'Riley Agent' })).toBeVisible();
  });

  it('sends no password when none is typed', async () => {
    const t = await adminUnderTest();
    t.admin.users = [demoAdminUser({ id: 7 })];
    const area = await t.openAdmin();
    await t.user.click(await within(area).findByRole('button', { name: 'Edit Dana Whitfield' }));
    const form = within(area).getByRole('form', { name: 'Edit Dana Whitfield' });
    expect(within(form).getByLabelText('New password')).toHaveValue('');
    await t.user.click(within(form).getByRole('button', { name: 'Save' }));
    await within(area).findByText('Dana Whitfield saved.');
    const [body] = t.bodiesTo('PATCH', '/api/v1/admin/users/7');
    expect(body).not.toHaveProperty('password');
    expect(body).toMatchObject({ full_name: 'Dana Whitfield', email: 'dana@example.com' });
  });

  it("shows the server's sentences: a weak password (422) and a taken e-mail (409)", async () => {
    const t = await adminUnderTest();
    t.admin.users = [demoAdminUser({ id: 7 })];
    const area = await t.openAdmin();
    await t.user.click(await within(area).findByRole('button', { name: 'New user' }));
    const form = within(area).getByRole('form', { name: 'New user' });
    await t.user.type(within(form).getByLabelText('Full name'), 'Dana Again');
    await t.user.type(within(form).getByLabelText('E-mail'), 'DANA@example.com');
    await t.user.type(within(form).getByLabelText('Password'), 'short{Enter}');
    const alert = await within(area).findByRole('alert');
    expect(alert).toHaveTextContent('The password must be at least 12 characters.');
    expect(alert).toHaveFocus();

    await t.user.clear(within(form).getByLabelText('Password'));
    await t.user.type(within(form).getByLabelText('Password'), 'a much longer one{Enter}');
    await within(area).findByText('A user with this e-mail address already exists.');
    expect(within(area).getByRole('alert')).toHaveFocus();
    expect(t.admin.users).toHaveLength(1);
  });

  it('deactivates only once confirmed, and says so', async () => {
    const t = await adminUnderTest();
    t.admin.users = [demoAdminUser({ id: 7 })];
    const area = await t.openAdmin();
    await t.user.click(
      await within(area).findByRole('button', { name: 'Deactivate Dana Whitfield' }),
    );
    const confirm = within(area).getByRole('group', { name: /Deactivate Dana Whitfield\?/ });
    expect(t.server.requestsTo('PATCH', '/api/v1/admin/users/7')).toHaveLength(0);
    await expectNoAxeViolations(area);
    await t.user.keyboard('{Escape}');
    expect(confirm).not.toBeInTheDocument();
    expect(within(area).getByRole('button', { name: 'Deactivate Dana Whitfield' })).toHaveFocus();
    expect(t.server.requestsTo('PATCH', '/api/v1/admin/users/7')).toHaveLength(0);

    await t.user.keyboard('{Enter}');
    await t.user.click(within(area).getByRole('button', { name: 'Yes, deactivate' }));
    expect(await within(area).findByRole('status')).toHaveTextContent(
      'Dana Whitfield is deactivated',
    );
    expect(t.bodiesTo('PATCH', '/api/v1/admin/users/7')).toEqual([{ active: false }]);
    const table = within(area).getByRole('table', { name: 'Users' });
    expect(await within(table).findByText('Deactivated')).toBeVisible();
  });
});
