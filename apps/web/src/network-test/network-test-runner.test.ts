/**
 * The network test runner on a fake clock and the shared fake phone: the 10 s of measuring to
 * the millisecond, the answer timeout, every way a test fails, cancelling, and stale answers of
 * a cancelled run dropped.
 */
import type { NetworkTestResponse } from '@leadline/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  NETWORK_TEST_ANSWER_TIMEOUT_MS,
  NETWORK_TEST_DURATION_MS,
  NETWORK_TEST_ERRORS,
} from '../constants';
import { FakeDevice, type FakeCall } from '../test-support/fake-phone';
import type { PhoneConnectParams } from '../phone/phone-port';
import { FakeClock } from '../test-support/fake-platform';
import {
  NETWORK_TEST_STATES,
  NetworkTestRunner,
  isRunning,
  type NetworkTestSnapshot,
} from './network-test-runner';

const ANSWER: NetworkTestResponse = {
  success: true,
  test_id: 'NT1',
  params: { network_test: 'NT1' },
  max_seconds: 15,
  connect_within_seconds: 15,
};

let clock: FakeClock;
let device: FakeDevice;
/** What `authorize` does next: answer, or refuse with this error. */
let refusal: Error | null;
/** Answers held by the test (`holdAnswers`), released one by one. */
let held: Array<() => void> | null;
let connected: PhoneConnectParams[];
let runner: NetworkTestRunner;

beforeEach(async () => {
  clock = new FakeClock();
  device = new FakeDevice('token');
  await device.register();
  refusal = null;
  held = null;
  connected = [];
  runner = new NetworkTestRunner({
    authorize: async () => {
      if (held) await new Promise<void>((resolve) => held!.push(resolve));
      if (refusal) throw refusal;
      return ANSWER;
    },
    connect: (params) => {
      connected.push(params);
      return device.connect(params);
    },
    timers: clock,
    clock,
  });
});

const state = (): NetworkTestSnapshot['state'] => runner.getSnapshot().state;

/** Starts a test and answers its call; returns the call. */
async function answered(): Promise<FakeCall> {
  await runner.start();
  const call = device.lastOutgoing;
  call.answerRemotely();
  return call;
}

/** One second of the test: a sample, then the clock moves on. */
function second(call: FakeCall, mos: number | null = 4.4): void {
  call.reportSample({ mos });
  clock.tick(1000);
}

