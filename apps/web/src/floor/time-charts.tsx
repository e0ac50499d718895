/**
 * The floor's and the reports' charts (issue 39), drawn with uPlot (a small canvas charting
 * library): one or more line charts over the same time axis, each titled, with labelled axes
 * and a legend, sized to their container and following it (a rotated phone, a resized window).
 *
 * Each chart set is one image with an accessible name (`label`); its figures are in a table
 * beside it, the screen readers' alternative. Loaded on its own, only where the browser can draw
 * (`lazy-charts.tsx`): uPlot needs `matchMedia` and a 2D canvas, which a test DOM lacks.
 */
import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Axis, type Options, type Scale, type Series } from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** The series' colours: each at least 3:1 against the white chart (WCAG 1.4.11). */
export const CHART_COLOURS = {
  offered: '#1f5fbf',
  answered: '#13773a',
  missed: '#b42318',
  /** The offered calls' area under their line (`offered`, faint). */
  offeredFill: 'rgba(31, 95, 191, 0.12)',
  serviceLevel: '#6d3fb0',
  /** Axes' values and labels: the console's muted text (--muted). */
  axis: '#52606f',
} as const;

/** One line of a chart. */
export interface ChartLine {
  readonly label: string;
  readonly stroke: string;
  /** One value per x (null: none, the line spans the gap). */
  readonly values: ReadonlyArray<number | null>;
  /** Drawn as steps from each x to the next (a count over an interval starting there). */
  readonly stepped?: boolean;
  /** A dash pattern (CSS pixels), to tell lines apart other than by colour. */
  readonly dash?: readonly number[];
  /** Filled down to zero in this colour (a total the other lines are parts of stays in view). */
  readonly fill?: string;
}

/** One chart of a set. */
export interface ChartSpec {
  /** Its element's `data-chart`. */
  readonly name: string;
  readonly title: string;
  /** The y axis's label. */
  readonly yLabel: string;
  /** Counts (from 0, whole ticks) or percentages (0 to 100). */
  readonly kind: 'count' | 'percent';
  readonly lines: readonly ChartLine[];
}

/** The x axis a set's charts share. */
export interface TimeAxis {
  readonly label: string;
  /** Seconds since the epoch, ascending. */
  readonly xs: readonly number[];
  /**
   * `time`: instants, shown in `timeZone` (the account's); `day`: calendar days already of the
   * account's zone, each at its midnight UTC (so shown in UTC, every day 24 hours long).
   */
  readonly unit: 'time' | 'day';
  readonly timeZone: string;
  /**
   * Of a `time` axis whose xs each start a period this long (seconds): the axis runs to the end
   * of the last period, and stepped lines hold their last value to there.
   */
  readonly period?: number;
}

/** Props of {@link TimeCharts}. */
export interface TimeChartsProps {
  /** The set's accessible name (say which table has its figures). */
  readonly label: string;
  readonly axis: TimeAxis;
  readonly charts: readonly ChartSpec[];
}

/** Each chart's height (CSS pixels), legend excluded. */
export const CHART_HEIGHT = 200;
/** The narrowest a chart is drawn (CSS pixels). */
const MIN_WIDTH = 200;

const DAY = 86_400;
/** Tick steps of a day axis: whole days, then months and years. */
const DAY_INCRS = [1, 2, 3, 4, 5, 7, 10, 15, 30, 60, 90, 120, 180, 365].map((d) => d * DAY);
/** Tick steps of a count axis: whole numbers. */
const COUNT_INCRS = [0, 1, 2, 3, 4, 5, 6].flatMap((e) => [1, 2, 5].map((m) => m * 10 ** e));

/** A calendar day's label (`Jan 5`; with the year once a step is a month or more: `Jan 2026`). */
export function dayLabel(seconds: number, stepSeconds = DAY, locale?: string): string {
  const options: Intl.DateTimeFormatOptions =
    stepSeconds >= 28 * DAY
      ? { month: 'short', year: 'numeric', timeZone: 'UTC' }
      : { month: 'short', day: 'numeric', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(locale, options).format(seconds * 1000);
}

/** A time of day in `timeZone`, as the floor's tables write it (`07:45`). */
function clockFormat(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  });
}

/**
 * The points of a line drawn only where a value has no line to it: a lone value (the others
 * none) would not show at all where there are too many xs for uPlot to mark each one.
 */
