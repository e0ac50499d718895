/**
 * The Floor (issue 39) in the whole console on the fake server: who gets the entry, what it
 * shows, the waits counting up on the page's clock, Listen/Whisper/Barge by permission, and
 * the figures read again when an agent's status changes; Reports' range, tables and CSV; and
 * where the browser can draw (uPlot replaced: a test DOM has no canvas), the charts beside the
 * tables.
 */
import type { Floor, ReportSummary, UserRole } from '@leadline/contracts';
import { act, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FLOOR_EVENTS_WINDOW_MS } from '../constants';
import { expectNoAxeViolations } from '../test-support/admin-under-test';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import FakeUPlot from '../test-support/fake-uplot';

vi.mock('uplot', () => import('../test-support/fake-uplot'));

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A browser that can draw, as far as the charts ask: `matchMedia` and `ResizeObserver`. */
function canDraw(): void {
  FakeUPlot.reset();
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: false,
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
}

function floorAt(nowMs: number, offered = 2): Floor {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    time_zone: 'America/New_York',
    date: '2026-11-27',
    queue: [
      {
        call_id: 7,
        label: 'Jordan Lee',
        profile: { id: 1, name: 'Solar' },
        team: { id: 2, name: 'Sales' },
        waiting_since: iso(nowMs - 65_000),
      },
    ],
    agents: [
      {
        id: 11,
        full_name: 'Alex Rivera',
        role: 'agent',
        status: 'on_call',
        since: iso(nowMs - 125_000),
        call: { id: 5, lead_label: 'Casey Park', answered_at: iso(nowMs - 125_000) },
      },
      {
        id: 12,
        full_name: 'Blake Chen',
        role: 'agent',
        status: 'wrap_up',
        since: iso(nowMs - 10_000),
        call: null,
      },
    ],
    kpis: {
      offered,
      answered: 1,
      missed: 0,
      abandoned: 0,
      answer_rate: 0.5,
      average_speed_of_answer_seconds: 12,
      average_handle_seconds: 185,
      service_level: 1,
      service_level_seconds: 20,
    },
    intervals: [
      {
        start: '2026-11-27T14:45:00.000Z',
        offered,
        answered: 1,
        missed: 0,
        abandoned: 0,
        service_level: 1,
      },
    ],
  };
}

function summaryOf(from: string, to: string): ReportSummary {
  const figures = {
    offered: 4,
    answered: 3,
    missed: 1,
    abandoned: 0,
    answer_rate: 0.75,
    average_speed_of_answer_seconds: 9,
    average_handle_seconds: 200,
    service_level: 0.5,
    talk_seconds: 540,
  };
  return {
    time_zone: 'America/New_York',
    from,
    to,
    service_level_seconds: 20,
    by_day: [{ day: to, ...figures }],
    by_team: [{ id: 2, name: 'Sales', ...figures }],
    by_profile: [],
    by_agent: [
      {
        id: 11,
        name: 'Alex Rivera',
        calls: 3,
        answered: 3,
        talk_seconds: 540,
        average_handle_seconds: 200,
      },
    ],
    by_disposition: [{ disposition: 'contacted', calls: 2 }],
    by_tag: [],
  };
}

async function consoleAs(role: UserRole, permissions: string[] = []) {
  const me = demoUser({ role, permissions, full_name: 'Sam Okafor' });
  const server = new FakeApi([{ user: me, password: 'pw' }]).signIn();
  server.addCallUser(42, demoCallUser());
  const platform = createFakePlatform(server.fetch);
  const start = platform.clock.now();
  server.addRoutes(({ method, path, query }) => {
    if (method === 'GET' && path === '/api/v1/floor') return Response.json(floorAt(start));
    if (method === 'GET' && path === '/api/v1/reports/summary') {
      return Response.json(summaryOf(query.get('from') ?? '', query.get('to') ?? ''));
    }
    return null;
  });
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const nav = within(screen.getByRole('navigation', { name: 'Console' }));
  return { server, platform, user, nav };
}

