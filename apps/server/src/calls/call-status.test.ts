/**
 * The call lifecycle, checked against the product's rules rather than against the table it
 * tests. Each group below names the rule it comes from: the product spec
 * (/work/shared/spec/product-spec.md section 4, 'History status display' and its reasons), the
 * call flow in docs/architecture.md ('A lead call, and how its audio flows'), the restart rules
 * in docs/reliability.md, and the lead's numbers in docs/sandbox-numbers.md. The statuses
 * themselves are Twilio's call statuses (queued, ringing, in-progress, completed, busy,
 * no-answer, failed, canceled) plus the product's own (missed, offline, lead-busy).
 */
import { IllegalTransitionError } from '@leadline/contracts/lib';
import { describe, expect, it } from 'vitest';
import type { CallStatus } from '../db/schema';
import {
  CALL_STATUSES,
  canTransition,
  FINAL_STATUSES,
  isConnected,
  isFinal,
  isLive,
  isQueued,
  isRinging,
  LIVE_CALL_STATUSES,
  LIVE_STATUSES,
  nextStatus,
  OPEN_CALL_STATUSES,
  REACHED_NOBODY_STATUSES,
  statusListSql,
  type CallEvent,
} from './call-status';

/** The schema's statuses (db/schema.ts `CallStatus`), written out here on purpose. */
const ALL: CallStatus[] = [
  'queued',
  'ringing',
  'in-progress',
  'completed',
  'missed',
  'busy',
  'offline',
  'lead-busy',
  'no-answer',
  'failed',
  'canceled',
];

const EVENTS: CallEvent[] = [
  'ring',
  'wait',
  'answer',
  'connect',
  'complete',
  'nobody-answered',
  'abandon',
  'all-busy',
  'no-agents',
  'closed',
  'lead-busy',
  'lead-no-answer',
  'lead-failed',
  'cancel',
  'restart',
  'requeue',
];

type Rule = readonly [from: CallStatus, event: CallEvent, to: CallStatus];

/** Every transition the rules allow; anything else must be refused. */
const ALLOWED: Record<string, Rule[]> = {
  // architecture.md step 1-2: a new call is offered to one agent at a time; the router rings
  // one (queued → ringing), and a refusal or a ring timeout rings the next (stays ringing).
  'offering a call rings one agent at a time': [
    ['queued', 'ring', 'ringing'],
    ['ringing', 'ring', 'ringing'],
  ],
  // architecture.md step 3: the agent clicks Accept, the flows mark the call in progress.
  'the agent who answers takes it': [['ringing', 'answer', 'in-progress']],
  // spec section 4 'Outbound call': the agent dials, then is on the call (no ring of anyone).
  'an agent places an outbound call': [['queued', 'connect', 'in-progress']],
  // architecture.md step 2: nobody can take it now → a web lead waits in the queue (queued);
  // it may already be queued and stay so (Check for lead asked one agent who cannot take it).
  'a web lead nobody can take now waits in the queue': [
    ['queued', 'wait', 'queued'],
    ['ringing', 'wait', 'queued'],
  ],
  // spec section 4 'History status display' reasons, architecture.md step 2: a call nobody
  // took ends missed ('No agents answered'), busy ('All agents busy') or offline ('Outside
  // availability hours', nobody online); an inbound caller who hangs up before an agent takes
  // it is missed too; a call withdrawn before anyone took it is canceled (Twilio's 'canceled':
  // hung up while queued or ringing). All of these end a call that was never answered.
  'a call nobody took ends with its reason': (['queued', 'ringing'] as const).flatMap(
    (from): Rule[] => [
      [from, 'nobody-answered', 'missed'],
      [from, 'abandon', 'missed'],
      [from, 'all-busy', 'busy'],
      [from, 'no-agents', 'offline'],
      [from, 'closed', 'offline'],
      [from, 'cancel', 'canceled'],
    ],
  ),
  // architecture.md step 6: the call ends when its last party or its last agent leaves.
  'an answered call completes': [['in-progress', 'complete', 'completed']],
  // sandbox-numbers.md: the lead is dialled once the agent took the call, and its phone may be
  // busy, not answer, or fail; the call then ends with the lead's outcome (issue 13: a busy
  // lead is 'lead-busy', never the agents' 'busy').
  "the lead's phone not answering ends the answered call": [
    ['in-progress', 'lead-busy', 'lead-busy'],
    ['in-progress', 'lead-no-answer', 'no-answer'],
    ['in-progress', 'lead-failed', 'failed'],
  ],
  // reliability.md, clean stop and crash: in progress → completed; ringing, a web lead → back
  // in the queue; ringing, anything else → missed. (Queued outbound → canceled is 'cancel'
  // above; a queued web lead stays queued: no event.)
  'a server restart ends or requeues what was live': [
    ['in-progress', 'restart', 'completed'],
    ['ringing', 'requeue', 'queued'],
    ['ringing', 'restart', 'missed'],
  ],
};

