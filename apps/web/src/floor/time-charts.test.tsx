/**
 * The floor's and the reports' charts (issue 39) with uPlot replaced (a test DOM cannot draw):
 * what each chart is given (the days of a report's range, today's intervals, the axes and
 * scales), and the chart set's element: one image with an accessible name, a chart in each of
 * its boxes, following their width, and gone when unmounted.
 */
import type { FloorInterval, ReportSummary } from '@leadline/contracts';
import { act, render, screen } from '@testing-library/react';
import type uPlot from 'uplot';
import type { Axis, Scale, Series } from 'uplot';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectNoAxeViolations } from '../test-support/admin-under-test';
import { dayCharts } from './day-charts';
import FakeUPlot from '../test-support/fake-uplot';
import { intervalCharts } from './interval-charts';
import {
  CHART_HEIGHT,
  TimeCharts,
  chartData,
  chartOptions,
  dayLabel,
  lonePoints,
} from './time-charts';

vi.mock('uplot', () => import('../test-support/fake-uplot'));

const DAY = 86_400;
const utcDay = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

function figures(offered: number, answered: number, serviceLevel: number | null) {
  return {
    offered,
    answered,
    missed: offered - answered,
    abandoned: 0,
    answer_rate: offered === 0 ? null : answered / offered,
    average_speed_of_answer_seconds: null,
    average_handle_seconds: null,
    service_level: serviceLevel,
    talk_seconds: 0,
  };
}

function summary(from: string, to: string, byDay: ReportSummary['by_day']): ReportSummary {
  return {
    time_zone: 'America/New_York',
    from,
    to,
    service_level_seconds: 20,
    by_day: byDay,
    by_team: [],
    by_profile: [],
    by_agent: [],
    by_disposition: [],
    by_tag: [],
  };
}

/** The ResizeObservers made, each with its callback and the elements it watches. */
let observers: Array<{ callback: () => void; watched: Element[]; disconnected: boolean }> = [];

