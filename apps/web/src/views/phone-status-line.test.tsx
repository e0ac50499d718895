/**
 * One tab owns the phone, in the whole app: two consoles of one agent ("tabs" of one fake
 * browser sharing its Web Locks and BroadcastChannel, each with its own fake phone). The second
 * tab never starts its phone; it shows the owner's state and "Use phone here", which takes the
 * phone (the first tab then follows); closing the owning tab hands the phone over; logging out
 * in one tab reloads the other.
 */
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { FakeBrowser } from '../test-support/fake-tabs';

const CALL_USER = 42;

/** Two console tabs of one agent; the first owns the phone (its phone is ready). */
async function twoTabs() {
  const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER, demoCallUser());
  const browser = new FakeBrowser();
  const user = userEvent.setup();
  const openConsole = () => {
    const tab = browser.openTab();
    const phone = new FakePhone();
    const platform = createFakePlatform(server.fetch, { tabs: tab });
    const { container, unmount } = render(
      <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
    );
    const view = within(container);
    /** Closes the tab: the page goes, and the browser releases what the tab held. */
    const close = () => {
      unmount();
      tab.close();
    };
    return { phone, platform, view, close };
  };
  const first = openConsole();
  expect(await first.view.findByText('Phone ready')).toBeVisible();
  const second = openConsole();
  expect(await second.view.findByText('Phone in another tab — Ready')).toBeVisible();
  return { server, user, first, second, openConsole };
}

describe('one tab owns the phone', () => {
  it('the second tab shows the owner’s phone and never starts its own', async () => {
    const { first, second } = await twoTabs();
    const useHere = second.view.getByRole('button', { name: 'Use phone here' });
    expect(useHere).toBeEnabled();
    expect(second.view.getByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(second.phone.devices).toEqual([]);

    // The owner rings and answers; the follower shows it, and offers no takeover meanwhile.
    act(() => void first.phone.device.ring(CALL_USER));
    expect(await second.view.findByText('Phone in another tab — Ringing')).toBeVisible();
    expect(useHere).toBeDisabled();
    expect(first.view.getByText('Incoming Lead!')).toBeVisible();
    expect(second.view.queryByText('Incoming Lead!')).toBeNull();
    act(() => first.view.getByRole('button', { name: 'Call' }).click());
    expect(await second.view.findByText('Phone in another tab — On a call')).toBeVisible();
    act(() => first.view.getByRole('button', { name: 'Hang Up' }).click());
    expect(await second.view.findByText('Phone in another tab — After a call')).toBeVisible();
    expect(second.view.getByRole('button', { name: 'Use phone here' })).toBeEnabled();
    expect(second.phone.devices).toEqual([]);
  });

  it('"Use phone here" (by keyboard) moves the phone; the old owner follows', async () => {
    const { user, first, second } = await twoTabs();
    act(() => second.view.getByRole('button', { name: 'Use phone here' }).focus());
    await user.keyboard('{Enter}');
    expect(await second.view.findByText('Phone ready')).toBeVisible();
    expect(second.phone.device.state).toBe('registered');
    expect(await first.view.findByText('Phone in another tab — Ready')).toBeVisible();
    expect(first.phone.device.state).toBe('destroyed');
    expect(first.view.getByRole('button', { name: 'Use phone here' })).toBeEnabled();

    // And back, with a click.
    await user.click(first.view.getByRole('button', { name: 'Use phone here' }));
    expect(await first.view.findByText('Phone ready')).toBeVisible();
    expect(first.phone.devices.map((device) => device.state)).toEqual(['destroyed', 'registered']);
    expect(await second.view.findByText('Phone in another tab — Ready')).toBeVisible();
    expect(second.phone.device.state).toBe('destroyed');
  });

  it('closing the owning tab hands the phone to the other, which then rings', async () => {
    const { first, second } = await twoTabs();
    first.close();
    expect(await second.view.findByText('Phone ready')).toBeVisible();
    expect(second.view.queryByRole('button', { name: 'Use phone here' })).toBeNull();
    act(() => void second.phone.device.ring(CALL_USER));
    expect(await second.view.findByText('Incoming Lead!')).toBeVisible();
  });

  it('a third tab opened later follows the owner too', async () => {
    const { second, openConsole } = await twoTabs();
    const third = openConsole();
    expect(await third.view.findByText('Phone in another tab — Ready')).toBeVisible();
    expect(second.view.getByText('Phone in another tab — Ready')).toBeVisible();
    expect(third.phone.devices).toEqual([]);
  });

  it('logging out in one tab reloads the other (its session is gone too)', async () => {
    const { user, first, second } = await twoTabs();
    await user.click(first.view.getByRole('button', { name: /^Dana Whitfield/ }));
    await user.click(first.view.getByRole('button', { name: 'Log out' }));
    expect(await first.view.findByRole('button', { name: 'Login' })).toBeVisible();
    await waitFor(() => expect(second.platform.reloadCount).toBe(1));
    expect(first.platform.reloadCount).toBe(0);
    // Nothing is left ringing in either tab.
    expect(screen.queryByText('Phone ready')).toBeNull();
  });
});
