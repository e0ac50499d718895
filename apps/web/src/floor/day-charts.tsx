/**
 * The Reports screen's charts (issue 39): the range by day, its calls (offered, answered,
 * missed) and its answer rate and service level, every day of the range (a day without calls is
 * none offered, with no rate). The days are the account's (`GET /api/v1/reports/summary`); the
 * By day table beside the charts has their figures. Drawn by `time-charts.tsx`, loaded on its
 * own (`lazy-charts.tsx`).
 */
import type { ReportSummary } from '@leadline/contracts';
import { useMemo } from 'react';
import { CHART_COLOURS, TimeCharts, type ChartSpec, type TimeAxis } from './time-charts';

/** Props of {@link DayCharts}. */
export interface DayChartsProps {
  readonly summary: ReportSummary;
}

const DAY_MS = 86_400_000;

/** A calendar day `YYYY-MM-DD` as its midnight UTC, in milliseconds. */
const midnightUtc = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** A share (0…1) as a percentage, or null. */
const percentOf = (share: number | null) => (share === null ? null : share * 100);

/** The charts of a report's range: one x per day from `from` to `to`, and the two charts. */
export function dayCharts(summary: ReportSummary): { axis: TimeAxis; charts: ChartSpec[] } {
  const byDay = new Map(summary.by_day.map((row) => [row.day, row]));
  const first = midnightUtc(summary.from);
  const last = midnightUtc(summary.to);
  const xs: number[] = [];
  const rows: Array<ReportSummary['by_day'][number] | undefined> = [];
  for (let at = first; at <= last; at += DAY_MS) {
    xs.push(at / 1000);
    rows.push(byDay.get(new Date(at).toISOString().slice(0, 10)));
  }
  const count = (of: (row: ReportSummary['by_day'][number]) => number) =>
    rows.map((row) => (row ? of(row) : 0));
  const share = (of: (row: ReportSummary['by_day'][number]) => number | null) =>
    rows.map((row) => (row ? percentOf(of(row)) : null));
  return {
    axis: { label: 'Day', unit: 'day', timeZone: summary.time_zone, xs },
    charts: [
      {
        name: 'calls-by-day',
        title: 'Calls by day',
        yLabel: 'Calls',
        kind: 'count',
        lines: [
          {
            label: 'Offered',
            stroke: CHART_COLOURS.offered,
            fill: CHART_COLOURS.offeredFill,
            values: count((r) => r.offered),
          },
          { label: 'Answered', stroke: CHART_COLOURS.answered, values: count((r) => r.answered) },
          { label: 'Missed', stroke: CHART_COLOURS.missed, values: count((r) => r.missed) },
        ],
      },
      {
        name: 'rates-by-day',
        title: 'Answer rate and service level by day',
        yLabel: 'Percent',
        kind: 'percent',
        lines: [
          {
            label: 'Answer rate',
            stroke: CHART_COLOURS.answered,
            values: share((r) => r.answer_rate),
            dash: [6, 4],
          },
          {
            label: `Service level (${summary.service_level_seconds} s)`,
            stroke: CHART_COLOURS.serviceLevel,
            values: share((r) => r.service_level),
          },
        ],
      },
    ],
  };
}

/** See the module comment. */
export function DayCharts({ summary }: DayChartsProps) {
  const { axis, charts } = useMemo(() => dayCharts(summary), [summary]);
  return (
    <TimeCharts
      label="Chart of the calls by day and the answer rate and service level by day; the table By day has its figures."
      axis={axis}
      charts={charts}
    />
  );
}
