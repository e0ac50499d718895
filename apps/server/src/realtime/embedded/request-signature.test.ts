import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignedRequest, type SignedRequest } from './request-signature';

const CREDENTIALS = { key: 'key', secret: 'secret-0123456789' };
const NOW_S = 1_700_000_000;
const PATH = '/apps/app/events';
const BODY = JSON.stringify({ name: 'status', channels: ['a'], data: '{"x":1}' });

/** Signs as the `pusher` library does (lib/requests.js createSignedQueryString). */
function signed(overrides: { secret?: string; timestamp?: number; body?: string } = {}): string {
  const body = overrides.body ?? BODY;
  const params: Record<string, string> = {
    auth_key: 'key',
    auth_timestamp: String(overrides.timestamp ?? NOW_S),
    auth_version: '1.0',
    body_md5: createHash('md5').update(body).digest('hex'),
  };
  const query = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  const signature = createHmac('sha256', overrides.secret ?? CREDENTIALS.secret)
    .update(`POST\n${PATH}\n${query}`)
    .digest('hex');
  return `${query}&auth_signature=${signature}`;
}

const request = (query: string, body = BODY, path = PATH): SignedRequest => ({
  method: 'POST',
  path,
  query,
  body,
  nowS: NOW_S,
});

describe('verifySignedRequest', () => {
  it.each([
    ['a request signed like the pusher library', request(signed()), 'ok'],
    [
      'a signature with another secret',
      request(signed({ secret: 'other-secret' })),
      'bad-signature',
    ],
    ['another path', request(signed(), BODY, '/apps/other/events'), 'bad-signature'],
    ['a changed body', request(signed(), BODY + ' '), 'body-mismatch'],
    ['a stale timestamp', request(signed({ timestamp: NOW_S - 601 })), 'expired'],
    ['another key', request(signed().replace('auth_key=key', 'auth_key=nope')), 'wrong-key'],
    ['no signature', request('auth_key=key&auth_timestamp=1&auth_version=1.0'), 'malformed'],
    ['an empty query', request(''), 'malformed'],
  ] as const)('%s → %s', (_what, req, verdict) =>
    expect(verifySignedRequest(CREDENTIALS, req)).toBe(verdict),
  );
});
