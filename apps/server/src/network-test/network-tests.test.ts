/**
 * The network tests' lifecycle on the fake telephony and a manual clock: authorising, the
 * softphone's call answered with the echo number, refusals, and every way a test ends (hung up,
 * the echo gone, the time limit and the lapse to the millisecond, the device gone, closing),
 * each giving the agent back to routing exactly once. The real engine and routing are in
 * `network-test.integration.test.ts`.
 */
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../http/errors';
import { FakeTelephony } from '../telephony/fake-telephony';
import { ManualClock } from '../test-support/manual-clock';
import {
  NETWORK_TEST_CONNECT_TIMEOUT_MS,
  NETWORK_TEST_MAX_MS,
  NETWORK_TEST_REFUSED,
  NETWORK_TEST_STATES,
  NetworkTests,
  type TestedUser,
} from './network-tests';

const ECHO = '+15550199006';
const AGENT: TestedUser = { id: 7, accountId: 1 };
const OTHER: TestedUser = { id: 8, accountId: 1 };

let telephony: FakeTelephony;
let clock: ManualClock;
let tests: NetworkTests;
/** Per user id: how often they were held back, and released. */
let holds: Map<number, { held: number; released: number }>;
/** What the next hold-back throws, if set. */
let refuseHold: AppError | null;

beforeEach(() => {
  telephony = new FakeTelephony();
  clock = new ManualClock();
  holds = new Map();
  refuseHold = null;
  tests = new NetworkTests({
    telephony,
    clock,
    echoNumber: ECHO,
    log: pino({ level: 'silent' }),
    holdBack: (user) => {
      if (refuseHold) return Promise.reject(refuseHold);
      const count = holds.get(user.id) ?? { held: 0, released: 0 };
      holds.set(user.id, count);
      count.held++;
      return Promise.resolve(() => {
        count.released++;
        return Promise.resolve();
      });
    },
  });
});

/** Authorises a test of `user` and places its call; returns the test's room. */
async function placed(user = AGENT): Promise<string> {
  const { params } = await tests.start(user);
  const decision = tests.authorizeOutgoing(String(user.id), params.network_test);
  if ('error' in decision) throw new Error(`refused: ${decision.error.message}`);
  return decision.callSid;
}

const hangups = () => telephony.ops('hangup').map((c) => c.callSid);

