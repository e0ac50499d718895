/**
 * The floor's charts (issue 39), drawn with uPlot (a small canvas charting library): today by
 * 15 minutes (offered, answered, missed) and the service level through the day, both in the
 * account's time zone, with labelled axes. Screen readers get the interval table beside them
 * (`floor-area.tsx`), so the canvases are hidden from them.
 *
 * Loaded on its own (`FloorCharts` in floor-area.tsx) only where the browser can draw:
 * uPlot needs `matchMedia` and a 2D canvas, which a test DOM lacks.
 */
import type { FloorInterval } from '@leadline/contracts';
import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Props of {@link IntervalCharts}. */
export interface IntervalChartsProps {
  readonly intervals: readonly FloorInterval[];
  readonly timeZone: string;
}

const HEIGHT = 200;

/** The calls chart's series: label, colour. */
const CALL_SERIES: ReadonlyArray<[string, string]> = [
  ['Offered', '#1f5fbf'],
  ['Answered', '#13773a'],
  ['Missed', '#b42318'],
];

/** The x values: each interval's start, seconds since the epoch. */
const xsOf = (intervals: readonly FloorInterval[]) =>
  intervals.map((interval) => Date.parse(interval.start) / 1000);

/** See the module comment. */
export function IntervalCharts({ intervals, timeZone }: IntervalChartsProps) {
  const callsRef = useRef<HTMLDivElement>(null);
  const levelRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const callsEl = callsRef.current;
    const levelEl = levelRef.current;
    if (!callsEl || !levelEl) return;
    const width = Math.max(240, callsEl.clientWidth);
    const xs = xsOf(intervals);
    const tzDate = (ts: number) => uPlot.tzDate(new Date(ts * 1000), timeZone);
    const time = { label: 'Time', stroke: '#52606f' };
    const calls: Options = {
      title: 'Calls by 15 minutes',
      width,
      height: HEIGHT,
      tzDate,
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [time, { label: 'Calls', stroke: '#52606f' }],
      series: [
        {},
        ...CALL_SERIES.map(([label, stroke]) => ({
          label,
          stroke,
          width: 2,
          paths: uPlot.paths.stepped?.({ align: 1 }),
        })),
      ],
    };
    const callsData: AlignedData = [
      xs,
      intervals.map((i) => i.offered),
      intervals.map((i) => i.answered),
      intervals.map((i) => i.missed),
    ];
    const level: Options = {
      title: 'Service level through the day',
      width,
      height: HEIGHT,
      tzDate,
      scales: { x: { time: true }, y: { range: [0, 100] } },
      axes: [time, { label: 'Answered in time (%)', stroke: '#52606f' }],
      series: [{}, { label: 'Service level', stroke: '#1f5fbf', width: 2, spanGaps: true }],
    };
    const levelData: AlignedData = [
      xs,
      intervals.map((i) => (i.service_level === null ? null : Math.round(i.service_level * 100))),
    ];
    const charts = [new uPlot(calls, callsData, callsEl), new uPlot(level, levelData, levelEl)];
    // A canvas has the width it was made with: follow the container's (a rotated phone, a
    // resized window).
    const resize = new ResizeObserver(() => {
      const next = Math.max(240, callsEl.clientWidth);
      for (const chart of charts) chart.setSize({ width: next, height: HEIGHT });
    });
    resize.observe(callsEl);
    return () => {
      resize.disconnect();
      for (const chart of charts) chart.destroy();
    };
  }, [intervals, timeZone]);
  return (
    <div className="floor-charts" aria-hidden="true">
      <div ref={callsRef} className="floor-chart" data-chart="calls" />
      <div ref={levelRef} className="floor-chart" data-chart="service-level" />
    </div>
  );
}
