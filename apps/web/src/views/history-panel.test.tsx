/**
 * The History panel in the whole app, with the fake server: opened from the bottom navigation,
 * its rows as the server words them, the account's lead-name setting, supervisors shown to
 * supervisors, paging, the recording played in the page, the empty text, New Call.
 */
import type { HistoryRow, User } from '@leadline/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../api/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../phone/fake-phone';
import { createFakePlatform } from '../platform/fake-platform';

function row(id: number, overrides: Partial<HistoryRow> = {}): HistoryRow {
  return {
    id,
    direction: 'outbound',
    type: 'lead',
    recording_url: null,
    created_at: '2026-11-24T10:04:00.000Z',
    time_formatted: 'Nov 24, 2026, 10:04 AM',
    status: 'completed',
    status_display: '01:05',
    reason: null,
    seconds: 65,
    duration: '01:05',
    retry: false,
    lead_retry: null,
    disposition: 'contacted',
    stage: null,
    notes: [],
    user: { name: 'Dana Whitfield' },
    lead: {
      fname: 'Maya',
      lname: 'Okafor',
      label: 'Maya Okafor',
      phone_number: '+15550100042',
      phone_number_formatted: '+1 555 010 0042',
    },
    phone_number_formatted: '+1 555 010 0042',
    ...overrides,
  };
}

async function openHistory(rows: HistoryRow[], user: Partial<User> = {}) {
  const server = new FakeApi([{ user: demoUser(user), password: 'pw' }]).signIn();
  server.setHistory(rows);
  const platform = createFakePlatform(server.fetch);
  const events = userEvent.setup();
  render(
    <App
      phoneFactory={new FakePhone().factory}
      platform={platform}
      queryClient={createQueryClient()}
    />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const entry = within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
    name: 'History',
  });
  await events.click(entry);
  const panel = screen.getByRole('region', { name: 'Call History' });
  return { server, user: events, panel, entry };
}