const allowed = new Map<string, CallStatus>(
  Object.values(ALLOWED)
    .flat()
    .map(([from, event, to]) => [`${from}:${event}`, to]),
);

describe('call status transitions (from the product rules)', () => {
  it('knows exactly the schema’s statuses', () => {
    expect([...CALL_STATUSES].sort()).toEqual([...ALL].sort());
  });

  for (const [rule, transitions] of Object.entries(ALLOWED)) {
    it.each(transitions)(`${rule}: %s --%s--> %s`, (from, event, to) => {
      expect(canTransition(from, event)).toBe(true);
      expect(nextStatus(from, event)).toBe(to);
    });
  }

  // Every other status × event pair is a bug in the flows and throws.
  const refused = ALL.flatMap((from) =>
    EVENTS.filter((event) => !allowed.has(`${from}:${event}`)).map((event) => [from, event]),
  ) as Array<[CallStatus, CallEvent]>;
  it.each(refused)('refuses %s --%s-->', (from, event) => {
    expect(canTransition(from, event)).toBe(false);
    expect(() => nextStatus(from, event)).toThrow(IllegalTransitionError);
  });

  // History shows an ended call for good: nothing moves a final status again.
  it.each([
    'completed',
    'missed',
    'busy',
    'offline',
    'lead-busy',
    'no-answer',
    'failed',
    'canceled',
  ])('a final status never changes again: %s', (status) => {
    const final = status as CallStatus;
    expect(isFinal(final)).toBe(true);
    expect(FINAL_STATUSES.has(final)).toBe(true);
    for (const event of EVENTS) expect(canTransition(final, event)).toBe(false);
  });

  it('an answered call never rings or waits again, and never ends as not taken', () => {
    for (const to of ['queued', 'ringing', 'missed', 'busy', 'offline', 'canceled']) {
      for (const event of EVENTS) {
        if (canTransition('in-progress', event))
          expect(nextStatus('in-progress', event)).not.toBe(to);
      }
    }
  });

  it("a call nobody answered is never completed and never ends on the lead's side", () => {
    for (const from of ['queued', 'ringing'] as const) {
      for (const event of EVENTS) {
        if (!canTransition(from, event)) continue;
        expect(['completed', 'lead-busy', 'no-answer', 'failed']).not.toContain(
          nextStatus(from, event),
        );
      }
    }
  });
});

describe('call status groups', () => {
  // reliability.md 'While the server runs': the live calls are ringing and in-progress.
  it('live: someone is rung or talking', () => {
    expect([...LIVE_CALL_STATUSES].sort()).toEqual(['in-progress', 'ringing']);
    expect([...LIVE_STATUSES].sort()).toEqual(['in-progress', 'ringing']);
    for (const status of ALL) {
      expect(isLive(status)).toBe(status === 'ringing' || status === 'in-progress');
    }
  });

  it('open: not ended yet (queued, ringing, in progress)', () => {
    expect([...OPEN_CALL_STATUSES].sort()).toEqual(['in-progress', 'queued', 'ringing']);
    for (const status of ALL) expect(isFinal(status)).toBe(!OPEN_CALL_STATUSES.includes(status));
  });

  // spec section 4 'History status display' reasons: the endings that reached no agent.
  it('reached nobody: missed, busy, offline', () => {
    expect([...REACHED_NOBODY_STATUSES].sort()).toEqual(['busy', 'missed', 'offline']);
  });

  it('lists statuses as literal SQL', () => {
    expect(statusListSql(['ringing', 'in-progress'])).toBe("('ringing', 'in-progress')");
  });

  it('one predicate per open status', () => {
    for (const status of ALL) {
      expect(isQueued(status)).toBe(status === 'queued');
      expect(isRinging(status)).toBe(status === 'ringing');
      expect(isConnected(status)).toBe(status === 'in-progress');
    }
  });
});
