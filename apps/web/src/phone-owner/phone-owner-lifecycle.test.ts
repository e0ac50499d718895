// The phone owner's table, checked over every state × event against the rules in its doc comment.
import { StateMachine } from '@leadline/contracts/lib';
import { describe, expect, it } from 'vitest';
import {
  ELSEWHERE_STATES,
  PHONE_OWNER_STATES,
  PHONE_OWNER_TRANSITIONS,
  PhoneOwnerTransitionError,
  type PhoneOwnerEvent,
  type PhoneOwnerState,
} from './phone-owner-lifecycle';

const EVENTS: readonly PhoneOwnerEvent[] = [
  'start',
  'granted',
  'denied',
  'takeOver',
  'lost',
  'stop',
];

/** The rules, as the module's doc states them. */
function expectedNext(state: PhoneOwnerState, event: PhoneOwnerEvent): PhoneOwnerState | undefined {
  switch (event) {
    case 'start':
      return state === 'stopped' ? 'electing' : undefined;
    case 'stop':
      return state === 'stopped' ? undefined : 'stopped';
    case 'granted':
      // The first election, a queued wait when the owner's tab closed, or a takeover.
      return state === 'electing' || state === 'follower' || state === 'takingOver'
        ? 'owner'
        : undefined;
    case 'denied':
      // Another tab holds the lock, or the steal failed.
      return state === 'electing' || state === 'takingOver' ? 'follower' : undefined;
    case 'takeOver':
      return state === 'follower' ? 'takingOver' : undefined;
    case 'lost':
      return state === 'owner' ? 'follower' : undefined;
  }
}

function machineIn(state: PhoneOwnerState) {
  return new StateMachine<PhoneOwnerState, PhoneOwnerEvent>(
    'PhoneOwner',
    PHONE_OWNER_TRANSITIONS,
    state,
    (_machine, from, event) => new PhoneOwnerTransitionError(from, event),
  );
}

describe('PHONE_OWNER_TRANSITIONS', () => {
  it('has the five states', () => {
    expect([...PHONE_OWNER_STATES].sort()).toEqual(
      ['electing', 'follower', 'owner', 'stopped', 'takingOver'].sort(),
    );
  });

  const cases = PHONE_OWNER_STATES.flatMap((state) =>
    EVENTS.map((event) => [state, event, expectedNext(state, event)] as const),
  );

  it.each(cases)('%s + %s → %s', (state, event, next) => {
    const machine = machineIn(state);
    if (next === undefined) {
      expect(() => machine.send(event)).toThrow(PhoneOwnerTransitionError);
      expect(machine.state).toBe(state);
    } else {
      expect(machine.send(event)).toBe(next);
    }
  });

  it('names the state and event in the error, with the console’s code', () => {
    expect(new PhoneOwnerTransitionError('owner', 'takeOver').toString()).toBe(
      'IllegalTransitionError (9001): The phone owner cannot handle "takeOver" in the "owner" state.',
    );
  });

  it('shows another tab’s phone while following or taking over, and only then', () => {
    expect(PHONE_OWNER_STATES.filter((state) => ELSEWHERE_STATES.has(state)).sort()).toEqual([
      'follower',
      'takingOver',
    ]);
  });
});
