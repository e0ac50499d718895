/**
 * A lifecycle as data: `state → event → next state`. The list of states is the table's keys;
 * an event a state does not list is illegal and throws `IllegalTransitionError`.
 */

/** A transition table: for each state, the events it accepts and where they lead. */
export type TransitionTable<S extends string, E extends string> = Record<S, Partial<Record<E, S>>>;

/** Thrown for an event the current state does not accept. */
export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  constructor(
    readonly machine: string,
    readonly state: string,
    readonly event: string,
  ) {
    super(`${machine}: '${event}' is not allowed in state '${state}'.`);
  }
}

/** One running instance of a table. */
export class StateMachine<S extends string, E extends string> {
  #state: S;

  constructor(
    private readonly name: string,
    private readonly table: TransitionTable<S, E>,
    initial: S,
  ) {
    this.#state = initial;
  }

  /** The current state. */
  get state(): S {
    return this.#state;
  }

  /** Whether `event` is allowed now. */
  can(event: E): boolean {
    return this.table[this.#state][event] !== undefined;
  }

  /** Applies `event`; returns the new state or throws `IllegalTransitionError`. */
  send(event: E): S {
    const next = this.table[this.#state][event];
    if (next === undefined) throw new IllegalTransitionError(this.name, this.#state, event);
    this.#state = next;
    return next;
  }
}
