import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, StateMachine, statesOf } from '@leadline/contracts/lib';
import { DEVICE_TABLE, type DeviceState, type DeviceTransition } from './device-states';

const EVENTS: DeviceTransition[] = ['register', 'ready', 'offline', 'destroy'];

// The spec's rules (section 4), written out: register only from unregistered; nothing after
// destroy; the gateway's `ready`/`offline` move registration.
const EXPECTED: Record<DeviceState, Partial<Record<DeviceTransition, DeviceState>>> = {
  unregistered: { register: 'registering', offline: 'unregistered', destroy: 'destroyed' },
  registering: { ready: 'registered', offline: 'unregistered', destroy: 'destroyed' },
  registered: { ready: 'registered', offline: 'unregistered', destroy: 'destroyed' },
  destroyed: {},
};

describe('device state table', () => {
  it('has exactly the spec states', () => {
    expect(statesOf(DEVICE_TABLE)).toEqual([
      'unregistered',
      'registering',
      'registered',
      'destroyed',
    ]);
  });
  for (const state of statesOf(DEVICE_TABLE)) {
    for (const event of EVENTS) {
      const next = EXPECTED[state][event];
      it(`${state} --${event}--> ${next ?? 'refused'}`, () => {
        const machine = new StateMachine('device', DEVICE_TABLE, state);
        if (next) expect(machine.send(event)).toBe(next);
        else expect(() => machine.send(event)).toThrow(IllegalTransitionError);
      });
    }
  }
});