describe('the History panel', () => {
  it("opens from History with 'Call History', a close icon, and says \"You don't have any calls!\" when empty", async () => {
    const { user, panel, entry } = await openHistory([]);
    expect(entry).toHaveAttribute('aria-expanded', 'true');
    expect(within(panel).getByRole('heading', { name: 'Call History' })).toHaveFocus();
    expect(await within(panel).findByText("You don't have any calls!")).toBeVisible();
    await user.click(within(panel).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('region', { name: 'Call History' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it('lists calls with direction, time, status and reason, duration, agent and lead', async () => {
    const { panel } = await openHistory([
      row(1),
      row(2, {
        direction: 'inbound',
        status: 'missed',
        status_display: 'missed',
        reason: 'No agents answered',
        seconds: 0,
        duration: '00:00',
        user: null,
        lead: null,
        phone_number_formatted: '+1 555 010 7001',
      }),
      row(3, { type: 'conference' }),
    ]);
    const list = await within(panel).findByRole('list', { name: 'Calls' });
    const [first, second, third] = within(list).getAllByRole('listitem');
    expect(first).toHaveTextContent('Outbound call to Maya Okafor');
    expect(first).toHaveTextContent('+1 555 010 0042');
    expect(first).toHaveTextContent('Nov 24, 2026, 10:04 AM');
    expect(first).toHaveTextContent('Duration 01:05');
    expect(first).toHaveTextContent('Dana Whitfield');
    expect(second).toHaveTextContent('Inbound call from +1 555 010 7001');
    expect(second).toHaveTextContent('missed');
    expect(second).toHaveTextContent('No agents answered');
    expect(third).toHaveTextContent('Conference');
    expect(within(first!).queryByRole('button', { name: /recording/ })).toBeNull();
  });

  it('shows what the agent recorded: the result, the tag in its colour, and the notes', async () => {
    const { panel } = await openHistory([
      row(1, {
        disposition: 'voicemail',
        stage: { key: 'hot', name: 'Hot lead', color: '#d93025' },
        notes: [
          { id: 5, content: 'Call back Tuesday', created_at: '2026-11-24T10:06:00.000Z' },
          { id: 6, content: '<b>not bold</b>', created_at: '2026-11-24T10:07:00.000Z' },
        ],
      }),
      row(2, { disposition: null }),
    ]);
    const list = await within(panel).findByRole('list', { name: 'Calls' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first).toHaveTextContent('Voicemail');
    const tag = within(first!).getByText('Hot lead');
    expect(tag).toHaveStyle({ backgroundColor: 'rgb(217, 48, 37)', color: 'rgb(255, 255, 255)' });
    expect(first).toHaveTextContent('Note: Call back Tuesday');
    // Free text is shown as text.
    expect(within(first!).getByText('<b>not bold</b>')).toBeVisible();
    expect(second).not.toHaveTextContent('Note:');
  });

  it('shows first and last name for accounts with that setting, and supervisors to supervisors', async () => {
    const rows = [
      row(1, {
        lead: { ...row(1).lead!, label: 'Brightwater Solar' },
        supervision: [
          { name: 'Sam Okafor', role: 'listen', at: '2026-11-24T10:05:00.000Z' },
          { name: 'Sam Okafor', role: 'barge', at: '2026-11-24T10:06:00.000Z' },
        ],
      }),
    ];
    const { panel } = await openHistory(rows, {
      settings: { history_shows_lead_name: true },
      permissions: ['listen', 'barge'],
    });
    const item = within(await within(panel).findByRole('list', { name: 'Calls' })).getByRole(
      'listitem',
    );
    expect(item).toHaveTextContent('Maya Okafor');
    expect(item).not.toHaveTextContent('Brightwater Solar');
    expect(item).toHaveTextContent('Sam Okafor listened, Sam Okafor barged in');
  });

  it('plays a recording in the page with the browser’s controls (seek bar), and offers a download', async () => {
    const { user, panel } = await openHistory([
      row(7, { recording_url: '/api/v1/calls/7/recording' }),
    ]);
    const play = await within(panel).findByRole('button', {
      name: 'Play recording of the call with Maya Okafor',
    });
    const download = within(panel).getByRole('link', {
      name: 'Download the recording of the call with Maya Okafor',
    });
    expect(download).toHaveAttribute('href', '/api/v1/calls/7/recording');
    expect(download).toHaveAttribute('download');
    await user.click(play);
    const audio = panel.querySelector('audio');
    expect(audio).not.toBeNull();
    expect(audio).toHaveAttribute('src', '/api/v1/calls/7/recording');
    expect(audio).toHaveAttribute('controls');
  });

  it('pages by 5 with Previous and Next', async () => {
    const { server, user, panel } = await openHistory(
      Array.from({ length: 7 }, (_, i) =>
        row(i + 1, { lead: { ...row(1).lead!, label: `Lead ${i + 1}` } }),
      ),
    );
    const names = () =>
      within(within(panel).getByRole('list', { name: 'Calls' }))
        .getAllByRole('listitem')
        .map((li) => li.querySelector('.history-name')?.textContent);
    await waitFor(() =>
      expect(names()).toEqual(['Lead 1', 'Lead 2', 'Lead 3', 'Lead 4', 'Lead 5']),
    );
    expect(within(panel).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(within(panel).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(names()).toEqual(['Lead 6', 'Lead 7']));
    expect(within(panel).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(server.requestsTo('GET', '/api/v1/mycalls').map((r) => r.query.get('limit'))).toEqual([
      '5',
      '5',
    ]);
  });

  it('reads the history again each time it opens (after every call)', async () => {
    const { server, user, entry } = await openHistory([row(1)]);
    await waitFor(() => expect(server.requestsTo('GET', '/api/v1/mycalls')).toHaveLength(1));
    await user.click(entry);
    await user.click(entry);
    await waitFor(() => expect(server.requestsTo('GET', '/api/v1/mycalls')).toHaveLength(2));
  });

  it('New Call opens the New Call panel in its place', async () => {
    const { user, panel } = await openHistory([]);
    await user.click(within(panel).getByRole('button', { name: 'New Call' }));
    expect(await screen.findByRole('region', { name: 'New Call' })).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Call History' })).toBeNull();
  });
});
