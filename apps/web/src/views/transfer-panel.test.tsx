/**
 * The Transfer and Add Lead panels on a call, in the whole app with the fake server and phone:
 * the lists, their filters, search, paging, eligibility and empty texts; what choosing a target
 * posts; Add Lead filling the lead card.
 */
import type { CallUserResponse, TeamRow } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoAgent, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { SEARCH_DEBOUNCE_MS, AGENT_LISTS_REFRESH_MS, canTakeTransfer } from './transfer-panel';
import { findAnswerButton } from '../test-support/console-under-test';

const CALL_USER = 42;
const CALL_ID = 9001;
const SELF = 7;

const agent = demoAgent;

const SALES: TeamRow = { id: 1, name: 'Sales', is_available: true };
const CLOSERS: TeamRow = { id: 2, name: 'Closers', is_available: false };

const AGENTS = [
  { ...agent(SELF, 'Dana Whitfield'), team_ids: [1] },
  { ...agent(11, 'Sam Lee'), team_ids: [1] },
  { ...agent(12, 'Ira Gold', { on_call_id: 5, status: 'on_call' }), team_ids: [1] },
  { ...agent(13, 'Noor Haddad', { is_available: false, status: 'away' }), team_ids: [2] },
  {
    ...agent(14, 'Pat Kim', { is_app_only: true, is_online_app: false, is_mobile: true }),
    team_ids: [2],
  },
  ...Array.from({ length: 9 }, (_, i) => ({
    ...agent(20 + i, `Zed Agent ${i + 1}`),
    team_ids: [2],
  })),
];

