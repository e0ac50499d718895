import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, StateMachine } from '@leadline/contracts/lib';
import { CALL_TABLE, type CallState, type CallTransition } from './call-states';

const STATES = Object.keys(CALL_TABLE) as CallState[];
const EVENTS: CallTransition[] = [
  'accept',
  'reject',
  'ignore',
  'cancel',
  'ringing',
  'open',
  'interrupted',
  'restored',
  'disconnect',
  'hangup',
  'fail',
];

// The spec's rules (section 4), written out as the expected table.
const EXPECTED: Record<CallState, Partial<Record<CallTransition, CallState>>> = {
  pending: {
    accept: 'connecting',
    reject: 'closed',
    ignore: 'closed',
    cancel: 'closed',
    hangup: 'closed',
    fail: 'closed',
  },
  connecting: {
    ringing: 'ringing',
    open: 'open',
    disconnect: 'closed',
    hangup: 'closed',
    fail: 'closed',
  },
  ringing: {
    ringing: 'ringing',
    open: 'open',
    disconnect: 'closed',
    hangup: 'closed',
    fail: 'closed',
  },
  open: { interrupted: 'reconnecting', disconnect: 'closed', hangup: 'closed', fail: 'closed' },
  reconnecting: { restored: 'open', disconnect: 'closed', hangup: 'closed', fail: 'closed' },
  closed: {},
};

describe('call state table', () => {
  for (const state of STATES) {
    for (const event of EVENTS) {
      const next = EXPECTED[state][event];
      it(`${state} --${event}--> ${next ?? 'refused'}`, () => {
        const machine = new StateMachine('call', CALL_TABLE, state);
        if (next) expect(machine.send(event)).toBe(next);
        else expect(() => machine.send(event)).toThrow(IllegalTransitionError);
      });
    }
  }
});
