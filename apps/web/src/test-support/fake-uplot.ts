/**
 * A stand-in for uPlot in the unit tests (`vi.mock('uplot', () => import('./fake-uplot'))`): a
 * test DOM has no canvas to draw on. Each chart made is kept with what it was given, and writes
 * its title into its element as uPlot does.
 */
import type { AlignedData, Options } from 'uplot';

/** See the module comment. */
export default class FakeUPlot {
  /** Every chart made since the last {@link FakeUPlot.reset}. */
  static made: FakeUPlot[] = [];

  static reset(): void {
    FakeUPlot.made = [];
  }

  static tzDate(date: Date): Date {
    return date;
  }

  static readonly paths = {
    stepped: (options: { align: number }) => ({ stepped: options }),
  };

  width: number;
  destroyed = false;

  constructor(
    readonly options: Options,
    readonly data: AlignedData,
    readonly target: HTMLElement,
  ) {
    this.width = options.width;
    const title = document.createElement('div');
    title.className = 'u-title';
    title.textContent = options.title ?? '';
    target.append(title);
    FakeUPlot.made.push(this);
  }

  setSize(size: { width: number; height: number }): void {
    this.width = size.width;
  }

  destroy(): void {
    this.destroyed = true;
  }
}
