/**
 * Runs async tasks one after another per key (e.g. per call), so events of one call never
 * interleave while different calls proceed in parallel. `around`, when given, wraps each task
 * when its turn comes (a lock of the key across processes, `cluster/call-locks.ts`).
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  constructor(
    private readonly onError: (error: unknown, key: string) => void,
    private readonly around?: (key: string, task: () => Promise<void>) => Promise<void>,
  ) {}

  /** Queues `task` behind the earlier tasks of `key`; resolves when it has run. */
  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const around = this.around;
    const turn = around ? () => around(key, task) : task;
    const next = previous.then(turn).catch((error: unknown) => this.onError(error, key));
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
