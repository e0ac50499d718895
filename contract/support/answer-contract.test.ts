/** What the contract of one request reports when the fake's answer drifts from the server's. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerProblems, type AnswerPair } from './answer-contract';

const contract = {
  what: 'GET /api/v1/thing',
  schema: z.strictObject({ success: z.literal(true), thing: z.strictObject({ id: z.int() }) }),
  status: 200,
};

const answers = (fake: unknown, fakeStatus = 200): AnswerPair => ({
  server: {
    method: 'GET',
    path: '/api/v1/thing',
    status: 200,
    body: { success: true, thing: { id: 1 } },
  },
  fake: { method: 'GET', path: '/api/v1/thing', status: fakeStatus, body: fake },
});

describe('answerProblems', () => {
  it('finds nothing when both answers keep the contract', () => {
    expect(answerProblems(contract, answers({ success: true, thing: { id: 9 } }))).toEqual([]);
  });

  it('names the field the fake left out, by the schema and by the shape', () => {
    expect(answerProblems(contract, answers({ success: true, thing: {} }))).toEqual([
      "thing.id: Invalid input: expected number, received undefined (schema, in the fake's answer)",
      "thing.id: in the server's answer, missing from the fake's answer",
    ]);
  });

  it('names a status the fake answers with that the server does not', () => {
    expect(answerProblems(contract, answers({ success: true, thing: { id: 9 } }, 201))).toEqual([
      "HTTP 201 in the fake's answer, expected 200",
    ]);
  });
});
