import type { CallType } from '@leadline/contracts';
import { describe, expect, it } from 'vitest';
import { demoCallUser } from '../test-support/fake-api';
import {
  callStatusText,
  canMute,
  endsInThankyou,
  incomingBanner,
  parseCallUserId,
  shouldAutoAccept,
  type ConsoleCall,
} from './call-rules';

function consoleCall(options: Parameters<typeof demoCallUser>[0] = {}): ConsoleCall {
  const loaded = demoCallUser(options);
  return {
    callSid: 'CA1',
    callUserId: 42,
    call: loaded.call,
    type: loaded.type,
    autoaccept: loaded.autoaccept,
  };
}

describe('parseCallUserId', () => {
  it.each([
    ['client:42', 42],
    ['client:1', 1],
    ['client:9000000001', 9_000_000_001],
  ])('%s → %s', (from, id) => expect(parseCallUserId(from)).toBe(id));

  it.each([
    'client:',
    'client:0',
    'client:abc',
    'client:4 2',
    'client:-3',
    '+15550100142',
    '42',
    'Client:42',
    'client:1234567890123456',
  ])('refuses %j', (from) => expect(parseCallUserId(from)).toBeNull());
});

describe('incomingBanner', () => {
  it.each([
    ['a lead call', consoleCall(), 'Incoming Lead!'],
    ['a transfer', consoleCall({ type: 'transfer' }), 'Incoming Transfer!'],
    ['a conference', consoleCall({ type: 'conference' }), 'Incoming Conference!'],
    [
      'an inbound call (number name)',
      consoleCall({ call: { direction: 'inbound' } }),
      'Sales line',
    ],
    [
      'an inbound transfer (inbound wins)',
      consoleCall({ type: 'transfer', call: { direction: 'inbound' } }),
      'Sales line',
    ],
    [
      'an inbound call without a number',
      consoleCall({ call: { direction: 'inbound', number: null } }),
      'Incoming Lead!',
    ],
  ] as const)('%s', (_name, call, banner) => expect(incomingBanner(call, {})).toBe(banner));

  it('appends the formatted number when the account asks for it', () => {
    const call = consoleCall({ call: { direction: 'inbound' } });
    expect(incomingBanner(call, { inbound_banner_shows_number: true })).toBe(
      'Sales line +1 555 010 0100',
    );
  });
});

describe('shouldAutoAccept', () => {
  it('accepts when the server says autoaccept', () => {
    expect(shouldAutoAccept(consoleCall({ autoaccept: true }))).toBe(true);
  });
  it('does not when the server does not', () => {
    expect(shouldAutoAccept(consoleCall({ autoaccept: false }))).toBe(false);
  });
  it.each<CallType>(['transfer', 'conference'])(
    'a %s too, when the server says autoaccept (the agent’s Auto Accept)',
    (type) => {
      expect(shouldAutoAccept(consoleCall({ type, autoaccept: true }))).toBe(true);
      const on7703 = consoleCall({
        type,
        autoaccept: true,
        call: { profile: { id: 7703, is_deal_whispertext: false, auto_answer: false, tags: [] } },
      });
      expect(shouldAutoAccept(on7703)).toBe(false);
    },
  );
  it('does not when the profile turns auto-answer off', () => {
    const call = consoleCall({
      autoaccept: true,
      call: { profile: { id: 7703, is_deal_whispertext: false, auto_answer: false, tags: [] } },
    });
    expect(shouldAutoAccept(call)).toBe(false);
  });
  it('accepts a call without a profile', () => {
    expect(shouldAutoAccept(consoleCall({ autoaccept: true, call: { profile: null } }))).toBe(true);
  });
});

describe('endsInThankyou and canMute', () => {
  it('sends inbound, listen and whisper calls to thank-you', () => {
    expect(endsInThankyou(consoleCall({ call: { direction: 'inbound' } }))).toBe(true);
    expect(endsInThankyou(consoleCall({ type: 'listen' }))).toBe(true);
    expect(endsInThankyou(consoleCall({ type: 'whisper' }))).toBe(true);
    expect(endsInThankyou(consoleCall({ type: 'barge' }))).toBe(false);
    expect(endsInThankyou(consoleCall())).toBe(false);
  });
  it('disables mute on listen calls only', () => {
    expect(canMute(consoleCall({ type: 'listen' }))).toBe(false);
    expect(canMute(consoleCall({ type: 'whisper' }))).toBe(true);
    expect(canMute(consoleCall())).toBe(true);
  });
});

describe('the on-call status line', () => {
  const call = (type: CallType, agent_name: string | null = 'Sam Lee'): ConsoleCall => {
    const loaded = demoCallUser({ type, call: { agent_name } });
    return { callSid: 'CA1', callUserId: 1, call: loaded.call, type, autoaccept: false };
  };
  it.each([
    ['lead', false, 'On call'],
    ['lead', true, 'On hold'],
    ['transfer', false, 'On call'],
    ['conference', false, 'Conference'],
    ['listen', false, "Listening to Sam Lee's call"],
    ['whisper', false, 'Whispering to Sam Lee'],
    ['barge', false, "Barged into Sam Lee's call"],
  ] as const)('a %s call (held: %s) says %s', (type, held, expected) => {
    expect(callStatusText(call(type), held)).toBe(expected);
  });

  it('without the agent’s name it still says the role', () => {
    expect(callStatusText(call('listen', null), false)).toBe('Listening');
  });
});
