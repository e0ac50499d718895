/**
 * A lifecycle as data: `state → event → next state`. The list of states is the table's keys;
 * an event a state does not list is illegal and throws (`IllegalTransitionError`, or the
 * error a side's own factory makes, e.g. a coded media error).
 */

/** A transition table: for each state, the events it accepts and where they lead. */
export type TransitionTable<S extends string, E extends string> = Readonly<
  Record<S, Readonly<Partial<Record<E, S>>>>
>;

/** The states of a transition table, derived from it. */
export function statesOf<S extends string, E extends string>(table: TransitionTable<S, E>): S[] {
  return Object.keys(table) as S[];
}

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

/** Makes the error an illegal transition throws. */
export type IllegalTransitionFactory = (machine: string, state: string, event: string) => Error;

const defaultIllegal: IllegalTransitionFactory = (machine, state, event) =>
  new IllegalTransitionError(machine, state, event);

/** One running instance of a table. It does no I/O: callers send events and act on the result. */
export class StateMachine<S extends string, E extends string> {
  #state: S;

  constructor(
    private readonly name: string,
    private readonly table: TransitionTable<S, E>,
    initial: S,
    private readonly illegal: IllegalTransitionFactory = defaultIllegal,
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

  /** Applies `event`; returns the new state or throws. */
  send(event: E): S {
    const next = this.table[this.#state][event];
    if (next === undefined) throw this.illegal(this.name, this.#state, event);
    this.#state = next;
    return next;
  }

  /** Applies `event` if the current state accepts it; returns whether it did. */
  trySend(event: E): boolean {
    if (!this.can(event)) return false;
    this.send(event);
    return true;
  }
}
