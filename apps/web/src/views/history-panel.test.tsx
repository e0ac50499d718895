/**
 * The History panel in the whole app, with the fake server: opened from the bottom navigation,
 * its rows as the server words them, times in the browser's zone (today's as a time, older ones
 * with the date, by the platform's clock), the account's lead-name setting, supervisors shown to
 * supervisors, paging, the recording played in the page, Retry (by permission and by row, what
 * it posts, disabled while it runs, its refusal under the row), the empty text, New Call.
 */
import type { HistoryRow, User } from '@leadline/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { PERMISSION_RETRY } from '../constants';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { retryStartedText } from './history-panel';

/** Where the fake platform's clock starts (`FakeClock`): the tests' "now". */
const NOW_ISO = '2025-01-06T09:00:00.000Z';

/** How a browser writes a time in its own zone and locale: written here, not taken from the app. */
const browserTime = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(new Date(iso));
const browserDateAndTime = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );

/** A row whose lead may be called again (the server offers Retry for it). */
const RETRYABLE: Partial<HistoryRow> = {
  retry: true,
  lead_retry: { fname: 'Maya', lname: 'Okafor', phone_number: '+15550100042' },
};

function row(id: number, overrides: Partial<HistoryRow> = {}): HistoryRow {
  return {
    id,
    direction: 'outbound',
    type: 'lead',
    recording_url: null,
    created_at: '2026-11-24T10:04:00.000Z',
    time_formatted: 'Nov 24, 2026, 10:04 AM UTC',
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
  expect(platform.clock.now()).toBe(Date.parse(NOW_ISO));
  const entry = within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
    name: 'History',
  });
  await events.click(entry);
  const panel = screen.getByRole('region', { name: 'Call History' });
  return { server, user: events, panel, entry, platform };
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
    expect(first).toHaveTextContent(browserDateAndTime('2026-11-24T10:04:00.000Z'));
    expect(first).toHaveTextContent('Duration 01:05');
    expect(first).toHaveTextContent('Dana Whitfield');
    expect(second).toHaveTextContent('Inbound call from +1 555 010 7001');
    expect(second).toHaveTextContent('missed');
    expect(second).toHaveTextContent('No agents answered');
    expect(third).toHaveTextContent('Conference');
    expect(within(first!).queryByRole('button', { name: /recording/ })).toBeNull();
  });

  it("shows times in the browser's zone: today's call as its time, an older one with the date, never the server's UTC text", async () => {
    const today = NOW_ISO;
    const older = '2025-01-03T09:00:00.000Z';
    const { user, panel, entry, platform } = await openHistory([
      row(1, { created_at: today, time_formatted: 'Jan 6, 2025, 9:00 AM UTC' }),
      row(2, { created_at: older, time_formatted: 'Jan 3, 2025, 9:00 AM UTC' }),
    ]);
    const list = await within(panel).findByRole('list', { name: 'Calls' });
    const times = () => [...list.querySelectorAll('time')];
    expect(times().map((t) => t.textContent)).toEqual([
      browserTime(today),
      browserDateAndTime(older),
    ]);
    expect(times().map((t) => t.getAttribute('datetime'))).toEqual([today, older]);
    expect(list).not.toHaveTextContent('UTC');

    // Two days later (by the platform's clock), the first call is no longer today's.
    platform.clock.tick(2 * 24 * 3600 * 1000);
    await user.click(entry);
    await user.click(entry);
    const again = await screen.findByRole('list', { name: 'Calls' });
    await waitFor(() =>
      expect([...again.querySelectorAll('time')].map((t) => t.textContent)).toEqual([
        browserDateAndTime(today),
        browserDateAndTime(older),
      ]),
    );
  });

  describe('Retry', () => {
    it.each([
      // [the agent's permissions, the row, Retry shown]
      [[PERMISSION_RETRY], RETRYABLE, true],
      [[PERMISSION_RETRY], { retry: false, lead_retry: null }, false],
      // A row that says retry without the lead to call has nothing to post.
      [[PERMISSION_RETRY], { retry: true, lead_retry: null }, false],
      // The server's word decides: a payload alone does not offer Retry.
      [[PERMISSION_RETRY], { ...RETRYABLE, retry: false }, false],
      [[], RETRYABLE, false],
      [[], { retry: false, lead_retry: null }, false],
      [['app-sms'], RETRYABLE, false],
    ] as const)(
      'with permissions %j and a row %j: Retry shown %s',
      async (permissions, offer, shown) => {
        const { panel } = await openHistory([row(1, offer)], { permissions: [...permissions] });
        const item = within(await within(panel).findByRole('list', { name: 'Calls' })).getByRole(
          'listitem',
        );
        expect(within(item).queryAllByRole('button', { name: /^Retry/ })).toHaveLength(
          shown ? 1 : 0,
        );
      },
    );

    it("posts the row's lead_retry, is disabled while it runs, then says the lead is being called", async () => {
      const { server, user, panel } = await openHistory(
        [
          row(1, RETRYABLE),
          row(2, {
            retry: true,
            lead_retry: { fname: 'Jordan', lname: 'Miles', phone_number: '+15550100081' },
            lead: {
              fname: 'Jordan',
              lname: 'Miles',
              label: 'Jordan Miles',
              phone_number: '+15550100081',
              phone_number_formatted: '+1 555 010 0081',
            },
          }),
        ],
        { permissions: [PERMISSION_RETRY] },
      );
      const retry = await within(panel).findByRole('button', { name: 'Retry Jordan Miles' });
      const other = within(panel).getByRole('button', { name: 'Retry Maya Okafor' });
      expect(retry).toHaveTextContent('Retry');
      const release = server.hold();
      await user.click(retry);
      await waitFor(() =>
        expect(server.requestsTo('POST', '/api/v1/calls/twilio')).toHaveLength(1),
      );
      expect(server.requestsTo('POST', '/api/v1/calls/twilio')[0]?.body).toEqual({
        fname: 'Jordan',
        lname: 'Miles',
        phone_number: '+15550100081',
      });
      // One Retry at a time.
      expect(retry).toBeDisabled();
      expect(retry).toHaveAttribute('aria-busy', 'true');
      expect(other).toBeDisabled();
      release();
      const status = within(panel).getByRole('status');
      await waitFor(() => expect(status).toHaveTextContent('Calling Jordan Miles again…'));
      expect(retry).toBeEnabled();
      expect(within(panel).queryByRole('alert')).toBeNull();
      expect(server.requestsTo('POST', '/api/v1/calls/twilio')).toHaveLength(1);
    });

    it('works from the keyboard', async () => {
      const { server, user, panel } = await openHistory([row(1, RETRYABLE)], {
        permissions: [PERMISSION_RETRY],
      });
      const retry = await within(panel).findByRole('button', { name: 'Retry Maya Okafor' });
      retry.focus();
      await user.keyboard('{Enter}');
      await waitFor(() =>
        expect(within(panel).getByRole('status')).toHaveTextContent('Calling Maya Okafor again…'),
      );
      await user.keyboard(' ');
      await waitFor(() =>
        expect(server.requestsTo('POST', '/api/v1/calls/twilio')).toHaveLength(2),
      );
    });

    it("shows the server's refusal under the row, as text", async () => {
      const { server, user, panel } = await openHistory(
        [row(1, RETRYABLE), row(2, { ...RETRYABLE, lead: { ...row(2).lead!, label: 'Lead 2' } })],
        { permissions: [PERMISSION_RETRY] },
      );
      const refusal = '<b>All agents are busy.</b>';
      server.refuseNext('POST', '/api/v1/calls/twilio', 200, refusal);
      await user.click(await within(panel).findByRole('button', { name: 'Retry Maya Okafor' }));
      const [first, second] = within(
        within(panel).getByRole('list', { name: 'Calls' }),
      ).getAllByRole('listitem');
      const alert = await within(first!).findByRole('alert');
      expect(alert).toHaveTextContent(refusal);
      expect(alert.querySelector('b')).toBeNull();
      expect(within(second!).queryByRole('alert')).toBeNull();
      expect(within(panel).getByRole('status').textContent).toBe('');
      // The agent may try again; the refusal goes once it is tried again.
      await user.click(within(first!).getByRole('button', { name: 'Retry Maya Okafor' }));
      await waitFor(() =>
        expect(within(panel).getByRole('status')).toHaveTextContent('Calling Maya Okafor again…'),
      );
      expect(within(panel).queryByRole('alert')).toBeNull();
    });

    it('says so when the server rings another agent for the call', () => {
      expect(retryStartedText('Maya Okafor', 7, 7)).toBe('Calling Maya Okafor again…');
      expect(retryStartedText('Maya Okafor', 12, 7)).toBe(
        'Calling Maya Okafor again: another agent is being rung for the call.',
      );
    });
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
