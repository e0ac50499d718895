import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '@leadline/contracts/lib';
import { CONNECTION_STATES, connectionMachine, type ConnectionEvent } from './connection-state';

// Written from the lifecycle in the module's doc comment: every state × event.
const EXPECTED: Record<string, Partial<Record<ConnectionEvent, string>>> = {
  open: { activity: 'open', idle: 'awaitingPong', close: 'closed' },
  awaitingPong: { activity: 'open', pongTimeout: 'closed', close: 'closed' },
  closed: {},
};
const EVENTS: ConnectionEvent[] = ['activity', 'idle', 'pongTimeout', 'close'];

function machineIn(state: string) {
  const machine = connectionMachine();
  if (state === 'awaitingPong') machine.send('idle');
  if (state === 'closed') machine.send('close');
  return machine;
}

describe('connection lifecycle', () => {
  it('has the documented states', () => expect(CONNECTION_STATES).toEqual(Object.keys(EXPECTED)));

  for (const state of Object.keys(EXPECTED)) {
    for (const event of EVENTS) {
      const next = EXPECTED[state]![event];
      it(`${state} + ${event} → ${next ?? 'illegal'}`, () => {
        const machine = machineIn(state);
        if (next === undefined) expect(() => machine.send(event)).toThrow(IllegalTransitionError);
        else expect(machine.send(event)).toBe(next);
      });
    }
  }
});
