/** Admin › Teams (issue 37 item 4): list with search and paging, create, rename, delete asked first. */
import { waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { demoAdminUser } from '../test-support/fake-admin-api';
import { rowCells } from './row-cells';

const team = (id: number, name: string) => ({
  id,
  name,
  member_count: 0,
  created_at: '2026-11-20T09:30:00.000Z',
});

/** A whole console typed into by a person: slower than the default 5 s on a busy machine. */
const SLOW = { timeout: 30_000 };

describe('Admin › Teams', () => {
  it('lists the teams with their member counts, searches and pages', SLOW, async () => {
    const t = await adminUnderTest();
    t.admin.teams = Array.from({ length: 30 }, (_, i) => team(i + 1, `Team ${i + 1}`));
    t.admin.users = [demoAdminUser({ id: 3, team_ids: [1] })];
    const area = await t.openAdmin('Teams');
    const table = await within(area).findByRole('table', { name: 'Teams' });
    // Team 1 has the one member.
    expect(rowCells(table, 'Team 1')).toEqual(['Team 1', '1']);
    expect(rowCells(table, 'Team 2')).toEqual(['Team 2', '0']);
    expect(within(area).getByText('Page 1 of 2')).toBeVisible();
    await t.user.click(within(area).getByRole('button', { name: 'Next' }));
    expect(await within(area).findByText('Page 2 of 2')).toBeVisible();
    expect(within(area).getByRole('rowheader', { name: 'Team 30' })).toBeVisible();
    expect(t.server.requestsTo('GET', '/api/v1/admin/teams').at(-1)?.query.get('page')).toBe('2');

    await t.user.type(
      within(area).getByRole('searchbox', { name: 'Search teams' }),
      'Team 2{Enter}',
    );
    expect(await within(area).findByText('Page 1 of 1')).toBeVisible();
    const query = t.server.requestsTo('GET', '/api/v1/admin/teams').at(-1)?.query;
    expect(query?.get('search')).toBe('Team 2');
    expect(query?.get('page')).toBe('1');
    await expectNoAxeViolations(area);
  });

  it('creates a team: the body sent, a polite status and the list read again', async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Teams');
    await within(area).findByText('No teams yet.');
    await t.user.click(within(area).getByRole('button', { name: 'New team' }));
    const form = within(area).getByRole('form', { name: 'New team' });
    expect(within(form).getByRole('heading', { name: 'New team' })).toHaveFocus();
    await expectNoAxeViolations(area);
    await t.user.type(within(form).getByLabelText('Name'), 'Night shift{Enter}');
    expect(t.bodiesTo('POST', '/api/v1/admin/teams')).toEqual([{ name: 'Night shift' }]);
    expect(await within(area).findByRole('status')).toHaveTextContent('Team Night shift created.');
    expect(await within(area).findByRole('rowheader', { name: 'Night shift' })).toBeVisible();
    expect(within(area).queryByRole('form')).toBeNull();
    // Focus is back on the button that opened the form.
    await waitFor(() =>
      expect(within(area).getByRole('button', { name: 'New team' })).toHaveFocus(),
    );
  });

  it("shows the server's sentence beside the form and moves focus there (409)", async () => {
    const t = await adminUnderTest();
    t.admin.teams = [team(1, 'Sales')];
    const area = await t.openAdmin('Teams');
    await within(area).findByRole('rowheader', { name: 'Sales' });
    await t.user.click(within(area).getByRole('button', { name: 'New team' }));
    await t.user.type(within(area).getByLabelText('Name'), 'sales{Enter}');
    const alert = await within(area).findByRole('alert');
    expect(alert).toHaveTextContent('A team with this name already exists.');
    expect(alert).toHaveFocus();
    // Nothing was added; the form stays open with what was typed.
    expect(t.admin.teams).toHaveLength(1);
    expect(within(area).getByLabelText('Name')).toHaveValue('sales');
  });

  it("shows a 422's sentence", async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Teams');
    await t.user.click(await within(area).findByRole('button', { name: 'New team' }));
    await t.user.click(within(area).getByRole('button', { name: 'Create team' }));
    expect(await within(area).findByRole('alert')).toHaveTextContent('The name field is required.');
  });

  it('renames a team and closes the form with Escape', async () => {
    const t = await adminUnderTest();
    t.admin.teams = [team(5, 'Sales')];
    const area = await t.openAdmin('Teams');
    await t.user.click(await within(area).findByRole('button', { name: 'Rename Sales' }));
    await t.user.keyboard('{Escape}');
    expect(within(area).queryByRole('form')).toBeNull();
    await t.user.click(within(area).getByRole('button', { name: 'Rename Sales' }));
    const name = within(area).getByLabelText('Name');
    await t.user.clear(name);
    await t.user.type(name, 'Inside sales{Enter}');
    expect(t.bodiesTo('PATCH', '/api/v1/admin/teams/5')).toEqual([{ name: 'Inside sales' }]);
    expect(await within(area).findByRole('rowheader', { name: 'Inside sales' })).toBeVisible();
  });

  it('deletes a team only once confirmed', async () => {
    const t = await adminUnderTest();
    t.admin.teams = [team(5, 'Sales')];
    const area = await t.openAdmin('Teams');
    await t.user.click(await within(area).findByRole('button', { name: 'Delete Sales' }));
    const confirm = within(area).getByRole('group', { name: 'Delete the team Sales?' });
    expect(within(confirm).getByRole('button', { name: 'Yes, delete' })).toHaveFocus();
    await t.user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(t.server.requestsTo('DELETE', '/api/v1/admin/teams/5')).toHaveLength(0);
    await t.user.click(within(area).getByRole('button', { name: 'Delete Sales' }));
    await t.user.click(within(area).getByRole('button', { name: 'Yes, delete' }));
    expect(await within(area).findByText('No teams yet.')).toBeVisible();
    expect(t.server.requestsTo('DELETE', '/api/v1/admin/teams/5')).toHaveLength(1);
    expect(within(area).getByRole('status')).toHaveTextContent('Team Sales deleted.');
    // The row and its buttons are gone: focus waits on the screen's heading.
    expect(within(area).getByRole('heading', { name: 'Teams', level: 2 })).toHaveFocus();
  });
});