describe('the network test runner', () => {
  it('has the states of its diagram', () => {
    expect(NETWORK_TEST_STATES).toEqual([
      'idle',
      'authorizing',
      'connecting',
      'testing',
      'done',
      'failed',
    ]);
  });

  it('places the call with the server params and measures for 10 s once answered, not a millisecond less', async () => {
    await runner.start();
    expect(connected).toEqual([{ network_test: 'NT1' }]);
    expect(state()).toBe('connecting');
    const call = device.lastOutgoing;
    call.answerRemotely();
    expect(runner.getSnapshot()).toEqual({
      state: 'testing',
      elapsedMs: 0,
      durationMs: NETWORK_TEST_DURATION_MS,
    });
    for (let s = 0; s < 9; s++) second(call, s === 0 ? null : 4.15);
    expect(runner.getSnapshot()).toMatchObject({ state: 'testing', elapsedMs: 9000 });
    call.reportSample({ mos: 4.0 });
    clock.tick(999);
    expect(state()).toBe('testing');
    expect(call.status()).toBe('open');
    clock.tick(1);
    const done = runner.getSnapshot();
    expect(done).toMatchObject({
      state: 'done',
      report: { grade: 'Great', mos: { min: 4.0 }, samples: 10 },
    });
    // 8 seconds of 4.15 and one of 4.0 (the first had no MOS yet).
    expect(done.state === 'done' && done.report.mos.average).toBeCloseTo((8 * 4.15 + 4.0) / 9);
    // Hung up, and nothing listens to the call any more.
    expect(call.status()).toBe('closed');
    expect(call.invocations).toContain('disconnect');
    for (const event of ['accept', 'sample', 'disconnect', 'error'] as const) {
      expect(call.listenerCount(event)).toBe(0);
    }
  });

  it('counts the progress each second', async () => {
    const call = await answered();
    const seen: number[] = [];
    runner.subscribe(() => {
      const snapshot = runner.getSnapshot();
      if (snapshot.state === 'testing') seen.push(snapshot.elapsedMs);
    });
    for (let s = 0; s < 10; s++) second(call);
    expect(seen).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000]);
    expect(state()).toBe('done');
  });

  it('gives up when the call is not answered in time, and hangs it up', async () => {
    await runner.start();
    const call = device.lastOutgoing;
    clock.tick(NETWORK_TEST_ANSWER_TIMEOUT_MS - 1);
    expect(state()).toBe('connecting');
    clock.tick(1);
    expect(runner.getSnapshot()).toEqual({
      state: 'failed',
      error: NETWORK_TEST_ERRORS.notAnswered,
    });
    expect(call.status()).toBe('closed');
  });

  it.each([
    [
      'the server refuses (its text)',
      async () => {
        refusal = new Error('A network test is already running.');
        await runner.start();
      },
      'A network test is already running.',
    ],
    [
      'the phone refuses to place the call',
      async () => {
        device.connectFailure = new Error('A Call is already active');
        await runner.start();
      },
      'A Call is already active',
    ],
    [
      'the call fails',
      async () => {
        const call = await answered();
        call.fail(31003, 'ICE connection failed');
      },
      'The test call failed: ICE connection failed (31003).',
    ],
    [
      'the call ends during the test',
      async () => {
        const call = await answered();
        second(call);
        call.hangUpRemotely();
      },
      NETWORK_TEST_ERRORS.endedEarly,
    ],
    [
      'the call ends before it is answered',
      async () => {
        await runner.start();
        device.lastOutgoing.hangUpRemotely();
      },
      NETWORK_TEST_ERRORS.notAnswered,
    ],
    [
      'no sample had a MOS',
      async () => {
        const call = await answered();
        for (let s = 0; s < 10; s++) second(call, null);
      },
      NETWORK_TEST_ERRORS.noSamples,
    ],
  ])('fails, saying so, when %s', async (_name, play, error) => {
    await play();
    expect(runner.getSnapshot()).toEqual({ state: 'failed', error });
    expect(device.calls.every((call) => call.status() === 'closed')).toBe(true);
  });

  it('runs one test at a time, and again once it is over', async () => {
    await runner.start();
    await runner.start();
    expect(connected).toHaveLength(1);
    expect(isRunning(runner.getSnapshot())).toBe(true);
    clock.tick(NETWORK_TEST_ANSWER_TIMEOUT_MS);
    expect(isRunning(runner.getSnapshot())).toBe(false);
    const call = await answered();
    expect(connected).toHaveLength(2);
    for (let s = 0; s < 10; s++) second(call);
    expect(state()).toBe('done');
  });

  it('cancelling hangs the call up; its late events change nothing', async () => {
    const call = await answered();
    second(call);
    runner.cancel();
    expect(runner.getSnapshot()).toEqual({ state: 'idle' });
    expect(call.status()).toBe('closed');
    clock.tick(NETWORK_TEST_DURATION_MS);
    expect(runner.getSnapshot()).toEqual({ state: 'idle' });
    expect(clock.pendingCount).toBe(0);
  });

  it("a cancelled test's late server answer places no call", async () => {
    held = [];
    const started = runner.start();
    runner.cancel();
    held[0]!();
    await started;
    expect(connected).toEqual([]);
    expect(runner.getSnapshot()).toEqual({ state: 'idle' });
  });

  it('a call placed after the test was cancelled is hung up at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    runner = new NetworkTestRunner({
      authorize: () => Promise.resolve(ANSWER),
      connect: async (params) => {
        await gate;
        return device.connect(params);
      },
      timers: clock,
      clock,
    });
    const started = runner.start();
    await Promise.resolve();
    runner.cancel();
    release();
    await started;
    expect(device.lastOutgoing.invocations).toEqual(['disconnect']);
    expect(runner.getSnapshot()).toEqual({ state: 'idle' });
  });
});
