/**
 * Runs async tasks one after another per key (e.g. per call), so events of one call never
 * interleave while different calls proceed in parallel.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (error: unknown, key: string) => void) {}

  /** Queues `task` behind the earlier tasks of `key`; resolves when it has run. */
  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(task).catch((error: unknown) => this.onError(error, key));
    this.#tails.set(key, next);
    void next.finally(() => {
      if (this.#tails.get(key) === next) this.#tails.delete(key);
    });
    return next;
  }

  /** Resolves when every queued task has run. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }
}