export function lonePoints(u: uPlot, seriesIdx: number, show: boolean): number[] | null {
  if (show) return null;
  const values = u.data[seriesIdx] ?? [];
  const present: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] != null) present.push(i);
  return present.length === 1 ? present : null;
}

/** The options of one chart of a set (pure: what uPlot is given). */
export function chartOptions(chart: ChartSpec, axis: TimeAxis, width: number): Options {
  const days = axis.unit === 'day';
  const zone = days ? 'UTC' : axis.timeZone;
  const first = axis.xs[0];
  const last = axis.xs.at(-1);
  const clock = clockFormat(zone);
  const x: Axis = { label: axis.label, stroke: CHART_COLOURS.axis };
  let xRange: Scale['range'];
  let xValue: (seconds: number) => string;
  if (days) {
    x.incrs = DAY_INCRS;
    x.values = (_u, splits, _axis, _space, step) => splits.map((s) => dayLabel(s, step));
    const weekday = new Intl.DateTimeFormat(undefined, {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
    xValue = (seconds) => weekday.format(seconds * 1000);
    // Half a day either side, so that the first and last days (or a lone one) show whole.
    if (first !== undefined && last !== undefined) xRange = [first - DAY / 2, last + DAY / 2];
  } else {
    x.values = (_u, splits) => splits.map((s) => clock.format(s * 1000));
    const { period } = axis;
    xValue = period
      ? (seconds) => `${clock.format(seconds * 1000)}–${clock.format((seconds + period) * 1000)}`
      : (seconds) => clock.format(seconds * 1000);
    if (period && first !== undefined && last !== undefined) xRange = [first, last + period];
  }
  const y: Axis = { label: chart.yLabel, stroke: CHART_COLOURS.axis };
  if (chart.kind === 'count') y.incrs = COUNT_INCRS;
  return {
    title: chart.title,
    width,
    height: CHART_HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
    scales: {
      x: xRange ? { time: true, range: xRange } : { time: true },
      y:
        chart.kind === 'percent'
          ? { range: [0, 100] }
          : { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [x, y],
    series: [
      {
        label: axis.label,
        value: (_u, seconds) => (seconds === null ? '–' : xValue(seconds)),
      },
      ...chart.lines.map((line): Series => ({
        label: line.label,
        stroke: line.stroke,
        width: 2,
        spanGaps: true,
        ...(line.dash ? { dash: [...line.dash] } : {}),
        ...(line.fill ? { fill: line.fill } : {}),
        // Steps: no points (each value is a level over its period); lines: a lone one marked.
        ...(line.stepped
          ? {
              paths: uPlot.paths.stepped?.({ align: 1, extend: Boolean(axis.period) }),
              points: { show: false },
            }
          : { points: { filter: lonePoints } }),
        value: (_u, v) =>
          v === null ? '–' : chart.kind === 'percent' ? `${Math.round(v)} %` : String(v),
      })),
    ],
  };
}

/** The data of one chart of a set. */
export function chartData(chart: ChartSpec, axis: TimeAxis): AlignedData {
  return [[...axis.xs], ...chart.lines.map((line) => [...line.values])];
}

/** See the module comment. */
export function TimeCharts({ label, axis, charts }: TimeChartsProps) {
  const setRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const set = setRef.current;
    if (!set) return;
    const boxes = [...set.querySelectorAll<HTMLElement>(':scope > [data-chart]')];
    const widthOf = (box: HTMLElement) => Math.max(MIN_WIDTH, box.clientWidth);
    const plots = charts.flatMap((chart, i) => {
      const box = boxes[i];
      return box
        ? [
            {
              box,
              plot: new uPlot(chartOptions(chart, axis, widthOf(box)), chartData(chart, axis), box),
            },
          ]
        : [];
    });
    // A canvas has the width it was made with: follow the container's.
    const resize = new ResizeObserver(() => {
      for (const { box, plot } of plots) {
        const width = widthOf(box);
        if (width !== plot.width) plot.setSize({ width, height: CHART_HEIGHT });
      }
    });
    for (const { box } of plots) resize.observe(box);
    return () => {
      resize.disconnect();
      for (const { plot } of plots) plot.destroy();
    };
  }, [axis, charts]);
  return (
    <div ref={setRef} className="floor-charts" role="img" aria-label={label}>
      {charts.map((chart) => (
        <div key={chart.name} className="floor-chart" data-chart={chart.name} />
      ))}
    </div>
  );
}
