/**
 * The order of the Twilio provider's work, per Leadline call: its database writes run one after
 * another, and so do its REST commands (a remove never overtakes its create). The commands, the
 * callbacks and the sweeper of one instance share one {@link TwilioCallQueues}: a callback reads
 * after the writes this instance issued for its call, and `idle` waits for everything.
 */

/** Where a failed task is told. */
export interface TwilioCallQueuesLog {
  warn(details: object, message: string): void;
}

/** Each call's writes and REST commands, each run in the order issued. */
export class TwilioCallQueues {
  readonly #log: TwilioCallQueuesLog;
  /** Each call's writes, in order: a callback handled here reads after them. */
  readonly #writes = new Map<string, Promise<unknown>>();
  /** Each call's REST commands, in order: a remove never overtakes its create. */
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(log: TwilioCallQueuesLog) {
    this.#log = log;
  }

  /** Runs a database write after the call's earlier writes. */
  write<T>(callSid: string, write: () => Promise<T>): Promise<T> {
    return this.#chain(this.#writes, callSid, write);
  }

  /** Runs a REST `command` after the call's earlier commands. */
  run<T>(callSid: string, command: () => Promise<T>): Promise<T> {
    return this.#chain(this.#chains, callSid, command);
  }

  /** The call's writes issued so far, settled (undefined when none is in flight). */
  written(callSid: string): Promise<unknown> | undefined {
    return this.#writes.get(callSid);
  }

  /** Every call's writes issued so far, settled. */
  allWritten(): Promise<unknown[]> {
    return Promise.all(this.#writes.values());
  }

  /** Resolves once every write and command issued here so far is done (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.#writes.values(), ...this.#chains.values()];
      if (pending.length === 0) return;
      await Promise.all(pending);
      if ([...this.#writes.values(), ...this.#chains.values()].every((p) => pending.includes(p))) {
        return;
      }
    }
  }

  #chain<T>(chains: Map<string, Promise<unknown>>, callSid: string, task: () => Promise<T>) {
    const previous = chains.get(callSid) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      (error: unknown) => this.#log.warn({ err: error, callSid }, 'Twilio provider failed'),
    );
    chains.set(callSid, settled);
    // Forgotten once the call has nothing more in flight.
    void settled.then(() => {
      if (chains.get(callSid) === settled) chains.delete(callSid);
    });
    return next;
  }
}
