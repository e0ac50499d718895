/**
 * The agent's Available / Away control in the navigation bar, in the whole console on the fake
 * server: what it shows, what a click sends, the answer, the wait and a refusal.
 */
import type { PresenceStatus } from '@leadline/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

async function consoleOf(status: PresenceStatus, isAvailable: boolean) {
  const server = new FakeApi([
    { user: demoUser({ status, is_available: isAvailable }), password: 'pw' },
  ]).signIn();
  const platform = createFakePlatform(server.fetch);
  const user = userEvent.setup();
  render(
    <App
      phoneFactory={new FakePhone().factory}
      platform={platform}
      queryClient={createQueryClient()}
    />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const bar = within(screen.getByRole('banner'));
  const statusPuts = () => server.requestsTo('PUT', '/api/v1/user/status').map((r) => r.body);
  return { server, user, bar, statusPuts };
}

describe('the status control in the navigation bar', () => {
  it.each([
    ['available', true, 'Available', 'Set Away'],
    ['away', false, 'Away', 'Set Available'],
    ['on_call', true, 'On call', 'Set Away'],
    ['wrap_up', false, 'Wrapping up', 'Set Available'],
    ['offline', true, 'Offline', 'Set Away'],
  ] as const)(
    'shows %s (choice available: %s) as %s, offering to %s',
    async (status, on, text, hint) => {
      const { bar } = await consoleOf(status, on);
      const button = bar.getByRole('button', { name: `Status: ${text}` });
      expect(button).toHaveTextContent(text);
      expect(button).toHaveAccessibleDescription(hint);
    },
  );

  it('sets Away with PUT /api/v1/user/status and shows the answer, then Available again', async () => {
    const { bar, user, statusPuts } = await consoleOf('available', true);
    await user.click(bar.getByRole('button', { name: 'Status: Available' }));
    expect(await bar.findByRole('button', { name: 'Status: Away' })).toHaveAccessibleDescription(
      'Set Available',
    );
    expect(statusPuts()).toEqual([{ status: 'away' }]);

    await user.click(bar.getByRole('button', { name: 'Status: Away' }));
    expect(await bar.findByRole('button', { name: 'Status: Available' })).toBeVisible();
    expect(statusPuts()).toEqual([{ status: 'away' }, { status: 'available' }]);
  });

  it('shows where the server says the agent is: still on a call after choosing Away', async () => {
    const { bar, user, statusPuts } = await consoleOf('on_call', true);
    await user.click(bar.getByRole('button', { name: 'Status: On call' }));
    await waitFor(() =>
      expect(bar.getByRole('button', { name: 'Status: On call' })).toHaveAccessibleDescription(
        'Set Available',
      ),
    );
    expect(statusPuts()).toEqual([{ status: 'away' }]);
  });

  it('works from the keyboard', async () => {
    const { bar, user, statusPuts } = await consoleOf('available', true);
    bar.getByRole('button', { name: 'Status: Available' }).focus();
    await user.keyboard('{Enter}');
    expect(await bar.findByRole('button', { name: 'Status: Away' })).toHaveFocus();
    expect(statusPuts()).toEqual([{ status: 'away' }]);
  });

  it('is disabled while the request is on its way', async () => {
    const { server, bar, user } = await consoleOf('available', true);
    const release = server.hold();
    await user.click(bar.getByRole('button', { name: 'Status: Available' }));
    await waitFor(() =>
      expect(bar.getByRole('button', { name: 'Status: Available' })).toBeDisabled(),
    );
    release();
    expect(await bar.findByRole('button', { name: 'Status: Away' })).toBeEnabled();
  });

  it("shows a refusal with the server's text, keeps the status, and clears it on the next try", async () => {
    const { server, bar, user } = await consoleOf('available', true);
    server.refuseNext('PUT', '/api/v1/user/status', 500, 'Status cannot change right now.');
    await user.click(bar.getByRole('button', { name: 'Status: Available' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Status cannot change right now.');
    expect(bar.getByRole('button', { name: 'Status: Available' })).toBeEnabled();

    await user.click(bar.getByRole('button', { name: 'Status: Available' }));
    expect(await bar.findByRole('button', { name: 'Status: Away' })).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('lets the agent dismiss the refusal', async () => {
    const { server, bar, user } = await consoleOf('away', false);
    server.refuseNext('PUT', '/api/v1/user/status', 500, 'Status cannot change right now.');
    await user.click(bar.getByRole('button', { name: 'Status: Away' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Status cannot change right now.');
    await user.click(bar.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(bar.getByRole('button', { name: 'Status: Away' })).toBeEnabled();
  });
});
