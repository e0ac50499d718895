// The drain loop's table, checked over every phase × event against the rules in its doc comment,
// and the indicator's state for every phase.
import { StateMachine } from '@leadline/contracts/lib';
import { describe, expect, it } from 'vitest';
import {
  OUTBOX_PHASES,
  OUTBOX_TRANSITIONS,
  OutboxTransitionError,
  displayState,
  type OutboxPhase,
  type OutboxPhaseEvent,
} from './outbox-lifecycle';

const EVENTS: readonly OutboxPhaseEvent[] = [
  'start',
  'stop',
  'wake',
  'drained',
  'backOff',
  'wentOffline',
];

/** The rules, as the module's doc states them. */
function expectedNext(phase: OutboxPhase, event: OutboxPhaseEvent): OutboxPhase | undefined {
  switch (event) {
    case 'start':
      return phase === 'stopped' ? 'idle' : undefined;
    case 'stop':
      return phase === 'stopped' ? undefined : 'stopped';
    case 'wake':
      return phase === 'idle' || phase === 'backingOff' || phase === 'offline'
        ? 'sending'
        : undefined;
    case 'drained':
      return phase === 'sending' ? 'idle' : undefined;
    case 'backOff':
      return phase === 'sending' ? 'backingOff' : undefined;
    case 'wentOffline':
      return phase === 'sending' || phase === 'backingOff' ? 'offline' : undefined;
  }
}

function machineIn(phase: OutboxPhase) {
  return new StateMachine<OutboxPhase, OutboxPhaseEvent>(
    'Outbox',
    OUTBOX_TRANSITIONS,
    phase,
    (_machine, state, event) => new OutboxTransitionError(state, event),
  );
}

describe('OUTBOX_TRANSITIONS', () => {
  it('has the five phases', () => {
    expect([...OUTBOX_PHASES].sort()).toEqual(
      ['backingOff', 'idle', 'offline', 'sending', 'stopped'].sort(),
    );
  });

  const cases = OUTBOX_PHASES.flatMap((phase) =>
    EVENTS.map((event) => [phase, event, expectedNext(phase, event)] as const),
  );

  it.each(cases)('%s + %s → %s', (phase, event, next) => {
    const machine = machineIn(phase);
    if (next === undefined) {
      expect(() => machine.send(event)).toThrow(OutboxTransitionError);
      expect(machine.state).toBe(phase);
    } else {
      expect(machine.send(event)).toBe(next);
    }
  });

  it('names the phase and event in the error, with the console’s code', () => {
    const error = new OutboxTransitionError('stopped', 'wake');
    expect(error.toString()).toBe(
      'IllegalTransitionError (9001): The outbox cannot handle "wake" in the "stopped" phase.',
    );
  });
});

describe('displayState', () => {
  it.each([
    ['stopped', 3, 'done', 'idle'],
    ['idle', 0, null, 'idle'],
    ['idle', 0, 'refused', 'idle'],
    ['idle', 0, 'done', 'saved'],
    ['idle', 2, 'done', 'saving'],
    ['sending', 1, null, 'saving'],
    ['sending', 0, null, 'idle'],
    ['sending', 0, 'done', 'saved'],
    ['backingOff', 1, 'done', 'waiting'],
    ['offline', 1, null, 'waiting'],
    ['offline', 0, null, 'waiting'],
  ] as const)('%s with %i pending, last %s → %s', (phase, pending, last, expected) => {
    expect(displayState(phase, pending, last)).toBe(expected);
  });
});
