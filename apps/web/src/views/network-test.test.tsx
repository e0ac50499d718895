/**
 * The network test in the Settings panel of the whole app (fake server, fake phone, fake clock):
 * Test network → the server authorises it → the phone places the call with its params → the
 * progress while it measures → the grade and the three figures; refusals and failures said
 * clearly; closing Settings stops it; only while waiting.
 */
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { NETWORK_TEST_ERRORS } from '../constants';
import type { FakeCall } from '../test-support/fake-phone';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

async function openSettings() {
  const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const user = userEvent.setup({ advanceTimers: (ms) => platform.clock.tick(ms) });
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  await user.click(
    within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
      name: 'Settings',
    }),
  );
  const panel = screen.getByRole('region', { name: 'Settings' });
  const row = within(panel).getByRole('group', { name: 'Network' });
  const button = within(row).getByRole('button', { name: 'Test network' });
  return { server, platform, phone, user, panel, row, button };
}

/** The test call the phone placed, once it was placed. */
async function placedCall(phone: FakePhone): Promise<FakeCall> {
  await screen.findByText('Calling the echo test…');
  await waitFor(() => expect(phone.device.calls.map((c) => c.direction)).toContain('outgoing'));
  return phone.device.lastOutgoing;
}

describe('the network test in Settings', () => {
  it('calls the echo test, shows the progress, then the grade, jitter, packet loss and round-trip time', async () => {
    const { server, platform, phone, user, row, button } = await openSettings();
    await user.click(button);
    const call = await placedCall(phone);
    expect(server.requestsTo('POST', '/api/v1/network-test')).toHaveLength(1);
    expect(call.connectParams).toEqual(server.networkTests[0]!.params);
    expect(button).toHaveAttribute('aria-disabled', 'true');
    await user.click(button);
    expect(server.requestsTo('POST', '/api/v1/network-test')).toHaveLength(1);

    act(() => call.answerRemotely());
    const status = within(row).getByRole('status');
    expect(status).toHaveTextContent('Testing… 10 s');
    expect(within(row).getByRole('progressbar', { name: 'Network test progress' })).toBeVisible();
    // Ten seconds of samples from the SDK's quality monitor (the first without a MOS yet).
    const seconds = [null, 4.2, 4.15, 4.1, 4.2, 4.15, 4.1, 4.2, 4.15, 4.1];
    for (const [s, mos] of seconds.entries()) {
      act(() => {
        call.reportSample({ mos, jitter: 4, rtt: 30, packetsLost: s === 5 ? 1 : 0 });
        platform.clock.tick(1000);
      });
      if (s === 2) expect(status).toHaveTextContent('Testing… 7 s');
    }

    const list = within(row).getByLabelText('Network test result');
    const figures = Object.fromEntries(
      within(list)
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(figures).toEqual({
      Quality: 'Great (MOS 4.15)',
      Jitter: '4.0 ms',
      'Packet loss': '0.2 %',
      'Round-trip time': '30 ms',
    });
    expect(status).toHaveTextContent('');
    // Hung up, and the agent may test again; the console is still waiting.
    expect(call.status()).toBe('closed');
    expect(button).toBeEnabled();
    expect(button).not.toHaveAttribute('aria-disabled');
    await user.keyboard('{Escape}');
    expect(screen.getByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it("says why when the server refuses, in the server's words", async () => {
    const { server, user, row, button, phone } = await openSettings();
    server.refuseNext('POST', '/api/v1/network-test', 409, 'A network test is already running.');
    await user.click(button);
    expect(await within(row).findByRole('alert')).toHaveTextContent(
      'A network test is already running.',
    );
    expect(phone.device.calls).toEqual([]);
    expect(button).toBeEnabled();
  });

  it('says so when the test call ends before the test finished', async () => {
    const { platform, phone, user, row, button } = await openSettings();
    await user.click(button);
    const call = await placedCall(phone);
    act(() => call.answerRemotely());
    act(() => platform.clock.tick(3000));
    act(() => call.hangUpRemotely());
    expect(within(row).getByRole('alert')).toHaveTextContent(NETWORK_TEST_ERRORS.endedEarly);
    expect(within(row).queryByLabelText('Network test result')).toBeNull();
  });

  it('closing Settings stops the test and hangs its call up', async () => {
    const { phone, user, button } = await openSettings();
    await user.click(button);
    const call = await placedCall(phone);
    act(() => call.answerRemotely());
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Settings' })).toBeNull();
    expect(call.status()).toBe('closed');
  });

  it('runs only with the phone ready: otherwise the button is disabled and says why', async () => {
    const { phone, row, button } = await openSettings();
    act(() => phone.device.dropRegistration());
    expect(button).toBeDisabled();
    expect(within(row).getByText(NETWORK_TEST_ERRORS.notWaiting)).toBeVisible();
    await act(() => phone.device.register());
    expect(button).toBeEnabled();
    expect(within(row).queryByText(NETWORK_TEST_ERRORS.notWaiting)).toBeNull();
  });
});
