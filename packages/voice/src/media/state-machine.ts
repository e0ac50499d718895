import { StateMachine, statesOf, type TransitionTable } from '@leadline/contracts/lib';
import { MediaError } from './media-errors';

export { statesOf, type TransitionTable };

/**
 * The shared transition-table machine (`@leadline/contracts/lib`) whose illegal transitions
 * throw the engine's coded `MediaError` named `IllegalTransition`.
 */
export class MediaStateMachine<S extends string, E extends string> extends StateMachine<S, E> {
  constructor(what: string, table: TransitionTable<S, E>, initial: S) {
    super(
      what,
      table,
      initial,
      (machine, state, event) =>
        new MediaError('IllegalTransition', `${machine} cannot ${event} when ${state}`),
    );
  }
}
