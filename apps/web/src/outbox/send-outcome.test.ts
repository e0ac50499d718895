import { describe, expect, it } from 'vitest';
import { NETWORK_FAILURE, classifyResponse, type SendOutcome } from './send-outcome';

const FALLBACK = (status: number) => `The server could not complete the request (HTTP ${status}).`;
const RETRY = (status: number): SendOutcome => ({
  kind: 'retry',
  reason: `The server answered HTTP ${status}.`,
});

describe('classifyResponse', () => {
  const cases: [string, number, unknown, SendOutcome][] = [
    // 2xx: delivered, with the payload.
    [
      '200 with a body',
      200,
      { success: true, id: 5 },
      { kind: 'done', payload: { success: true, id: 5 } },
    ],
    ['201', 201, { id: 9 }, { kind: 'done', payload: { id: 9 } }],
    ['204 without a body', 204, null, { kind: 'done', payload: null }],
    // 2xx with { success: false, error }: a final refusal with the server's text.
    [
      '200 success:false',
      200,
      { success: false, error: 'SMS is not enabled.' },
      { kind: 'refused', status: 200, error: 'SMS is not enabled.' },
    ],
    [
      '200 success:false without text',
      200,
      { success: false },
      { kind: 'refused', status: 200, error: FALLBACK(200) },
    ],
    // Retried: timeouts, key in progress, too early, rate limits, server errors.
    ['408', 408, null, RETRY(408)],
    [
      '409 (key in progress)',
      409,
      { error: 'A request with this key is in progress.' },
      RETRY(409),
    ],
    ['425', 425, null, RETRY(425)],
    ['429', 429, { error: 'Slow down.' }, RETRY(429)],
    ['500', 500, { error: 'boom' }, RETRY(500)],
    ['502', 502, null, RETRY(502)],
    ['503 success:false', 503, { success: false, error: 'Maintenance' }, RETRY(503)],
    ['599', 599, null, RETRY(599)],
    // Other 4xx: final refusals (401 too: the caller handles the session).
    [
      '400',
      400,
      { error: 'The note is empty.' },
      { kind: 'refused', status: 400, error: 'The note is empty.' },
    ],
    ['401', 401, null, { kind: 'refused', status: 401, error: FALLBACK(401) }],
    [
      '403',
      403,
      { error: 'Not allowed.' },
      { kind: 'refused', status: 403, error: 'Not allowed.' },
    ],
    ['404', 404, { error: '   ' }, { kind: 'refused', status: 404, error: FALLBACK(404) }],
    ['410', 410, 'not an object', { kind: 'refused', status: 410, error: FALLBACK(410) }],
    ['413', 413, null, { kind: 'refused', status: 413, error: FALLBACK(413) }],
    [
      '422',
      422,
      { error: 'The phone number is invalid.' },
      { kind: 'refused', status: 422, error: 'The phone number is invalid.' },
    ],
    ['499', 499, null, { kind: 'refused', status: 499, error: FALLBACK(499) }],
    // Answers we cannot read are kept and retried, never dropped.
    ['status 0 (opaque)', 0, null, RETRY(0)],
    ['304', 304, null, RETRY(304)],
  ];

  it.each(cases)('%s', (_name, status, payload, expected) => {
    expect(classifyResponse(status, payload)).toEqual(expected);
  });
});

describe('NETWORK_FAILURE', () => {
  it('is a retry, and cannot be changed', () => {
    expect(NETWORK_FAILURE).toEqual({ kind: 'retry', reason: 'Cannot reach the server.' });
    expect(Object.isFrozen(NETWORK_FAILURE)).toBe(true);
  });
});
