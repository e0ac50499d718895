/**
 * The Admin entry and area (issue 37 item 4) in the whole console: only an admin has the entry;
 * the area lists its seven sections; a call that rings while it is open shows the ringing view
 * (the area steps aside and comes back, with its open form, when the console waits again).
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { findAnswerButton } from '../test-support/console-under-test';
import {
  ADMIN_CALL_USER,
  adminUnderTest,
  expectNoAxeViolations,
} from '../test-support/admin-under-test';

describe('the Admin entry', () => {
  it.each(['agent', 'supervisor'] as const)('is not offered to a %s', async (role) => {
    const { nav } = await adminUnderTest(role);
    expect(nav().getByRole('button', { name: 'History' })).toBeVisible();
    expect(nav().queryByRole('button', { name: 'Admin' })).toBeNull();
  });

  it('is offered to an admin and opens the area with its seven sections', async () => {
    const { nav, openAdmin, user } = await adminUnderTest('admin');
    const entry = nav().getByRole('button', { name: 'Admin' });
    expect(entry).toHaveAttribute('aria-expanded', 'false');
    const area = await openAdmin();
    expect(entry).toHaveAttribute('aria-expanded', 'true');
    expect(entry).toHaveAttribute('aria-controls', area.id);
    const sections = within(area).getByRole('navigation', { name: 'Admin sections' });
    expect(
      within(sections)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Users', 'Teams', 'Profiles', 'Numbers', 'API keys', 'Account', 'Audit']);
    expect(within(sections).getByRole('button', { name: 'Users' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(await within(area).findByRole('heading', { name: 'Users', level: 2 })).toBeVisible();
    // The waiting view steps aside while the area is open.
    expect(screen.queryByRole('button', { name: 'Check for lead' })).toBeNull();
    await expectNoAxeViolations(document.body);

    // Closing it brings the waiting view back, focus on the Admin entry.
    await user.click(within(area).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('region', { name: 'Admin' })).toBeNull();
    expect(await screen.findByRole('button', { name: 'Check for lead' })).toBeVisible();
    await waitFor(() => expect(nav().getByRole('button', { name: 'Admin' })).toHaveFocus());
  });

  it('gives way to History, and History to it', async () => {
    const { nav, openAdmin, user } = await adminUnderTest('admin');
    await openAdmin();
    await user.click(nav().getByRole('button', { name: 'History' }));
    expect(screen.queryByRole('region', { name: 'Admin' })).toBeNull();
    expect(await screen.findByRole('heading', { name: 'Call History' })).toBeVisible();
    await openAdmin();
    expect(screen.queryByRole('heading', { name: 'Call History' })).toBeNull();
  });

  it('steps aside for a ringing call and comes back with its open form after it', async () => {
    const { openAdmin, phone, user } = await adminUnderTest('admin');
    const area = await openAdmin('Teams');
    await user.click(await within(area).findByRole('button', { name: 'New team' }));
    await user.type(within(area).getByLabelText('Name'), 'Night shift');

    act(() => void phone.device.ring(ADMIN_CALL_USER));
    const answer = await findAnswerButton();
    expect(answer).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Admin' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Ignore' }));
    const back = await screen.findByRole('region', { name: 'Admin' });
    expect(within(back).getByLabelText('Name')).toHaveValue('Night shift');
  });
});
