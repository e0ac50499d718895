/**
 * The console's error log (spec section 8: "errors are logged with a timestamp"; section 2:
 * Settings' Copy Error Logs, shown only when logs exist). Each line is `[ISO time] message`, by
 * the injected clock; the newest {@link ERROR_LOG_MAX_LINES} are kept. An external store: the
 * lines are an immutable array that changes identity on every write, so a view subscribed with
 * `useSyncExternalStore` (Settings, open or not) shows Copy Error Logs with the first line.
 */
import { ERROR_LOG_MAX_LINES } from '../constants';
import type { Clock, Logger } from '../platform/platform';

/** See the module comment. */
export class ErrorLog {
  readonly #clock: Clock;
  readonly #sink: Logger;
  readonly #maxLines: number;
  #lines: readonly string[] = [];
  readonly #listeners = new Set<() => void>();

  /** Lines are stamped by `clock` and also written to `sink` (the browser console). */
  constructor(clock: Clock, sink: Logger, maxLines = ERROR_LOG_MAX_LINES) {
    this.#clock = clock;
    this.#sink = sink;
    this.#maxLines = maxLines;
  }

  /** Appends `message` with the time; returns the line as written. */
  write(message: string): string {
    const line = `[${new Date(this.#clock.now()).toISOString()}] ${message}`;
    // Bounded: a shift-long session keeps the newest lines.
    this.#lines = [...this.#lines, line].slice(-this.#maxLines);
    this.#sink.error(line);
    for (const listener of [...this.#listeners]) listener();
    return line;
  }

  /** The lines, oldest first (the same array until the next write). */
  readonly getSnapshot = (): readonly string[] => this.#lines;

  /** Calls `listener` after each write; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
}
