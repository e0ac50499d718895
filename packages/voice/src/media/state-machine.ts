import { MediaError } from './media-errors';

/**
 * A lifecycle as data: for each state, the events it accepts and the state each leads to.
 * States without entries are final.
 */
export type TransitionTable<S extends string, E extends string> = Readonly<
  Record<S, Readonly<Partial<Record<E, S>>>>
>;

/** The states of a transition table, derived from it. */
export function statesOf<S extends string, E extends string>(table: TransitionTable<S, E>): S[] {
  return Object.keys(table) as S[];
}

/**
 * One lifecycle value driven by a {@link TransitionTable}. It does no I/O: callers send events
 * and act on the state they get back. An event the current state does not accept throws a
 * `MediaError` named `IllegalTransition`.
 */
export class StateMachine<S extends string, E extends string> {
  private current: S;

  /** Starts `what` (named in errors) in `initial`. */
  constructor(
    private readonly what: string,
    private readonly table: TransitionTable<S, E>,
    initial: S,
  ) {
    this.current = initial;
  }

  /** The current state. */
  get state(): S {
    return this.current;
  }

  /** Whether the current state accepts `event`. */
  can(event: E): boolean {
    return this.table[this.current][event] !== undefined;
  }

  /** Applies `event` and returns the new state; throws `IllegalTransition` if it is not accepted. */
  send(event: E): S {
    const next = this.table[this.current][event];
    if (next === undefined) {
      throw new MediaError(
        'IllegalTransition',
        `${this.what} cannot ${event} when ${this.current}`,
      );
    }
    this.current = next;
    return next;
  }

  /** Applies `event` if the current state accepts it; returns whether it did. */
  trySend(event: E): boolean {
    if (!this.can(event)) return false;
    this.send(event);
    return true;
  }
}