describe('the Floor', () => {
  it('is an entry for supervisors and admins, never for agents', async () => {
    const agent = await consoleAs('agent');
    expect(agent.nav.queryByRole('button', { name: 'Floor' })).toBeNull();
  });

  it('shows today’s figures, the queue and the agents, times counting up', async () => {
    const { user, nav, platform } = await consoleAs('supervisor', ['listen', 'whisper']);
    await user.click(nav.getByRole('button', { name: 'Floor' }));
    const floor = await screen.findByRole('region', { name: 'Floor' });
    expect(await within(floor).findByText('Jordan Lee')).toBeVisible();
    const figures = within(floor).getByRole('heading', { name: /Today/ }).closest('section')!;
    const figure = (label: string) =>
      within(figures).getByText(label).closest('div')?.querySelector('dd')?.textContent;
    expect(figure('Offered')).toBe('2');
    expect(figure('Answer rate')).toBe('50 %');
    expect(figure('Avg. handle time')).toBe('03:05');
    expect(figure('Service level (20 s)')).toBe('100 %');

    const queueRow = within(floor).getByText('Jordan Lee').closest('tr')!;
    expect(within(queueRow).getByText('Solar / Sales')).toBeVisible();
    expect(queueRow.textContent).toContain('01:05');
    const alex = within(floor).getByText('Alex Rivera').closest('tr')!;
    expect(within(alex).getByText('On call')).toBeVisible();
    expect(alex.textContent).toContain('Casey Park');
    expect(within(floor).getByText('Blake Chen').closest('tr')!.textContent).toContain(
      'Wrapping up',
    );
    // Listen and Whisper (the supervisor's permissions), for the agent on a call only.
    expect(within(alex).getByRole('button', { name: 'Listen to Alex Rivera' })).toBeVisible();
    expect(within(alex).getByRole('button', { name: 'Whisper to Alex Rivera' })).toBeVisible();
    expect(within(alex).queryByRole('button', { name: /Barge/ })).toBeNull();

    // Three seconds later the waits have counted up, without a read.
    act(() => platform.clock.tick(3000));
    expect(queueRow.textContent).toContain('01:08');
    await expectNoAxeViolations(floor);
  });

  it('is read again, once, on a burst of floor-changed events', async () => {
    const { user, nav, server, platform } = await consoleAs('supervisor');
    await user.click(nav.getByRole('button', { name: 'Floor' }));
    const floor = await screen.findByRole('region', { name: 'Floor' });
    expect(await within(floor).findByText('Jordan Lee')).toBeVisible();
    const realtime = platform.realtime.current;
    act(() => {
      realtime.setState('connected');
      realtime.subscriptionSucceeded();
    });
    const floorReads = () => server.requestsTo('GET', '/api/v1/floor').length;
    await expect.poll(floorReads).toBeGreaterThanOrEqual(2);
    const before = floorReads();

    // The lead is rung, the agent answers: two events, one read.
    const at = new Date(platform.clock.now()).toISOString();
    act(() => {
      realtime.publishFloorChanged({ call_id: 7, reason: 'ringing', at });
      realtime.publishFloorChanged({ call_id: 7, reason: 'answered', at });
    });
    act(() => platform.clock.tick(FLOOR_EVENTS_WINDOW_MS - 1));
    expect(floorReads()).toBe(before);
    act(() => platform.clock.tick(1));
    await expect.poll(floorReads).toBe(before + 1);
  });

  it('Reports: a range of days, its tables, and its calls as CSV', async () => {
    const { user, nav, server, platform } = await consoleAs('admin');
    await user.click(nav.getByRole('button', { name: 'Floor' }));
    const floor = await screen.findByRole('region', { name: 'Floor' });
    await user.click(within(floor).getByRole('button', { name: 'Reports' }));
    const byDay = await within(floor).findByRole('region', { name: 'By day' });
    const pad = (n: number) => String(n).padStart(2, '0');
    const day = (ms: number) => {
      const d = new Date(ms);
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    };
    const today = day(platform.clock.now());
    const weekAgo = day(platform.clock.now() - 6 * 86_400_000);
    expect(server.requestsTo('GET', '/api/v1/reports/summary').at(-1)?.query.toString()).toBe(
      `from=${weekAgo}&to=${today}`,
    );
    const row = within(byDay).getByRole('row', { name: new RegExp(today) });
    expect(row.textContent).toContain('75 %');
    expect(row.textContent).toContain('03:20');
    expect(within(floor).getByRole('region', { name: 'By profile' }).textContent).toContain(
      'No calls in this range.',
    );
    expect(
      within(floor).getByRole('link', { name: 'Download calls (CSV)' }).getAttribute('href'),
    ).toBe(`/api/v1/reports/calls.csv?from=${weekAgo}&to=${today}`);

    // Another range: the summaries of those days.
    const from = within(floor).getByLabelText('From');
    await user.clear(from);
    await user.type(from, '2024-12-01');
    await user.click(within(floor).getByRole('button', { name: 'Show' }));
    await expect
      .poll(() => server.requestsTo('GET', '/api/v1/reports/summary').at(-1)?.query.get('from'))
      .toBe('2024-12-01');
    await expectNoAxeViolations(floor);
  });

  it('charts today by 15 minutes and a report’s days where the browser can draw', async () => {
    canDraw();
    const { user, nav } = await consoleAs('supervisor');
    await user.click(nav.getByRole('button', { name: 'Floor' }));
    const floor = await screen.findByRole('region', { name: 'Floor' });
    const intervals = within(floor).getByRole('region', { name: 'By 15 minutes' });
    expect(
      await within(intervals).findByRole('img', { name: /today’s calls by 15 minutes/ }),
    ).toBeVisible();
    // The charts are made in an effect after the figure is shown: wait for them.
    await vi.waitFor(() =>
      expect(FakeUPlot.made.map((chart) => chart.options.title)).toEqual([
        'Calls by 15 minutes',
        'Service level through the day',
      ]),
    );
    // The table stays, the screen readers' alternative.
    expect(within(intervals).getByRole('table')).toBeVisible();
    await expectNoAxeViolations(floor);

    FakeUPlot.reset();
    await user.click(within(floor).getByRole('button', { name: 'Reports' }));
    const byDay = await within(floor).findByRole('region', { name: 'By day' });
    const chart = await within(byDay).findByRole('img', {
      name: /calls by day and the answer rate and service level by day; the table By day/,
    });
    expect(chart).toBeVisible();
    expect(within(byDay).getByRole('table')).toBeVisible();
    await vi.waitFor(() => expect(FakeUPlot.made).toHaveLength(2));
    const [calls, rates] = FakeUPlot.made;
    expect([calls?.options.title, rates?.options.title]).toEqual([
      'Calls by day',
      'Answer rate and service level by day',
    ]);
    // The seven days of the range, the last (today) with its calls.
    expect(calls?.data[0]).toHaveLength(7);
    expect(calls?.data[1]).toEqual([0, 0, 0, 0, 0, 0, 4]);
    expect(rates?.data[2]?.at(-1)).toBe(50);
    await expectNoAxeViolations(floor);
  });
});
