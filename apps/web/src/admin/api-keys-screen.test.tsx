/**
 * Admin › API keys (issue 37 item 4): the key is shown once, with Copy and the warning, and is
 * gone once closed; the list shows name, prefix, profile, created; delete asked first.
 */
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { KEY_ONCE_TEXT } from './api-keys-screen';
import { rowCells } from './row-cells';

describe('Admin › API keys', () => {
  it('shows a new key once, copies it, and never shows it again', async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('API keys');
    await t.user.click(await within(area).findByRole('button', { name: 'New API key' }));
    const form = within(area).getByRole('form', { name: 'New API key' });
    await t.user.type(within(form).getByLabelText('Name'), 'Website form{Enter}');
    expect(t.bodiesTo('POST', '/api/v1/admin/api-keys')).toEqual([
      { name: 'Website form', profile_id: null },
    ]);
    const shown = await within(area).findByRole('region', { name: 'New key: Website form' });
    const field = within(shown).getByLabelText('API key');
    const key = t.admin.apiKeys.length === 1 ? (field as HTMLInputElement).value : '';
    expect(key).toMatch(/^ll_live_/);
    expect(field).toHaveAttribute('readonly');
    expect(within(shown).getByText(KEY_ONCE_TEXT)).toBeVisible();
    await expectNoAxeViolations(area);

    await t.user.click(within(shown).getByRole('button', { name: 'Copy' }));
    expect(t.platform.copied).toEqual([key]);
    expect(within(shown).getByRole('status')).toHaveTextContent('Copied to the clipboard.');

    const table = await within(area).findByRole('table', { name: 'API keys' });
    await within(table).findByRole('rowheader', { name: 'Website form' });
    const cells = rowCells(table, 'Website form');
    expect(cells.slice(0, 3)).toEqual(['Website form', `${key.slice(0, 8)}…`, 'Account default']);
    expect(cells[3]).not.toBe('');

    await t.user.click(within(shown).getByRole('button', { name: /Done/ }));
    expect(within(area).queryByRole('region', { name: /New key/ })).toBeNull();
    expect(area.textContent).not.toContain(key);
  });

  it('deletes a key only once confirmed', async () => {
    const t = await adminUnderTest();
    t.admin.apiKeys = [
      {
        id: 3,
        name: 'Old site',
        profile_id: null,
        prefix: 'll_live_',
        created_at: '2026-11-20T09:30:00Z',
      },
    ];
    const area = await t.openAdmin('API keys');
    await t.user.click(await within(area).findByRole('button', { name: 'Delete Old site' }));
    expect(t.server.requestsTo('DELETE', '/api/v1/admin/api-keys/3')).toHaveLength(0);
    await t.user.click(within(area).getByRole('button', { name: 'Yes, delete' }));
    expect(await within(area).findByText('No API keys yet.')).toBeVisible();
  });

  it("shows the server's sentence", async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('API keys');
    await t.user.click(await within(area).findByRole('button', { name: 'New API key' }));
    await t.user.click(within(area).getByRole('button', { name: 'Create key' }));
    expect(await within(area).findByRole('alert')).toHaveTextContent('The name field is required.');
  });
});
