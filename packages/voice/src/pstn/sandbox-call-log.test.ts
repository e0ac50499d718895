import { describe, expect, it } from 'vitest';
import { SANDBOX_CALL_LOG_LIMIT } from '../constants';
import type { DialFailure } from '../media/media-engine';
import { FakeClock } from '../testing/fake-clock';
import { SandboxCallLog, type SandboxCall } from './sandbox-call-log';
import { SANDBOX_CALL_STATES, type SandboxCallState } from './sandbox-call-state';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const at = (ms: number): string => new Date(T0 + ms).toISOString();

function setup(limit?: number): { clock: FakeClock; log: SandboxCallLog } {
  const clock = new FakeClock(T0);
  const log = new SandboxCallLog({ now: () => clock.now(), ...(limit ? { limit } : {}) });
  return { clock, log };
}

const dialled = {
  callSid: 'CA1',
  participantId: 'CA1.phone.1',
  direction: 'outbound',
  to: '+15550100042',
  from: '+15550142000',
} as const;

/** Moves a freshly placed call into `state` the way the network would. */
function reach(log: SandboxCallLog, state: SandboxCallState, id = dialled.participantId): void {
  switch (state) {
    case 'ringing':
      return;
    case 'answered':
      return log.answered(id);
    case 'ended':
      log.answered(id);
      return log.ended(id);
    default:
      return log.unanswered(id, state);
  }
}

