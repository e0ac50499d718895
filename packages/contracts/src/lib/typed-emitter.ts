/** Where a failing listener is reported: the host's console unless told otherwise. */
export type ListenerErrorReporter = (error: unknown, event: string) => void;

const reportToConsole: ListenerErrorReporter = (error, event) => {
  (globalThis as { console?: { error(...args: unknown[]): void } }).console?.error(
    `listener of '${event}' failed`,
    error,
  );
};

/** A minimal typed event emitter over a map of event name → listener arguments. */
export class TypedEmitter<Events extends Record<string, unknown[]>> {
  readonly #listeners = new Map<keyof Events, Set<unknown>>();

  constructor(private readonly reportListenerError: ListenerErrorReporter = reportToConsole) {}

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => this.off(event, listener);
  }

  /** Adds a listener called at most once. */
  once<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    const off = this.on(event, (...args) => {
      off();
      listener(...args);
    });
    return off;
  }

  /** Removes a listener. */
  off<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): void {
    this.#listeners.get(event)?.delete(listener);
  }

  /** Removes every listener of `event`, or of every event. */
  removeAllListeners(event?: keyof Events): void {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#listeners.get(event)?.size ?? 0;
  }

  /** Calls every listener of `event`; a throwing listener does not stop the others. */
  protected emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        (listener as (...a: Events[K]) => void)(...args);
      } catch (error) {
        this.reportListenerError(error, String(event));
      }
    }
  }
}