beforeEach(() => {
  FakeUPlot.reset();
  observers = [];
  vi.stubGlobal(
    'ResizeObserver',
    class {
      readonly entry: (typeof observers)[number];
      constructor(callback: () => void) {
        this.entry = { callback, watched: [], disconnected: false };
        observers.push(this.entry);
      }
      observe(element: Element) {
        this.entry.watched.push(element);
      }
      disconnect() {
        this.entry.disconnected = true;
      }
    },
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('dayCharts', () => {
  it('has every day of the range, a day without calls none offered and no rate', () => {
    const { axis, charts } = dayCharts(
      summary('2026-01-04', '2026-01-07', [
        { day: '2026-01-05', ...figures(2, 2, 0.5) },
        { day: '2026-01-06', ...figures(2, 0, 0) },
      ]),
    );
    expect(axis).toEqual({
      label: 'Day',
      unit: 'day',
      timeZone: 'America/New_York',
      xs: ['2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07'].map(utcDay),
    });
    const [calls, rates] = charts;
    expect(calls?.title).toBe('Calls by day');
    expect(calls?.kind).toBe('count');
    expect(calls?.lines.map((line) => [line.label, line.values])).toEqual([
      ['Offered', [0, 2, 2, 0]],
      ['Answered', [0, 2, 0, 0]],
      ['Missed', [0, 0, 2, 0]],
    ]);
    expect(rates?.title).toBe('Answer rate and service level by day');
    expect(rates?.kind).toBe('percent');
    expect(rates?.lines.map((line) => [line.label, line.values])).toEqual([
      ['Answer rate', [null, 100, 0, null]],
      ['Service level (20 s)', [null, 50, 0, null]],
    ]);
    // Told apart by more than colour.
    expect(rates?.lines[0]?.dash).toBeDefined();
    expect(rates?.lines[1]?.dash).toBeUndefined();
  });

  it('gives every day the same width, over a change of clocks too', () => {
    // 8 March 2026: New York's clocks go forward (a day of 23 hours there).
    const { axis } = dayCharts(summary('2026-03-07', '2026-03-09', []));
    expect(axis.xs.slice(1).map((x, i) => x - axis.xs[i]!)).toEqual([DAY, DAY]);
  });

  it('has the one day of a one-day range', () => {
    const { axis, charts } = dayCharts(
      summary('2026-01-05', '2026-01-05', [{ day: '2026-01-05', ...figures(3, 2, 1) }]),
    );
    expect(axis.xs).toEqual([utcDay('2026-01-05')]);
    expect(charts[0]?.lines[0]?.values).toEqual([3]);
  });
});

describe('intervalCharts', () => {
  it('draws today’s intervals in the account’s zone, the counts as steps', () => {
    const intervals: FloorInterval[] = [
      {
        start: '2026-11-27T14:45:00.000Z',
        offered: 2,
        answered: 1,
        missed: 1,
        abandoned: 0,
        service_level: 0.5,
      },
      {
        start: '2026-11-27T15:00:00.000Z',
        offered: 0,
        answered: 0,
        missed: 0,
        abandoned: 0,
        service_level: null,
      },
    ];
    const { axis, charts } = intervalCharts(intervals, 'America/New_York');
    expect(axis).toEqual({
      label: 'Time',
      unit: 'time',
      timeZone: 'America/New_York',
      period: 900,
      xs: intervals.map((i) => Date.parse(i.start) / 1000),
    });
    const [calls, level] = charts;
    expect(calls?.lines.map((line) => [line.label, line.values, line.stepped])).toEqual([
      ['Offered', [2, 0], true],
      ['Answered', [1, 0], true],
      ['Missed', [1, 0], true],
    ]);
    expect(level?.lines.map((line) => [line.label, line.values])).toEqual([
      ['Service level', [50, null]],
    ]);
  });
});

describe('chartOptions', () => {
  const days = dayCharts(
    summary('2026-01-04', '2026-01-06', [{ day: '2026-01-05', ...figures(7, 5, 2 / 3) }]),
  );
  const [callsByDay, ratesByDay] = days.charts;

  it('labels the axes, and shows a report’s days as the days they are', () => {
    const options = chartOptions(callsByDay!, days.axis, 500);
    expect(options).toMatchObject({ title: 'Calls by day', width: 500, height: CHART_HEIGHT });
    const [x, y] = options.axes as [Axis, Axis];
    expect(x.label).toBe('Day');
    expect(y.label).toBe('Calls');
    // Half a day either side of the first and last days.
    expect(options.scales?.x).toEqual({
      time: true,
      range: [utcDay('2026-01-04') - DAY / 2, utcDay('2026-01-06') + DAY / 2],
    });
    // Ticks a whole number of days apart, each written as its day.
    expect((x.incrs as number[]).every((step) => step % DAY === 0)).toBe(true);
    const values = x.values as (...args: unknown[]) => string[];
    const splits = [utcDay('2026-01-04'), utcDay('2026-01-05')];
    expect(values(null, splits, 0, 50, DAY)).toEqual(splits.map((s) => dayLabel(s)));
    // The days are the account's already: drawn as they are, in UTC.
    const tzDate = vi.spyOn(FakeUPlot, 'tzDate');
    options.tzDate?.(utcDay('2026-01-05'));
    expect(tzDate).toHaveBeenLastCalledWith(expect.any(Date), 'UTC');
  });

  it('writes a day, or a month once the ticks are a month apart', () => {
    expect(dayLabel(utcDay('2026-01-05'), DAY, 'en-US')).toBe('Jan 5');
    expect(dayLabel(utcDay('2026-02-01'), 30 * DAY, 'en-US')).toBe('Feb 2026');
  });

  it('counts from zero in whole calls', () => {
    const options = chartOptions(callsByDay!, days.axis, 500);
    const range = (options.scales?.y as Scale).range as (...args: unknown[]) => number[];
    expect(range(null, 0, 0, 'y')).toEqual([0, 1]);
    expect(range(null, 0, 7, 'y')).toEqual([0, 7]);
    const [, y] = options.axes as [Axis, Axis];
    expect((y.incrs as number[]).every(Number.isInteger)).toBe(true);
    expect(chartData(callsByDay!, days.axis)).toEqual([
      days.axis.xs,
      [0, 7, 0],
      [0, 5, 0],
      [0, 2, 0],
    ]);
  });

  it('draws shares from 0 to 100 %, the legend in whole percentages', () => {
    const options = chartOptions(ratesByDay!, days.axis, 500);
    expect(options.scales?.y).toEqual({ range: [0, 100] });
    const [, answerRate, serviceLevel] = options.series;
    const legend = (series: Series | undefined, value: number | null) =>
      (series?.value as (...args: unknown[]) => string)(null, value, 1, 0);
    expect(legend(serviceLevel, (2 / 3) * 100)).toBe('67 %');
    expect(legend(serviceLevel, null)).toBe('–');
    expect(answerRate?.dash).toEqual([6, 4]);
    expect(answerRate?.spanGaps).toBe(true);
  });

  it('shows the floor’s times in the account’s zone, to the end of the last interval', () => {
    const start = Date.parse('2026-11-27T02:00:00Z') / 1000; // 07:30 in Kolkata
    const floor = intervalCharts(
      [0, 900].map((offset) => ({
        start: new Date((start + offset) * 1000).toISOString(),
        offered: 1,
        answered: 1,
        missed: 0,
        abandoned: 0,
        service_level: 1,
      })),
      'Asia/Kolkata',
    );
    const options = chartOptions(floor.charts[0]!, floor.axis, 300);
    const tzDate = vi.spyOn(FakeUPlot, 'tzDate');
    options.tzDate?.(0);
    expect(tzDate).toHaveBeenLastCalledWith(expect.any(Date), 'Asia/Kolkata');
    expect(options.scales?.x).toEqual({ time: true, range: [start, start + 1800] });
    const [x, y] = options.axes as [Axis, Axis];
    expect(y.label).toBe('Calls');
    const values = x.values as (...args: unknown[]) => string[];
    expect(values(null, [start, start + 3600], 0, 50, 3600)).toEqual(['07:30', '08:30']);
    // The counts as steps held to the end of the last interval, without points.
    const [time, offered] = options.series;
    expect(offered?.paths).toEqual({ stepped: { align: 1, extend: true } });
    expect(offered?.points).toEqual({ show: false });
    // The legend says which interval the cursor is on.
    const legend = time?.value as (...args: unknown[]) => string;
    expect(legend(null, start + 900, 0, 1)).toBe('07:45–08:00');
    expect(chartOptions(floor.charts[1]!, floor.axis, 300).axes?.[1]?.label).toBe('Percent');
  });

  it('marks a lone value of a line, which has no line to it', () => {
    const plot = (values: Array<number | null>) =>
      ({ data: [values.map((_, i) => i), values] }) as unknown as FakeUPlot & uPlot;
    expect(lonePoints(plot([null, 50, null, null]), 1, false)).toEqual([1]);
    expect(lonePoints(plot([null, 50, null, 70]), 1, false)).toBeNull();
    // uPlot marks every point itself where there is room.
    expect(lonePoints(plot([null, 50, null, null]), 1, true)).toBeNull();
    const options = chartOptions(ratesByDay!, days.axis, 500);
    expect((options.series?.[2] as Series).points).toEqual({ filter: lonePoints });
  });
});

describe('TimeCharts', () => {
  it('is one named image, a chart in each box, following their width', async () => {
    const { axis, charts } = dayCharts(
      summary('2026-01-04', '2026-01-06', [{ day: '2026-01-05', ...figures(4, 3, 0.5) }]),
    );
    const view = render(
      <TimeCharts label="Chart of the calls by day" axis={axis} charts={charts} />,
    );
    const image = screen.getByRole('img', { name: 'Chart of the calls by day' });
    const boxes = [...image.querySelectorAll<HTMLElement>('[data-chart]')];
    expect(boxes.map((box) => box.dataset.chart)).toEqual(['calls-by-day', 'rates-by-day']);
    expect(FakeUPlot.made.map((chart) => [chart.target, chart.options.title])).toEqual([
      [boxes[0], 'Calls by day'],
      [boxes[1], 'Answer rate and service level by day'],
    ]);
    expect(FakeUPlot.made[1]?.data).toEqual(chartData(charts[1]!, axis));
    // A box without a width yet (a test DOM lays nothing out) still gets a readable chart.
    expect(FakeUPlot.made.map((chart) => chart.width)).toEqual([200, 200]);
    await expectNoAxeViolations(view.container);

    const [observer] = observers;
    expect(observer?.watched).toEqual(boxes);
    for (const [i, width] of [640, 310].entries()) {
      Object.defineProperty(boxes[i], 'clientWidth', { configurable: true, value: width });
    }
    act(() => observer?.callback());
    expect(FakeUPlot.made.map((chart) => chart.width)).toEqual([640, 310]);

    view.unmount();
    expect(FakeUPlot.made.every((chart) => chart.destroyed)).toBe(true);
    expect(observer?.disconnected).toBe(true);
  });
});
