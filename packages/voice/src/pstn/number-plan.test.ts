import { describe, expect, it } from 'vitest';
import { resolveNumber, SANDBOX_NUMBER_PLAN } from './number-plan';

const tone = { kind: 'answer', audio: { kind: 'tone', frequencyHz: 440, dbfs: -10 } };
const voice = { kind: 'answer', audio: { kind: 'clip', clip: 'lead-voice' } };

describe('the sandbox number plan', () => {
  it.each(['+15550100001', '+15550100042', '+15550100099'])(
    '%s (a test lead) answers with a 440 Hz tone',
    (number) => {
      expect(resolveNumber(SANDBOX_NUMBER_PLAN, number)).toEqual(tone);
    },
  );

  it.each(['+15550100000', '+15550100100', '+15550101234', '+15550109999'])(
    '%s (any other +1 555 010 XXXX) answers with the voice clip',
    (number) => {
      expect(resolveNumber(SANDBOX_NUMBER_PLAN, number)).toEqual(voice);
    },
  );

  it.each([
    ['+15550199001', { kind: 'unanswered', reason: 'busy' }],
    ['+15550199002', { kind: 'unanswered', reason: 'no-answer', ringMs: 30_000 }],
    [
      '+15550199003',
      {
        kind: 'answer',
        audio: {
          kind: 'voicemail',
          greeting: 'voicemail-greeting',
          beep: { frequencyHz: 1400, durationMs: 500, dbfs: -10 },
        },
      },
    ],
    ['+15550199004', { ...tone, hangUpAfterMs: 3000 }],
    ['+15550199005', { kind: 'unanswered', reason: 'failed' }],
    ['+15550199006', { kind: 'answer', ringMs: 0, audio: { kind: 'echo', delayMs: 200 } }],
  ])('%s behaves as listed', (number, behaviour) => {
    expect(resolveNumber(SANDBOX_NUMBER_PLAN, number)).toEqual(behaviour);
  });

  it.each([
    '+15550110042',
    '+15550199007',
    '+1555010004',
    '+155501000421',
    '15550100042',
    '+4915550100042',
    '',
    'hello',
  ])('%j fails as an invalid number', (number) => {
    expect(resolveNumber(SANDBOX_NUMBER_PLAN, number)).toEqual({
      kind: 'unanswered',
      reason: 'failed',
    });
  });

  it('tries rows in order', () => {
    const plan = {
      rows: [
        {
          description: 'busy line',
          pattern: /^\+15550100001$/,
          behaviour: { kind: 'unanswered', reason: 'busy' } as const,
        },
        ...SANDBOX_NUMBER_PLAN.rows,
      ],
      fallback: SANDBOX_NUMBER_PLAN.fallback,
    };
    expect(resolveNumber(plan, '+15550100001')).toEqual({ kind: 'unanswered', reason: 'busy' });
    expect(resolveNumber(plan, '+15550100002').kind).toBe('answer');
  });
});
