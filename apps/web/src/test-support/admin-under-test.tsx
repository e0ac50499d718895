/**
 * Test support: the whole console for a user of `role` on the fake server (with the admin
 * routes of a {@link FakeAdminApi}) and the fake phone, with the phone ready; `openAdmin`
 * opens the admin area at a section the way a person does (the Admin entry, then the section).
 */
import type { UserRole } from '@leadline/contracts';
import { render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import axe from 'axe-core';
import { expect } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from './fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from './fake-phone';
import { createFakePlatform } from './fake-platform';
import { FakeAdminApi } from './fake-admin-api';

/** The call user the console under test is rung for. */
export const ADMIN_CALL_USER = 42;

/** Renders the console for a user of `role` and waits until its phone is ready. */
export async function adminUnderTest(role: UserRole = 'admin') {
  const admin = new FakeAdminApi();
  const me = demoUser({ role, full_name: 'Avery Admin', email: 'avery@example.com' });
  const server = new FakeApi([{ user: me, password: 'pw' }]).signIn();
  server.addCallUser(ADMIN_CALL_USER, demoCallUser());
  server.addRoutes(admin.routes);
  const phone = new FakePhone();
  const user = userEvent.setup();
  const platform = createFakePlatform(server.fetch);
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const nav = () => within(screen.getByRole('navigation', { name: 'Console' }));

  /** Opens the admin area (its Users section first) and, if given, `section`. */
  const openAdmin = async (section?: string) => {
    await user.click(nav().getByRole('button', { name: 'Admin' }));
    const area = await screen.findByRole('region', { name: 'Admin' });
    if (section) {
      const sections = within(area).getByRole('navigation', { name: 'Admin sections' });
      await user.click(within(sections).getByRole('button', { name: section }));
    }
    return area;
  };
  /** The request bodies sent to `method path`. */
  const bodiesTo = (method: string, path: string) =>
    server.requestsTo(method, path).map((request) => request.body);
  return { admin, server, phone, platform, user, nav, openAdmin, bodiesTo };
}

/**
 * axe-core on `root` (jsdom: no layout, so colour contrast is left to the browser audits of
 * e2e): fails with the serious and critical violations, each with its rule and the nodes.
 */
export async function expectNoAxeViolations(root: Element): Promise<void> {
  const results = await axe.run(root, {
    rules: { 'color-contrast': { enabled: false } },
    resultTypes: ['violations'],
  });
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
  expect(serious).toEqual([]);
}
