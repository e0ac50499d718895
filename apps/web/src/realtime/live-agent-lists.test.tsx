/**
 * Issue 18 in the whole console (fake server, phone and realtime service): the console connects
 * for the signed-in user, `agent-status` events refresh the open Transfer list and the agent's own
 * status, the lists poll only while the realtime connection is not connected, and logging out
 * closes it.
 */
import type { AgentStatusEvent } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoAgent, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { AGENT_LISTS_REFRESH_MS } from '../constants';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { findAnswerButton } from '../test-support/console-under-test';

const SELF = 7;
const ACCOUNT = 100;
const CALL_USER = 42;
const SAM = demoAgent(11, 'Sam Lee');
const IRA = demoAgent(12, 'Ira Gold', { on_call_id: 5, status: 'on_call' });

const event = (overrides: Partial<AgentStatusEvent>): AgentStatusEvent => ({
  user_id: SAM.id,
  status: 'away',
  is_available: false,
  at: '2026-01-06T09:00:00.000Z',
  ...overrides,
});

async function signedIn() {
  const server = new FakeApi([
    { user: demoUser({ id: SELF, account_id: ACCOUNT }), password: 'pw' },
  ]).signIn();
  server.addCallUser(CALL_USER, demoCallUser());
  server.setAgents([SAM, IRA]).setTeams([{ id: 1, name: 'Sales', is_available: true }]);
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const realtime = platform.realtime;
  const openTransfer = async () => {
    act(() => void phone.device.ring(CALL_USER));
    await user.click(await findAnswerButton('Call'));
    const panel = await screen.findByRole('region', { name: 'On call' });
    await user.click(within(panel).getByRole('button', { name: 'Transfer' }));
    const transfer = within(panel).getByRole('region', { name: 'Transfer' });
    return within(await within(transfer).findByRole('list', { name: 'Agents' }));
  };
  const reads = () => server.requestsTo('GET', '/api/v1/users/paginated').length;
  return { server, platform, realtime, user, openTransfer, reads };
}

describe('the realtime feed in the console', () => {
  it("connects once for the signed-in user, to their presence channel and their account's", async () => {
    const { realtime } = await signedIn();
    expect(realtime.connections).toHaveLength(1);
    expect(realtime.current.settings.channels).toEqual({
      user: `presence-user-${SELF}`,
      account: `private-account-${ACCOUNT}`,
    });
  });

  it('polls the open lists while not connected, stops once connected, and polls again when lost', async () => {
    const { platform, realtime, openTransfer, reads } = await signedIn();
    await openTransfer();
    const tick = (ms: number) => act(async () => platform.clock.tick(ms));
    const first = reads();

    // Never connected yet: the fallback polling.
    await tick(AGENT_LISTS_REFRESH_MS - 1);
    expect(reads()).toBe(first);
    await tick(1);
    await waitFor(() => expect(reads()).toBe(first + 1));

    // Connected and subscribed: read once (what was missed), then no polling.
    act(() => {
      realtime.current.setState('connected');
      realtime.current.subscriptionSucceeded();
    });
    await waitFor(() => expect(reads()).toBe(first + 2));
    await tick(AGENT_LISTS_REFRESH_MS * 4);
    expect(reads()).toBe(first + 2);

    // Lost: polling again from the loss on.
    act(() => realtime.current.setState('unavailable'));
    await tick(AGENT_LISTS_REFRESH_MS - 1);
    expect(reads()).toBe(first + 2);
    await tick(1);
    await waitFor(() => expect(reads()).toBe(first + 3));
  });

  it("refreshes the open Transfer list on a teammate's agent-status, with no polling", async () => {
    const { server, realtime, openTransfer } = await signedIn();
    act(() => realtime.current.setState('connected'));
    const list = await openTransfer();
    expect(list.getByRole('button', { name: 'Transfer to Sam Lee' })).toBeEnabled();

    // The server has Sam away now, and says so on the account channel.
    server.setAgents([{ ...SAM, status: 'away', is_available: false }, IRA]);
    act(() => realtime.current.publishAgentStatus(event({})));
    await waitFor(() =>
      expect(list.getByRole('button', { name: 'Transfer to Sam Lee' })).toBeDisabled(),
    );
    expect(list.getByText('Sam Lee').closest('li')).toHaveTextContent('Away');
  });

  it("shows the agent's own new status from an event, and keeps the call and the phone", async () => {
    const { server, realtime, openTransfer } = await signedIn();
    act(() => realtime.current.setState('connected'));
    await openTransfer();
    const tokens = server.issuedTokens;
    const bar = within(screen.getByRole('banner'));
    expect(bar.getByRole('button', { name: 'Status: Available' })).toBeVisible();

    act(() =>
      realtime.current.publishAgentStatus(
        event({ user_id: SELF, status: 'on_call', is_available: true }),
      ),
    );
    expect(await bar.findByRole('button', { name: 'Status: On call' })).toBeVisible();
    expect(screen.getByRole('button', { name: /Hang Up/ })).toBeVisible();
    expect(server.issuedTokens).toBe(tokens);
    expect(realtime.connections).toHaveLength(1);
  });

  it('closes the connection on logout', async () => {
    const { realtime, user } = await signedIn();
    const connection = realtime.current;
    await user.click(screen.getByRole('button', { name: /Dana Whitfield/ }));
    await user.click(screen.getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(connection.closed).toBe(true));
    expect(realtime.connections).toHaveLength(1);
  });
});