describe('SandboxCallLog', () => {
  it('logs a placed call as ringing, with its caller ID and start time', () => {
    const { log } = setup();
    log.placed(dialled);
    expect(log.list()).toEqual<SandboxCall[]>([
      {
        ...dialled,
        startedAt: at(0),
        state: 'ringing',
        answeredAt: null,
        endedAt: null,
        digits: '',
      },
    ]);
  });

  it('a call answered then hung up: ringing → answered → ended, each with its time', () => {
    const { clock, log } = setup();
    log.placed(dialled);
    clock.advance(1000);
    log.answered(dialled.participantId);
    expect(log.list()[0]).toMatchObject({ state: 'answered', answeredAt: at(1000), endedAt: null });
    expect(log.isOver(dialled.participantId)).toBe(false);
    clock.advance(4000);
    log.received(dialled.participantId, '12');
    log.received(dialled.participantId, '#');
    log.ended(dialled.participantId);
    expect(log.list()[0]).toMatchObject({
      state: 'ended',
      startedAt: at(0),
      answeredAt: at(1000),
      endedAt: at(5000),
      digits: '12#',
    });
    expect(log.isOver(dialled.participantId)).toBe(true);
  });

  it.each<DialFailure>(['busy', 'no-answer', 'failed'])(
    'a call that is not answered (%s) ends with that reason as its state',
    (reason) => {
      const { clock, log } = setup();
      log.placed(dialled);
      clock.advance(30_000);
      log.unanswered(dialled.participantId, reason);
      expect(log.list()[0]).toMatchObject({ state: reason, answeredAt: null, endedAt: at(30_000) });
      expect(log.isOver(dialled.participantId)).toBe(true);
    },
  );

  it('a ringing call hung up before it is answered ends unanswered', () => {
    const { clock, log } = setup();
    log.placed(dialled);
    clock.advance(500);
    log.ended(dialled.participantId);
    expect(log.list()[0]).toMatchObject({ state: 'ended', answeredAt: null, endedAt: at(500) });
  });

  // What the network can still say about a call, from each state: a call that is over stays as
  // it ended (a hang-up racing the command that ended it changes nothing).
  const later: Array<[string, (log: SandboxCallLog) => void]> = [
    ['an answer', (log) => log.answered(dialled.participantId)],
    ['a hang-up', (log) => log.ended(dialled.participantId)],
    ['busy', (log) => log.unanswered(dialled.participantId, 'busy')],
  ];
  const expected: Record<SandboxCallState, Record<string, SandboxCallState>> = {
    ringing: { 'an answer': 'answered', 'a hang-up': 'ended', busy: 'busy' },
    answered: { 'an answer': 'answered', 'a hang-up': 'ended', busy: 'answered' },
    busy: { 'an answer': 'busy', 'a hang-up': 'busy', busy: 'busy' },
    'no-answer': { 'an answer': 'no-answer', 'a hang-up': 'no-answer', busy: 'no-answer' },
    failed: { 'an answer': 'failed', 'a hang-up': 'failed', busy: 'failed' },
    ended: { 'an answer': 'ended', 'a hang-up': 'ended', busy: 'ended' },
  };
  it.each(
    SANDBOX_CALL_STATES.flatMap((state) => later.map(([what, apply]) => ({ state, what, apply }))),
  )('from $state, $what leads to the expected state', ({ state, what, apply }) => {
    const { clock, log } = setup();
    log.placed(dialled);
    reach(log, state);
    const before = log.list()[0]!;
    clock.advance(100);
    apply(log);
    const after = log.list()[0]!;
    expect(after.state).toBe(expected[state][what]);
    // Times are set once, by the transition that reached them.
    if (after.state === before.state) expect(after).toEqual(before);
  });

  it('the whole call hung up ends its calls still ringing or answered, not the others', () => {
    const { clock, log } = setup();
    const second = { ...dialled, participantId: 'CA1.phone.2', to: '+15550101234' };
    const busy = { ...dialled, participantId: 'CA1.phone.3', to: '+15550199001' };
    const other = { ...dialled, callSid: 'CA2', participantId: 'CA2.phone.4' };
    for (const call of [dialled, second, busy, other]) log.placed(call);
    log.answered(dialled.participantId);
    log.unanswered(busy.participantId, 'busy');
    clock.advance(2000);
    log.endedRoom('CA1');
    expect(log.list().map((call) => [call.participantId, call.state, call.endedAt])).toEqual([
      ['CA1.phone.1', 'ended', at(2000)],
      ['CA1.phone.2', 'ended', at(2000)],
      ['CA1.phone.3', 'busy', at(0)],
      ['CA2.phone.4', 'ringing', null],
    ]);
    log.endedAll();
    expect(log.list().map((call) => call.state)).toEqual(['ended', 'ended', 'busy', 'ended']);
  });

  it('an inbound call keeps the caller as `from` and the called number as `to`', () => {
    const { log } = setup();
    const inbound = {
      callSid: 'CA9',
      participantId: 'CA9.caller.1',
      direction: 'inbound',
      to: '+15550142000',
      from: '+15550100777',
    } as const;
    log.placed(inbound);
    log.answered(inbound.participantId);
    expect(log.list()).toEqual([
      expect.objectContaining({ ...inbound, state: 'answered', answeredAt: at(0) }),
    ]);
  });

  it('facts about calls it does not know change nothing', () => {
    const { log } = setup();
    log.placed(dialled);
    log.answered('CA1.phone.99');
    log.ended('CA1.phone.99');
    log.received('CA1.phone.99', '5');
    expect(log.isOver('CA1.phone.99')).toBe(false);
    expect(log.list()).toEqual([expect.objectContaining({ state: 'ringing', digits: '' })]);
  });

  it('hands out copies: changing one changes nothing in the log', () => {
    const { log } = setup();
    log.placed(dialled);
    const [copy] = log.list();
    copy!.state = 'ended';
    copy!.digits = '9';
    expect(log.list()[0]).toMatchObject({ state: 'ringing', digits: '' });
  });

  it(`keeps the newest ${SANDBOX_CALL_LOG_LIMIT} calls by default, oldest first`, () => {
    const { log } = setup();
    const total = SANDBOX_CALL_LOG_LIMIT + 5;
    for (let n = 1; n <= total; n++) log.placed({ ...dialled, participantId: `CA1.phone.${n}` });
    const calls = log.list();
    expect(calls).toHaveLength(SANDBOX_CALL_LOG_LIMIT);
    expect(calls[0]!.participantId).toBe('CA1.phone.6');
    expect(calls.at(-1)!.participantId).toBe(`CA1.phone.${total}`);
    // A forgotten call is unknown: news of it changes nothing.
    log.ended('CA1.phone.1');
    expect(log.isOver('CA1.phone.1')).toBe(false);
  });

  it('keeps the newest `limit` calls when given one', () => {
    const { log } = setup(2);
    for (const n of [1, 2, 3]) log.placed({ ...dialled, participantId: `CA1.phone.${n}` });
    expect(log.list().map((call) => call.participantId)).toEqual(['CA1.phone.2', 'CA1.phone.3']);
  });
});
