import { describe, expect, it, vi } from 'vitest';
import { IllegalTransitionError, StateMachine, statesOf } from '@leadline/contracts/lib';
import {
  PStreamClient,
  TRANSPORT_TABLE,
  type TransportEvent,
  type TransportState,
} from './pstream-client';
import { fakeEnvironment } from '../testing/fake-platform';

const EVENTS: TransportEvent[] = ['open', 'opened', 'dropped', 'retry', 'destroy'];
const EXPECTED: Record<TransportState, Partial<Record<TransportEvent, TransportState>>> = {
  idle: { open: 'connecting', destroy: 'destroyed' },
  connecting: { opened: 'open', dropped: 'waiting', destroy: 'destroyed' },
  open: { dropped: 'waiting', destroy: 'destroyed' },
  waiting: { retry: 'connecting', destroy: 'destroyed' },
  destroyed: {},
};

describe('transport state table', () => {
  for (const state of statesOf(TRANSPORT_TABLE)) {
    for (const event of EVENTS) {
      const next = EXPECTED[state][event];
      it(`${state} --${event}--> ${next ?? 'refused'}`, () => {
        const machine = new StateMachine('signalling', TRANSPORT_TABLE, state);
        if (next) expect(machine.send(event)).toBe(next);
        else expect(() => machine.send(event)).toThrow(IllegalTransitionError);
      });
    }
  }
});

function client(random = 0.5) {
  const env = fakeEnvironment();
  env.platform.random = () => random;
  const stream = new PStreamClient('ws://gw/signal', env.platform);
  stream.setToken('t');
  stream.open();
  return { env, stream };
}

describe('PStream client', () => {
  it('reconnects with the back-off sequence 100, 200, 400 … 10,000 ms and resets once open', () => {
    const { env, stream } = client();
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      env.socket().close();
      const sockets = env.sockets.length;
      let waited = 0;
      while (env.sockets.length === sockets) {
        env.clock.tick(1);
        waited += 1;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]);
    env.socket().open();
    expect(stream.isOpen).toBe(true);
    env.socket().close();
    env.clock.tick(99);
    expect(env.sockets).toHaveLength(10);
    env.clock.tick(1);
    expect(env.sockets).toHaveLength(11);
  });

  it('spreads the delay by up to ±100 % (jitter 0..1)', () => {
    for (const [random, delay] of [
      [0, 0],
      [0.25, 50],
      [0.999, 200],
    ] as const) {
      const { env } = client(random);
      env.socket().close();
      env.clock.tick(delay - 1 < 0 ? 0 : delay - 1);
      const before = env.sockets.length;
      env.clock.tick(1);
      expect([before, env.sockets.length]).toEqual(delay === 0 ? [2, 2] : [1, 2]);
    }
  });

  it('sends listen with the browser info and the reconnect timeout, then what was queued', () => {
    const { env, stream } = client();
    expect(stream.send('hangup', { callsid: 'CA1' })).toBe(false);
    expect(stream.send('reinvite', { callsid: 'CA1', sdp: 'v=0' }, false)).toBe(false);
    env.socket().open();
    expect(env.socket().frames()).toEqual([
      {
        type: 'listen',
        version: '1.6',
        payload: {
          token: 't',
          browserinfo: {
            p: 'browser',
            v: expect.any(String) as unknown,
            plugin: 'rtc',
            browser: { userAgent: 'fake', platform: 'web' },
          },
          reconnectTimeout: 30,
        },
      },
      { type: 'hangup', version: '1.6', payload: { callsid: 'CA1' } },
    ]);
    expect(stream.send('hangup', { callsid: 'CA2' })).toBe(true);
  });

  it('answers heartbeats and drops a silent socket after 15,000 ms', () => {
    const { env, stream } = client();
    env.socket().open();
    env.socket().deliver('\n');
    expect(env.socket().sent.filter((s) => s === '\n')).toHaveLength(1);
    const closed = vi.fn();
    stream.on('transportClose', closed);
    env.clock.tick(14_999);
    expect(closed).not.toHaveBeenCalled();
    env.clock.tick(1);
    expect(closed).toHaveBeenCalledOnce();
    expect(env.sockets[0]!.readyState).toBe(3);
  });

  it('reports malformed frames and ignores those of a replaced socket', () => {
    const { env, stream } = client();
    env.socket().open();
    const malformed = vi.fn();
    const ready = vi.fn();
    stream.on('malformed', malformed);
    stream.on('ready', ready);
    env.socket().deliver('not json');
    env.socket().deliver('invite', { callsid: 'CA1' });
    expect(malformed.mock.calls).toEqual([
      [null, 'not JSON'],
      ['invite', 'payload.sdp is invalid'],
    ]);
    const old = env.socket();
    old.close();
    old.deliver('ready', {});
    expect(ready).not.toHaveBeenCalled();
  });

  it('stops for good on destroy', () => {
    const { env, stream } = client();
    env.socket().open();
    stream.destroy();
    expect(stream.isDestroyed).toBe(true);
    expect(stream.send('hangup', { callsid: 'CA1' })).toBe(false);
    env.clock.tick(60_000);
    expect(env.sockets).toHaveLength(1);
  });
});
