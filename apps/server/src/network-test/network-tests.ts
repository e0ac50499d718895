/**
 * The pre-call network test (issue 17): Settings places a short test call from the agent's own
 * softphone to the engine's echo number and grades what its quality monitor measures. The
 * server authorises each test (`start`), answers the softphone's outgoing call for it
 * (`authorizeOutgoing`, the connect param `network_test`) with the echo number to dial, and ends
 * it: when the softphone hangs up, when the authorisation lapses unused, and at the latest
 * `maxMs` after the call was placed. A test writes no call, lead or history row; while it lasts
 * routing rings the agent with nothing (`holdBack`), and once it ends waiting leads come.
 *
 * ```text
 *   authorized ──place──▶ placed ──end──▶ ended
 *        └──────────────end──────────────▶┘
 * ```
 * `place`: the softphone's call for it was accepted (the echo number is dialled into its room).
 * `end`: hung up, lapsed, the time limit, the device went away, or the server stopping.
 */
import { randomBytes } from 'node:crypto';
import type { NetworkTestResponse } from '@leadline/contracts';
import { StateMachine, statesOf, type TransitionTable } from '@leadline/contracts/lib';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type { OutgoingCallDecision } from '@leadline/voice';
import { identityOf } from '../auth/access-token';
import type { FlowLogger } from '../calls/call-flows';

import { newCallSid } from '../calls/calls-repo';
import { AppError } from '../http/errors';
import type { Telephony, TelephonyEvent } from '../telephony/telephony';
import type { UserRow } from '../users/users-repo';
import { type Clock, systemClock } from '../lib/clock';

/** How long the console's test call lasts (issue 17: "a 10-second test call"). */
export const NETWORK_TEST_SECONDS = 10;

/**
 * Longest a test call may stay up, from the moment it was placed: the test's 10 s plus time for
 * the media to connect on a slow network. The server hangs it up then, whatever the softphone
 * does.
 */
export const NETWORK_TEST_MAX_MS = NETWORK_TEST_SECONDS * 1000 + 5_000;

/** A test whose call was not placed within this lapses (the agent is routed leads again). */
export const NETWORK_TEST_CONNECT_TIMEOUT_MS = 15_000;

/** What happens to a network test. */
export type NetworkTestEvent = 'place' | 'end';

/** The lifecycle of a network test (see the module comment). */
export const NETWORK_TEST_TRANSITIONS = {
  authorized: { place: 'placed', end: 'ended' },
  placed: { end: 'ended' },
  ended: {},
} as const satisfies TransitionTable<string, NetworkTestEvent>;

/** A state of a network test. */
export type NetworkTestState = keyof typeof NETWORK_TEST_TRANSITIONS;

/** Every state, derived from the table. */
export const NETWORK_TEST_STATES: NetworkTestState[] = statesOf<NetworkTestState, NetworkTestEvent>(
  NETWORK_TEST_TRANSITIONS,
);

/** Why a network test ended (logged). */
export type NetworkTestEnd =
  'hung-up' | 'echo-gone' | 'time-limit' | 'lapsed' | 'device-offline' | 'closing';

/** The softphone's call names no test it may place (unknown, another user's, used, lapsed). */
export const NETWORK_TEST_REFUSED: WireError = {
  code: SignallingErrorCode.CallNotFound,
  message: 'This network test was not found, has lapsed or has already run: start a new one.',
};

/** One test. */
interface NetworkTest {
  readonly id: string;
  readonly userId: number;
  /** The user's identity on the wire. */
  readonly identity: string;
  /** The room of its call. */
  readonly callSid: string;
  readonly lifecycle: StateMachine<NetworkTestState, NetworkTestEvent>;
  /** The lapse timer (authorized), then the time limit (placed). */
  timer: unknown;
  /** Gives the agent back to routing. */
  readonly release: () => Promise<void>;
}

/** Who is tested: the signed-in user (the parts a test needs). */
export type TestedUser = Pick<UserRow, 'id' | 'accountId'>;

/** What the network tests need. */
export interface NetworkTestsOptions {
  telephony: Telephony;
  /**
   * Keeps the user out of routing until the returned release is called; throws an `AppError`
   * when they cannot be tested now (phone offline, on a call). `CallFlows.holdAgentBack`.
   */
  holdBack(user: TestedUser): Promise<() => Promise<void>>;
  /** The number whose far end plays back what it hears (`SANDBOX_NUMBERS.echo`). */
  /** The number that echoes; null when the provider has none (Twilio): tests are refused. */
  echoNumber: string | null;
  log: FlowLogger;
  clock?: Clock;
  /** Default {@link NETWORK_TEST_MAX_MS}. */
  maxMs?: number;
  /** Default {@link NETWORK_TEST_CONNECT_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
}

/** The network tests of the server (see the module comment). */
export class NetworkTests {
  readonly #options: NetworkTestsOptions;
  readonly #clock: Clock;
  readonly #byId = new Map<string, NetworkTest>();
  readonly #byCallSid = new Map<string, NetworkTest>();
  readonly #byUser = new Map<number, NetworkTest>();
  /** Users whose test is being authorised (between the check and the hold). */
  readonly #starting = new Set<number>();
  readonly #unsubscribe: () => void;