async function onCall(
  options: { callUser?: CallUserResponse; agents?: typeof AGENTS; teams?: TeamRow[] } = {},
) {
  const server = new FakeApi([{ user: demoUser({ id: SELF }), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER, options.callUser ?? demoCallUser());
  server.setAgents(options.agents ?? AGENTS).setTeams(options.teams ?? [SALES, CLOSERS]);
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  act(() => void phone.device.ring(CALL_USER));
  await user.click(await findAnswerButton('Call'));
  const panel = await screen.findByRole('region', { name: 'On call' });
  return { server, platform, user, panel };
}

const rowNames = (list: HTMLElement) =>
  within(list)
    .getAllByRole('listitem')
    .map((row) => {
      const button = within(row).getByRole('button');
      return `${row.querySelector('.target-name')?.firstChild?.textContent}${(button as HTMLButtonElement).disabled ? ' (no)' : ''}`;
    });

async function openTransfer(user: ReturnType<typeof userEvent.setup>, panel: HTMLElement) {
  await user.click(within(panel).getByRole('button', { name: 'Transfer' }));
  const transfer = within(panel).getByRole('region', { name: 'Transfer' });
  await within(transfer).findByRole('list', { name: 'Agents' });
  return transfer;
}

describe('who can take a transfer', () => {
  it.each([
    ['an available agent online in the app', agent(1, 'A'), true],
    ['the agent transferring', agent(SELF, 'Me'), false],
    ['an agent on a call', agent(1, 'A', { on_call_id: 3 }), false],
    ['an agent who is away', agent(1, 'A', { is_available: false }), false],
    [
      'an agent online only on mobile',
      agent(1, 'A', { is_online_app: false, is_mobile: true }),
      true,
    ],
    [
      'an app-only agent online only on mobile',
      agent(1, 'A', { is_app_only: true, is_online_app: false, is_mobile: true }),
      false,
    ],
    ['an agent offline', agent(1, 'A', { is_online_app: false }), false],
  ] as const)('%s: %s', (_name, row, expected) => {
    expect(canTakeTransfer(row, SELF)).toBe(expected);
  });
});

describe('the Transfer panel', () => {
  it('lists agents with their status, only eligible ones can be chosen, and pages by 10', async () => {
    const { user, panel } = await onCall();
    const transfer = await openTransfer(user, panel);
    expect(within(panel).getByRole('button', { name: 'Transfer' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(within(transfer).getByRole('combobox', { name: 'Status' })).toHaveDisplayValue(
      'All Statuses',
    );
    expect(
      within(within(transfer).getByRole('combobox', { name: 'Status' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All Statuses', 'Available', 'On Call']);
    expect(
      within(within(transfer).getByRole('combobox', { name: 'Team' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All Teams', 'Sales', 'Closers']);
    const list = within(transfer).getByRole('list', { name: 'Agents' });
    expect(rowNames(list)).toEqual([
      'Dana Whitfield (no)',
      'Sam Lee',
      'Ira Gold (no)',
      'Noor Haddad (no)',
      'Pat Kim (no)',
      'Zed Agent 1',
      'Zed Agent 2',
      'Zed Agent 3',
      'Zed Agent 4',
      'Zed Agent 5',
    ]);
    expect(within(list).getByRole('button', { name: 'Transfer to Sam Lee' })).toBeEnabled();
    expect(within(list).getAllByRole('listitem')[2]).toHaveTextContent('On call');

    const previous = within(transfer).getByRole('button', { name: 'Previous' });
    const next = within(transfer).getByRole('button', { name: 'Next' });
    expect(previous).toBeDisabled();
    expect(within(transfer).getByText('Page 1 of 2')).toBeVisible();
    await user.click(next);
    await waitFor(() =>
      expect(rowNames(within(transfer).getByRole('list', { name: 'Agents' }))).toEqual([
        'Zed Agent 6',
        'Zed Agent 7',
        'Zed Agent 8',
        'Zed Agent 9',
      ]),
    );
    expect(within(transfer).getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.click(within(transfer).getByRole('button', { name: 'Previous' }));
    await waitFor(() => expect(within(transfer).getByText('Page 1 of 2')).toBeVisible());
  });

  it('filters by status and team on the server, and searches once typing stops', async () => {
    const { server, platform, user, panel } = await onCall();
    const transfer = await openTransfer(user, panel);
    await user.selectOptions(within(transfer).getByRole('combobox', { name: 'Status' }), 'On Call');
    await waitFor(() =>
      expect(rowNames(within(transfer).getByRole('list', { name: 'Agents' }))).toEqual([
        'Ira Gold (no)',
      ]),
    );
    await user.selectOptions(
      within(transfer).getByRole('combobox', { name: 'Status' }),
      'All Statuses',
    );
    await user.selectOptions(within(transfer).getByRole('combobox', { name: 'Team' }), 'Sales');
    await waitFor(() =>
      expect(rowNames(within(transfer).getByRole('list', { name: 'Agents' }))).toEqual([
        'Dana Whitfield (no)',
        'Sam Lee',
        'Ira Gold (no)',
      ]),
    );
    const searches = () =>
      server.requestsTo('GET', '/api/v1/users/paginated').filter((r) => r.query.has('search'));
    await user.type(within(transfer).getByRole('searchbox', { name: 'Search' }), 'sam');
    // Nothing is searched while typing goes on.
    expect(searches()).toEqual([]);
    act(() => platform.clock.tick(SEARCH_DEBOUNCE_MS));
    await waitFor(() =>
      expect(rowNames(within(transfer).getByRole('list', { name: 'Agents' }))).toEqual(['Sam Lee']),
    );
    expect(searches().map((r) => r.query.get('search'))).toEqual(['sam']);
    expect(searches()[0]!.query.get('team_id')).toBe(String(SALES.id));

    await user.clear(within(transfer).getByRole('searchbox', { name: 'Search' }));
    await user.type(within(transfer).getByRole('searchbox', { name: 'Search' }), 'nobody');
    act(() => platform.clock.tick(SEARCH_DEBOUNCE_MS));
    expect(await within(transfer).findByText('No agents found!')).toBeVisible();
  });

  it('reads the lists again every few seconds while open, and not once closed', async () => {
    const { server, platform, user, panel } = await onCall();
    await openTransfer(user, panel);
    const reads = () => server.requestsTo('GET', '/api/v1/users/paginated').length;
    const before = reads();
    act(() => platform.clock.tick(AGENT_LISTS_REFRESH_MS));
    await waitFor(() => expect(reads()).toBe(before + 1));
    await user.keyboard('t');
    expect(within(panel).queryByRole('region', { name: 'Transfer' })).toBeNull();
    act(() => platform.clock.tick(AGENT_LISTS_REFRESH_MS * 3));
    expect(reads()).toBe(before + 1);
  });

  it('choosing an agent posts the transfer with this call user, and closes the panel', async () => {
    const { server, user, panel } = await onCall();
    const transfer = await openTransfer(user, panel);
    await user.click(within(transfer).getByRole('button', { name: 'Transfer to Sam Lee' }));
    await waitFor(() =>
      expect(within(panel).queryByRole('region', { name: 'Transfer' })).toBeNull(),
    );
    expect(
      server.requestsTo('POST', `/api/v1/calls/${CALL_ID}/transfer`).map((r) => r.body),
    ).toEqual([{ user_id: 11, call_user_id: CALL_USER }]);
    // Still on the call until the target answers.
    expect(within(panel).getByRole('button', { name: 'Hang Up' })).toBeEnabled();
  });

  it('the server’s refusal shows in the panel, which stays open', async () => {
    const { server, user, panel } = await onCall();
    const transfer = await openTransfer(user, panel);
    server.refuseNext('POST', `/api/v1/calls/${CALL_ID}/transfer`, 422, 'Sam Lee is on a call.');
    await user.click(within(transfer).getByRole('button', { name: 'Transfer to Sam Lee' }));
    expect(await within(transfer).findByRole('alert')).toHaveTextContent('Sam Lee is on a call.');
    expect(within(panel).getByRole('region', { name: 'Transfer' })).toBeVisible();
  });

  it('Team lists the teams with their availability and transfers to an available one', async () => {
    const { server, user, panel } = await onCall();
    const transfer = await openTransfer(user, panel);
    await user.click(within(transfer).getByRole('button', { name: 'Team' }));
    const list = await within(transfer).findByRole('list', { name: 'Teams' });
    expect(rowNames(list)).toEqual(['Sales', 'Closers (no)']);
    expect(within(list).getAllByRole('listitem')[1]).toHaveTextContent('Unavailable');
    await user.click(within(list).getByRole('button', { name: 'Transfer to team Sales' }));
    await waitFor(() =>
      expect(within(panel).queryByRole('region', { name: 'Transfer' })).toBeNull(),
    );
    expect(
      server.requestsTo('POST', `/api/v1/calls/${CALL_ID}/transfer`).map((r) => r.body),
    ).toEqual([{ team_id: SALES.id, call_user_id: CALL_USER }]);
  });

  it("says 'No agents found!' and 'No teams found!' when the lists are empty", async () => {
    const { user, panel } = await onCall({ agents: [], teams: [] });
    const transfer = within(panel).getByRole('button', { name: 'Transfer' });
    await user.click(transfer);
    const region = within(panel).getByRole('region', { name: 'Transfer' });
    expect(await within(region).findByText('No agents found!')).toBeVisible();
    await user.click(within(region).getByRole('button', { name: 'Team' }));
    expect(await within(region).findByText('No teams found!')).toBeVisible();
  });
});

describe('the Add Lead panel', () => {
  it('on a call without a lead: dials the lead in and fills the lead card; Hold and Transfer appear', async () => {
    const { server, user, panel } = await onCall({
      callUser: demoCallUser({ call: { lead: null, lead_id: null } }),
    });
    expect(within(panel).queryByRole('button', { name: 'Hold' })).toBeNull();
    await user.click(within(panel).getByRole('button', { name: 'Add Lead' }));
    const form = await within(panel).findByRole('region', { name: 'Add Lead' });
    expect(within(form).getByRole('textbox', { name: 'First Name' })).toHaveFocus();
    expect(within(form).getByRole('combobox', { name: 'Country' })).toHaveTextContent(
      'United States +1',
    );
    await user.type(within(form).getByRole('textbox', { name: 'First Name' }), 'Ana');
    await user.type(within(form).getByRole('textbox', { name: 'Last Name' }), 'Ruiz');
    await user.type(within(form).getByRole('textbox', { name: 'Phone Number' }), '555 010 0077');
    await user.click(within(form).getByRole('button', { name: 'Call' }));

    expect(await screen.findByRole('article', { name: 'Lead: Ana Ruiz' })).toBeVisible();
    expect(within(panel).queryByRole('region', { name: 'Add Lead' })).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Add Lead' })).toBeNull();
    expect(within(panel).getByRole('button', { name: 'Hold' })).toBeVisible();
    expect(within(panel).getByRole('button', { name: 'Transfer' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/calls/conferencelead').map((r) => r.body)).toEqual([
      { call_id: CALL_ID, fname: 'Ana', lname: 'Ruiz', phone_number: '+15550100077' },
    ]);
  });

  it('a lead that does not answer: the server’s error in the panel, the call goes on', async () => {
    const { server, user, panel } = await onCall({
      callUser: demoCallUser({ call: { lead: null, lead_id: null } }),
    });
    await user.click(within(panel).getByRole('button', { name: 'Add Lead' }));
    const form = await within(panel).findByRole('region', { name: 'Add Lead' });
    server.refuseNext('POST', '/api/v1/calls/conferencelead', 200, 'The lead’s line is busy.');
    await user.type(within(form).getByRole('textbox', { name: 'Phone Number' }), '555 010 0078');
    await user.click(within(form).getByRole('button', { name: 'Call' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('The lead’s line is busy.');
    expect(within(panel).getByRole('button', { name: 'Hang Up' })).toBeEnabled();
    expect(within(panel).getByRole('button', { name: 'Add Lead' })).toBeVisible();
  });
});