describe('network tests', () => {
  it('has the states of its diagram', () => {
    expect(NETWORK_TEST_STATES).toEqual(['authorized', 'placed', 'ended']);
  });

  it('authorises a test, holds the agent back, and answers its call with the echo number', async () => {
    const answer = await tests.start(AGENT);
    expect(answer).toEqual({
      success: true,
      test_id: expect.stringMatching(/^NT[0-9a-f]{32}$/) as string,
      params: { network_test: answer.test_id },
      max_seconds: NETWORK_TEST_MAX_MS / 1000,
      connect_within_seconds: NETWORK_TEST_CONNECT_TIMEOUT_MS / 1000,
    });
    expect(holds.get(AGENT.id)).toEqual({ held: 1, released: 0 });
    expect(tests.isTesting(AGENT.id)).toBe(true);
    const decision = tests.authorizeOutgoing('7', answer.test_id);
    expect(decision).toEqual({
      callSid: expect.stringMatching(/^CA[0-9a-f]{32}$/) as string,
      dial: ECHO,
    });
    // Nothing is dialled, rung or written by the server itself: the engine dials the decision.
    expect(telephony.commands).toEqual([]);
  });

  it.each([
    ['an unknown test', (id: string) => ({ identity: '7', testId: `${id}x` })],
    ["another user's test", (id: string) => ({ identity: '8', testId: id })],
    ['an empty id', () => ({ identity: '7', testId: '' })],
  ])('refuses the call of %s (31404)', async (_name, call) => {
    const { test_id } = await tests.start(AGENT);
    const { identity, testId } = call(test_id);
    expect(tests.authorizeOutgoing(identity, testId)).toEqual({ error: NETWORK_TEST_REFUSED });
    expect(NETWORK_TEST_REFUSED.code).toBe(SignallingErrorCode.CallNotFound);
  });

  it('answers one call per test: a second call with the same id is refused', async () => {
    const { test_id } = await tests.start(AGENT);
    expect(tests.authorizeOutgoing('7', test_id)).toHaveProperty('callSid');
    expect(tests.authorizeOutgoing('7', test_id)).toEqual({ error: NETWORK_TEST_REFUSED });
  });

  it('refuses a second test of the same agent while one runs, also when asked at once', async () => {
    const both = await Promise.allSettled([tests.start(AGENT), tests.start(AGENT)]);
    expect(both.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    const refusal = (both[1] as PromiseRejectedResult).reason as AppError;
    expect(refusal).toMatchObject({ code: 'NETWORK_TEST_RUNNING', status: 409 });
    await expect(tests.start(AGENT)).rejects.toMatchObject({ code: 'NETWORK_TEST_RUNNING' });
    // Another agent may test meanwhile.
    await expect(tests.start(OTHER)).resolves.toMatchObject({ success: true });
    expect(holds.get(AGENT.id)).toEqual({ held: 1, released: 0 });
  });

  it('passes on the refusal of the hold-back and keeps no test', async () => {
    refuseHold = new AppError('PHONE_OFFLINE');
    await expect(tests.start(AGENT)).rejects.toMatchObject({ code: 'PHONE_OFFLINE' });
    expect(tests.isTesting(AGENT.id)).toBe(false);
    refuseHold = null;
    await expect(tests.start(AGENT)).resolves.toMatchObject({ success: true });
  });

  it('hangs the call up at the time limit, not a millisecond before', async () => {
    const callSid = await placed();
    clock.advance(NETWORK_TEST_MAX_MS - 1);
    expect(hangups()).toEqual([]);
    expect(holds.get(AGENT.id)?.released).toBe(0);
    clock.advance(1);
    expect(hangups()).toEqual([callSid]);
    await Promise.resolve();
    expect(holds.get(AGENT.id)).toEqual({ held: 1, released: 1 });
    expect(tests.isTesting(AGENT.id)).toBe(false);
  });

  it('lapses when no call is placed in time, and its id is then refused', async () => {
    const { test_id } = await tests.start(AGENT);
    clock.advance(NETWORK_TEST_CONNECT_TIMEOUT_MS - 1);
    expect(tests.isTesting(AGENT.id)).toBe(true);
    clock.advance(1);
    expect(tests.isTesting(AGENT.id)).toBe(false);
    expect(holds.get(AGENT.id)?.released).toBe(1);
    // Nothing was placed, so nothing to hang up.
    expect(hangups()).toEqual([]);
    expect(tests.authorizeOutgoing('7', test_id)).toEqual({ error: NETWORK_TEST_REFUSED });
  });

  it('a call placed in time is not lapsed: its limit runs from when it was placed', async () => {
    const { test_id } = await tests.start(AGENT);
    clock.advance(5_000);
    tests.authorizeOutgoing('7', test_id);
    // When the lapse would have come.
    clock.advance(NETWORK_TEST_CONNECT_TIMEOUT_MS - 5_000);
    expect(tests.isTesting(AGENT.id)).toBe(true);
    clock.advance(NETWORK_TEST_MAX_MS - (NETWORK_TEST_CONNECT_TIMEOUT_MS - 5_000) - 1);
    expect(tests.isTesting(AGENT.id)).toBe(true);
    clock.advance(1);
    expect(tests.isTesting(AGENT.id)).toBe(false);
  });

  it.each([
    [
      'the softphone hangs up',
      (callSid: string) =>
        ({ type: 'agent.left', callSid, identity: '7', reason: 'hangup' }) as const,
    ],
    [
      'the echo hangs up',
      (callSid: string) =>
        ({ type: 'phone.left', callSid, participantId: `${callSid}.phone.1` }) as const,
    ],
    [
      'the echo does not answer',
      (callSid: string) =>
        ({
          type: 'phone.unanswered',
          callSid,
          participantId: `${callSid}.phone.1`,
          reason: 'failed',
        }) as const,
    ],
  ])('ends when %s: the room is hung up and the agent given back once', async (_name, event) => {
    const callSid = await placed();
    telephony.emit(event(callSid));
    expect(hangups()).toEqual([callSid]);
    await Promise.resolve();
    expect(holds.get(AGENT.id)).toEqual({ held: 1, released: 1 });
    // Later events and the time limit change nothing more.
    telephony.emit(event(callSid));
    clock.advance(NETWORK_TEST_MAX_MS);
    expect(hangups()).toEqual([callSid]);
    expect(holds.get(AGENT.id)).toEqual({ held: 1, released: 1 });
  });

  it("ignores other calls' events", async () => {
    await placed();
    telephony.emit({ type: 'agent.left', callSid: 'CAother', identity: '7', reason: 'hangup' });
    expect(tests.isTesting(AGENT.id)).toBe(true);
  });

  it('ends a test whose device goes away before its call; a placed call waits for its own end', async () => {
    await tests.start(AGENT);
    telephony.emit({ type: 'device.offline', identity: '7' });
    expect(tests.isTesting(AGENT.id)).toBe(false);
    await Promise.resolve();
    expect(holds.get(AGENT.id)?.released).toBe(1);

    await placed(OTHER);
    telephony.emit({ type: 'device.offline', identity: '8' });
    expect(tests.isTesting(OTHER.id)).toBe(true);
  });

  it('closing hangs up placed calls and ends every test', async () => {
    const callSid = await placed();
    await tests.start(OTHER);
    tests.close();
    expect(hangups()).toEqual([callSid]);
    expect(tests.isTesting(AGENT.id)).toBe(false);
    expect(tests.isTesting(OTHER.id)).toBe(false);
  });
});
