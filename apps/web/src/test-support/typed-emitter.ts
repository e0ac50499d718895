/** Listener signatures by event name, e.g. `{ mute: (muted: boolean) => void }`. */
export type EventMap<Events> = { [E in keyof Events]: (...args: never[]) => void };

/** A small event emitter typed by an event map (used by the phone fakes). */
export class TypedEmitter<Events extends EventMap<Events>> {
  readonly #listeners = new Map<keyof Events, Set<Events[keyof Events]>>();

  /** Adds a listener. */
  on<E extends keyof Events>(event: E, listener: Events[E]): void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
  }

  /** Removes a listener. */
  off<E extends keyof Events>(event: E, listener: Events[E]): void {
    this.#listeners.get(event)?.delete(listener);
  }

  /** Calls every listener of `event` with `args`, in the order they were added. */
  emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      (listener as (...params: Parameters<Events[E]>) => void)(...args);
    }
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof Events): number {
    return this.#listeners.get(event)?.size ?? 0;
  }
}
