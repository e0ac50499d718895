/**
 * The Conference panel and supervision in the whole app, with the fake server and phone: who
 * sees the Conference entry, which row actions each permission gives, what they post, adding an
 * agent from a call, and a supervisor moving between listen, whisper and barge on one call.
 */
import type { CallUserResponse, User } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoAgent, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { findAnswerButton } from '../test-support/console-under-test';

const SELF = 7;
const CALL_USER = 42;
const CALL_ID = 9001;
const SUPERVISOR: Partial<User> = { permissions: ['listen', 'whisper', 'barge'] };

const agent = demoAgent;

const AGENTS = [
  agent(11, 'Sam Lee'),
  agent(12, 'Ira Gold', { on_call_id: 5, status: 'on_call' }),
  agent(13, 'Noor Haddad', { is_available: false, status: 'away' }),
  agent(14, 'Pat Kim', { is_online_app: false, is_mobile: true }),
  agent(15, 'Lou Park', { is_online_app: false, status: 'offline' }),
];

function renderApp(user: Partial<User> = {}, callUser: CallUserResponse = demoCallUser()) {
  const server = new FakeApi([{ user: demoUser({ id: SELF, ...user }), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER, callUser);
  server.setAgents(AGENTS).setTeams([{ id: 1, name: 'Sales', is_available: true }]);
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const events = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  const ready = async () => expect(await screen.findByText('Phone ready')).toBeVisible();
  const answer = async () => {
    await ready();
    act(() => void phone.device.ring(CALL_USER));
    // Listen, whisper and barge calls answer by themselves (the server asks it: autoaccept).
    if (!callUser.autoaccept) await events.click(await findAnswerButton('Call'));
    return screen.findByRole('region', { name: 'On call' });
  };
  return { server, platform, phone, user: events, ready, answer };
}

/** What each listed agent's row offers, by the buttons' names. */
const rowActions = (list: HTMLElement): Record<string, string[]> =>
  Object.fromEntries(
    within(list)
      .getAllByRole('listitem')
      .map((row): [string, string[]] => [
        row.querySelector('.target-name')?.firstChild?.textContent ?? '',
        within(row)
          .queryAllByRole('button')
          .map(
            (b) =>
              `${b.getAttribute('aria-label')}${(b as HTMLButtonElement).disabled ? ' (no)' : ''}`,
          ),
      ]),
  );

describe('the Conference entry in the waiting state', () => {
  it('is hidden for an agent without listen, whisper or barge', async () => {
    const { ready } = renderApp();
    await ready();
    expect(
      within(screen.getByRole('navigation', { name: 'Console' })).queryByRole('button', {
        name: 'Conference',
      }),
    ).toBeNull();
  });

  it('a supervisor opens it: All Statuses, Online, On Call; Listen, Whisper and Barge on agents on a call', async () => {
    const { server, user, ready } = renderApp(SUPERVISOR);
    await ready();
    const entry = within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
      name: 'Conference',
    });
    await user.click(entry);
    expect(entry).toHaveAttribute('aria-expanded', 'true');
    const panel = screen.getByRole('region', { name: 'Conference' });
    expect(
      within(within(panel).getByRole('combobox', { name: 'Status' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All Statuses', 'Online', 'On Call']);
    const list = await within(panel).findByRole('list', { name: 'Agents' });
    // Not on a call: nobody to add; only agents on a call can be joined.
    expect(rowActions(list)).toEqual({
      'Sam Lee': [],
      'Ira Gold': ['Listen to Ira Gold', 'Whisper to Ira Gold', "Barge into Ira Gold's call"],
      'Noor Haddad': [],
      'Pat Kim': [],
      'Lou Park': [],
    });
    await user.click(within(list).getByRole('button', { name: 'Whisper to Ira Gold' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Conference' })).toBeNull());
    expect(server.requestsTo('POST', '/api/v1/calls/5/whisper')).toHaveLength(1);
  });

  it.each([
    [['listen'], ['Listen to Ira Gold']],
    [
      ['whisper', 'barge'],
      ['Whisper to Ira Gold', "Barge into Ira Gold's call"],
    ],
  ])('with only %j, a row offers only %j', async (permissions, expected) => {
    const { user, ready } = renderApp({ permissions });
    await ready();
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'Conference',
      }),
    );
    const list = await within(screen.getByRole('region', { name: 'Conference' })).findByRole(
      'list',
      { name: 'Agents' },
    );
    expect(rowActions(list)['Ira Gold']).toEqual(expected);
  });

  it("says 'No agents found!' when nobody matches", async () => {
    const { user, platform, ready } = renderApp(SUPERVISOR);
    await ready();
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'Conference',
      }),
    );
    const panel = screen.getByRole('region', { name: 'Conference' });
    await user.type(within(panel).getByRole('searchbox', { name: 'Search' }), 'zzz');
    act(() => platform.clock.tick(300));
    expect(await within(panel).findByText('No agents found!')).toBeVisible();
  });
});

describe('Conference on a call', () => {
  it('adds an available agent online in the app or on mobile to the call', async () => {
    const { server, user, answer } = renderApp();
    const panel = await answer();
    expect(within(panel).getByText('On call')).toBeVisible();
    await user.click(within(panel).getByRole('button', { name: 'Conference' }));
    const list = await within(within(panel).getByRole('region', { name: 'Conference' })).findByRole(
      'list',
      { name: 'Agents' },
    );
    // An agent without supervisor permissions: no row action on agents on a call.
    expect(rowActions(list)).toEqual({
      'Sam Lee': ['Add Sam Lee to the call'],
      'Ira Gold': [],
      'Noor Haddad': [],
      'Pat Kim': ['Add Pat Kim to the call'],
      'Lou Park': [],
    });
    await user.click(within(list).getByRole('button', { name: 'Add Sam Lee to the call' }));
    await waitFor(() =>
      expect(within(panel).queryByRole('region', { name: 'Conference' })).toBeNull(),
    );
    expect(server.requestsTo('POST', '/api/v1/calls/conference').map((r) => r.body)).toEqual([
      { user_id: 11 },
    ]);
    // Spec section 7: success closes the panel and labels the call Conference.
    expect(within(panel).getByText('Conference', { selector: '.call-status-text' })).toBeVisible();
    expect(within(panel).queryByText('On call')).toBeNull();
  });

  it('is not offered on a listen call', async () => {
    const { answer } = renderApp(
      SUPERVISOR,
      demoCallUser({ type: 'listen', autoaccept: true, call: { agent_name: 'Ira Gold' } }),
    );
    const panel = await answer();
    expect(within(panel).queryByRole('button', { name: 'Conference' })).toBeNull();
  });
});

describe('a supervisor on an agent’s call', () => {
  it('is answered by itself, says whose call it is, and moves listen → whisper → barge without hanging up', async () => {
    const { server, phone, user, answer } = renderApp(
      SUPERVISOR,
      demoCallUser({
        type: 'listen',
        autoaccept: true,
        call: { agent_name: 'Ira Gold', seconds_since_started_at: 42 },
      }),
    );
    const panel = await answer();
    expect(within(panel).getByText("Listening to Ira Gold's call")).toBeVisible();
    expect(within(panel).getByRole('timer')).toHaveTextContent('00:42');
    expect(within(panel).getByRole('button', { name: 'Mute' })).toBeDisabled();
    expect(within(panel).queryByRole('button', { name: 'Keypad' })).toBeNull();
    const roles = within(panel).getByRole('group', { name: 'Your role on this call' });
    expect(within(roles).getByRole('button', { name: 'Listen' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );

    await user.click(within(roles).getByRole('button', { name: 'Whisper' }));
    expect(await within(panel).findByText('Whispering to Ira Gold')).toBeVisible();
    expect(within(panel).getByRole('button', { name: 'Mute' })).toBeEnabled();
    expect(within(panel).queryByRole('button', { name: 'Keypad' })).toBeNull();

    await user.click(within(roles).getByRole('button', { name: 'Barge' }));
    expect(await within(panel).findByText("Barged into Ira Gold's call")).toBeVisible();
    expect(within(panel).getByRole('button', { name: 'Keypad' })).toBeVisible();
    expect(server.requestsTo('POST', `/api/v1/calls/${CALL_ID}/whisper`)).toHaveLength(1);
    expect(server.requestsTo('POST', `/api/v1/calls/${CALL_ID}/barge`)).toHaveLength(1);
    // The same call all along.
    expect(phone.device.calls.filter((c) => c.status() === 'open')).toHaveLength(1);
  });
});
