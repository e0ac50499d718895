import { describe, expect, it } from 'vitest';
import { PARTY_STATES, PARTY_TRANSITIONS, type PartyEvent } from '../pstn/party-state';
import { ENGINE_STATES, ENGINE_TRANSITIONS, type EngineEvent } from './engine-state';
import { LEG_STATES, LEG_TRANSITIONS, type LegEvent } from './leg-state';
import { MediaError } from './media-errors';
import { MediaStateMachine, type TransitionTable } from './state-machine';

function checkEveryTransition<S extends string, E extends string>(
  table: TransitionTable<S, E>,
  states: S[],
  events: E[],
): void {
  for (const state of states) {
    for (const event of events) {
      const machine = new MediaStateMachine<S, E>('thing', table, state);
      const next = table[state][event];
      if (next === undefined) {
        expect(machine.can(event)).toBe(false);
        expect(() => machine.send(event)).toThrow(MediaError);
        expect(() => machine.send(event)).toThrow(`thing cannot ${event} when ${state}`);
        expect(machine.trySend(event)).toBe(false);
        expect(machine.state).toBe(state);
      } else {
        expect(machine.send(event)).toBe(next);
        expect(states).toContain(next);
      }
    }
  }
}

describe('lifecycle tables', () => {
  it('WebRTC legs: every state × event', () => {
    const events: LegEvent[] = [
      'offer',
      'offered',
      'accept',
      'answer',
      'answered',
      'connect',
      'interrupt',
      'fail',
      'close',
    ];
    checkEveryTransition(LEG_TRANSITIONS, LEG_STATES, events);
    const leg = new MediaStateMachine('leg', LEG_TRANSITIONS, 'new');
    for (const event of ['offer', 'offered', 'accept', 'connect', 'fail', 'close'] as const)
      leg.send(event);
    expect(leg.state).toBe('closed');
    expect(LEG_STATES).toEqual([
      'new',
      'offering',
      'awaiting-answer',
      'answering',
      'connecting',
      'connected',
      'interrupted',
      'failed',
      'closed',
    ]);
  });

  it('virtual parties: every state × event', () => {
    const events: PartyEvent[] = ['ring', 'answer', 'join', 'reject', 'hang-up', 'leave'];
    checkEveryTransition(PARTY_TRANSITIONS, PARTY_STATES, events);
    expect(
      PARTY_STATES.filter((state) => Object.keys(PARTY_TRANSITIONS[state]).length === 0),
    ).toEqual(['gone']);
  });

  it('the engine: every state × event', () => {
    const events: EngineEvent[] = ['start', 'started', 'fail', 'close', 'closed'];
    checkEveryTransition(ENGINE_TRANSITIONS, ENGINE_STATES, events);
  });

  it('errors carry their code and stable name', () => {
    const machine = new MediaStateMachine('leg', LEG_TRANSITIONS, 'closed');
    try {
      machine.send('offer');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MediaError);
      expect(String(error)).toBe(
        'IllegalTransition (53101): Illegal state transition: leg cannot offer when closed',
      );
    }
  });
});
