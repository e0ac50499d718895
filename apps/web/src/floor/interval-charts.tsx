/**
 * The floor's charts (issue 39): today by 15 minutes (offered, answered, missed) and the service
 * level through the day, in the account's time zone (`time-charts.tsx` draws them). The interval
 * table beside them (`floor-area.tsx`) has their figures. Loaded on its own (`lazy-charts.tsx`).
 */
import type { FloorInterval } from '@leadline/contracts';
import { useMemo } from 'react';
import { CHART_COLOURS, TimeCharts, type ChartSpec, type TimeAxis } from './time-charts';

/** Props of {@link IntervalCharts}. */
export interface IntervalChartsProps {
  readonly intervals: readonly FloorInterval[];
  readonly timeZone: string;
}

/** The charts of today's intervals: their time axis and the two charts. */
export function intervalCharts(
  intervals: readonly FloorInterval[],
  timeZone: string,
): { axis: TimeAxis; charts: ChartSpec[] } {
  const axis: TimeAxis = {
    label: 'Time',
    unit: 'time',
    timeZone,
    period: 15 * 60,
    // Each interval's start, seconds since the epoch.
    xs: intervals.map((interval) => Date.parse(interval.start) / 1000),
  };
  return {
    axis,
    charts: [
      {
        name: 'calls',
        title: 'Calls by 15 minutes',
        yLabel: 'Calls',
        kind: 'count',
        // Steps: each count holds over its interval, from its start to the next.
        lines: [
          {
            label: 'Offered',
            stroke: CHART_COLOURS.offered,
            fill: CHART_COLOURS.offeredFill,
            values: intervals.map((i) => i.offered),
            stepped: true,
          },
          {
            label: 'Answered',
            stroke: CHART_COLOURS.answered,
            values: intervals.map((i) => i.answered),
            stepped: true,
          },
          {
            label: 'Missed',
            stroke: CHART_COLOURS.missed,
            values: intervals.map((i) => i.missed),
            stepped: true,
          },
        ],
      },
      {
        name: 'service-level',
        title: 'Service level through the day',
        yLabel: 'Percent',
        kind: 'percent',
        lines: [
          {
            label: 'Service level',
            stroke: CHART_COLOURS.serviceLevel,
            values: intervals.map((i) => (i.service_level === null ? null : i.service_level * 100)),
          },
        ],
      },
    ],
  };
}

/** See the module comment. */
export function IntervalCharts({ intervals, timeZone }: IntervalChartsProps) {
  const { axis, charts } = useMemo(
    () => intervalCharts(intervals, timeZone),
    [intervals, timeZone],
  );
  return (
    <TimeCharts
      label="Chart of today’s calls by 15 minutes and the service level through the day; the table By 15 minutes has its figures."
      axis={axis}
      charts={charts}
    />
  );
}
