/**
 * The floor's and the reports' charts, each loaded (with uPlot) on first use and only where the
 * browser can draw: uPlot needs `matchMedia` and a canvas. A test DOM has neither, and reads the
 * tables beside the charts instead.
 */
import { Suspense, lazy, type ReactNode } from 'react';

/** Today by 15 minutes (`interval-charts.tsx`). */
export const IntervalCharts = lazy(() =>
  import('./interval-charts').then((module) => ({ default: module.IntervalCharts })),
);

/** A report's range by day (`day-charts.tsx`). */
export const DayCharts = lazy(() =>
  import('./day-charts').then((module) => ({ default: module.DayCharts })),
);

/** Whether the browser can draw the charts. */
export const canDraw = (): boolean => typeof window.matchMedia === 'function';

/** `children` (the charts) where the browser can draw them, once loaded; elsewhere nothing. */
export function Drawable({ children }: { children: ReactNode }) {
  return canDraw() ? <Suspense fallback={null}>{children}</Suspense> : null;
}