  constructor(options: NetworkTestsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#unsubscribe = options.telephony.subscribe((event) => this.#onEvent(event));
  }

  /** Whether a test of the user is authorised or running. */
  isTesting(userId: number): boolean {
    return this.#byUser.has(userId);
  }

  /**
   * Authorises one test call of the user's softphone and keeps them out of routing until it
   * ends. Refuses with `NETWORK_TEST_RUNNING` while another of theirs is authorised or running,
   * and as `holdBack` does (phone offline, on or rung for a call).
   */
  async start(user: TestedUser): Promise<NetworkTestResponse> {
    if (this.#options.echoNumber === null) throw new AppError('NETWORK_TEST_UNAVAILABLE');
    if (this.#byUser.has(user.id) || this.#starting.has(user.id)) {
      throw new AppError('NETWORK_TEST_RUNNING');
    }
    this.#starting.add(user.id);
    let release: () => Promise<void>;
    try {
      release = await this.#options.holdBack(user);
    } finally {
      this.#starting.delete(user.id);
    }
    const test: NetworkTest = {
      id: `NT${randomBytes(16).toString('hex')}`,
      userId: user.id,
      identity: identityOf(user.id),
      callSid: newCallSid(),
      lifecycle: new StateMachine('network test', NETWORK_TEST_TRANSITIONS, 'authorized'),
      timer: null,
      release,
    };
    this.#byId.set(test.id, test);
    this.#byUser.set(user.id, test);
    const connectTimeoutMs = this.#options.connectTimeoutMs ?? NETWORK_TEST_CONNECT_TIMEOUT_MS;
    test.timer = this.#clock.setTimeout(() => this.#end(test, 'lapsed'), connectTimeoutMs);
    this.#options.log.info({ userId: user.id, testId: test.id }, 'network test authorised');
    return {
      success: true,
      test_id: test.id,
      params: { network_test: test.id },
      max_seconds: Math.round((this.#options.maxMs ?? NETWORK_TEST_MAX_MS) / 1000),
      connect_within_seconds: Math.round(connectTimeoutMs / 1000),
    };
  }

  /**
   * The softphone of `identity` places the call of test `testId` (its connect param
   * `network_test`): the engine dials the echo number into the test's room. Refused (31404) for
   * a test that is not this identity's or not waiting for its call.
   */
  authorizeOutgoing(identity: string, testId: string): OutgoingCallDecision {
    const test = this.#byId.get(testId);
    if (!test || test.identity !== identity || !test.lifecycle.can('place')) {
      return { error: NETWORK_TEST_REFUSED };
    }
    test.lifecycle.send('place');
    this.#clock.clearTimeout(test.timer);
    this.#byCallSid.set(test.callSid, test);
    test.timer = this.#clock.setTimeout(
      () => this.#end(test, 'time-limit'),
      this.#options.maxMs ?? NETWORK_TEST_MAX_MS,
    );
    return { callSid: test.callSid, dial: this.#options.echoNumber ?? '' };
  }

  /** Stops: every test ends (placed calls are hung up); nothing is given back to routing. */
  close(): void {
    this.#unsubscribe();
    for (const test of [...this.#byId.values()]) this.#end(test, 'closing');
  }

  #onEvent(event: TelephonyEvent): void {
    if (event.type === 'device.offline') {
      const userTest = [...this.#byUser.values()].find((t) => t.identity === event.identity);
      // A placed call ends through its own events (or the time limit).
      if (userTest?.lifecycle.state === 'authorized') this.#end(userTest, 'device-offline');
      return;
    }
    if (!('callSid' in event)) return;
    const test = this.#byCallSid.get(event.callSid);
    if (!test) return;
    switch (event.type) {
      case 'agent.left':
        return this.#end(test, 'hung-up');
      case 'phone.unanswered':
      case 'phone.left':
        return this.#end(test, 'echo-gone');
      default:
        return;
    }
  }

  #end(test: NetworkTest, why: NetworkTestEnd): void {
    const placed = test.lifecycle.state === 'placed';
    if (!test.lifecycle.trySend('end')) return;
    this.#clock.clearTimeout(test.timer);
    this.#byId.delete(test.id);
    this.#byCallSid.delete(test.callSid);
    if (this.#byUser.get(test.userId) === test) this.#byUser.delete(test.userId);
    // The whole room goes: the echo, and the softphone if it is still on (it gets `hangup`).
    if (placed) this.#options.telephony.hangup(test.callSid);
    this.#options.log.info({ userId: test.userId, testId: test.id, why }, 'network test ended');
    if (why === 'closing') return;
    test.release().catch((error: unknown) => {
      this.#options.log.warn({ err: error, userId: test.userId }, 'network test release failed');
    });
  }
}
