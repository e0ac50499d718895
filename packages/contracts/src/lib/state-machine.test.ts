import { describe, expect, it } from 'vitest';
import {
  IllegalTransitionError,
  StateMachine,
  statesOf,
  type TransitionTable,
} from './state-machine';

type S = 'idle' | 'busy' | 'done';
type E = 'start' | 'finish';
const TABLE: TransitionTable<S, E> = {
  idle: { start: 'busy' },
  busy: { finish: 'done' },
  done: {},
};

describe('StateMachine', () => {
  it('derives the states from the table', () => {
    expect(statesOf(TABLE)).toEqual(['idle', 'busy', 'done']);
  });

  it('moves through allowed transitions and refuses the others', () => {
    const m = new StateMachine('job', TABLE, 'idle');
    expect(m.can('finish')).toBe(false);
    expect(() => m.send('finish')).toThrow(new IllegalTransitionError('job', 'idle', 'finish'));
    expect(m.state).toBe('idle');
    expect(m.send('start')).toBe('busy');
    expect(m.trySend('start')).toBe(false);
    expect(m.trySend('finish')).toBe(true);
    expect(m.state).toBe('done');
  });

  it("throws the side's own error when given a factory", () => {
    class CodedError extends Error {}
    const m = new StateMachine(
      'job',
      TABLE,
      'done',
      (machine, state, event) => new CodedError(`${machine} ${state} ${event}`),
    );
    expect(() => m.send('start')).toThrow(new CodedError('job done start'));
  });
});
