import { describe, expect, it } from 'vitest';
import { resolveNumber, SANDBOX_NUMBER_PLAN } from './number-plan';

describe('the sandbox number plan', () => {
  it.each(['+15550100000', '+15550100042', '+15550109999'])(
    '%s answers with a 440 Hz tone',
    (number) => {
      expect(resolveNumber(SANDBOX_NUMBER_PLAN, number)).toEqual({
        kind: 'answer',
        audio: { kind: 'tone', frequencyHz: 440, dbfs: -10 },
      });
    },
  );

  it.each([
    '+15550110042',
    '+1555010004',
    '+155501000421',
    '15550100042',
    '+4915550100042',
    '',
    'hello',
  ])('%j fails', (number) => {
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
