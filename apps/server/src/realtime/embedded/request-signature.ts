/**
 * Verifies a request of the Pusher HTTP API signed as the `pusher` npm library signs it: the
 * query carries `auth_key`, `auth_timestamp`, `auth_version=1.0`, `body_md5` (hex MD5 of the
 * body) and `auth_signature`, the hex HMAC-SHA256 with the app secret of
 * `"<METHOD>\n<path>\n<every other query parameter, sorted by key, as key=value joined by &>"`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { PusherSignedQuery } from '@leadline/contracts/realtime';
import type { PusherCredentials } from '../pusher-auth';
import { MAX_REQUEST_AGE_S } from './constants';

/** A request to verify. */
export interface SignedRequest {
  method: string;
  /** The path, without the query: `/apps/{app_id}/events`. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** The raw body ('' when none). */
  body: string;
  /** The server's clock, in seconds since the epoch. */
  nowS: number;
}

/** Why a request was refused, or `ok`. */
export type SignatureVerdict =
  'ok' | 'malformed' | 'wrong-key' | 'expired' | 'body-mismatch' | 'bad-signature';

/** Checks a signed request against the app's credentials. */
export function verifySignedRequest(
  credentials: Pick<PusherCredentials, 'key' | 'secret'>,
  request: SignedRequest,
): SignatureVerdict {
  const params = new URLSearchParams(request.query);
  const query = PusherSignedQuery.safeParse(Object.fromEntries(params));
  if (!query.success) return 'malformed';
  const { auth_key: key, auth_timestamp: timestamp, auth_signature: signature } = query.data;
  if (key !== credentials.key) return 'wrong-key';
  if (Math.abs(request.nowS - Number(timestamp)) > MAX_REQUEST_AGE_S) return 'expired';
  const bodyMd5 = query.data.body_md5;
  if (request.body !== '' || bodyMd5 !== undefined) {
    if (bodyMd5 !== createHash('md5').update(request.body, 'utf8').digest('hex')) {
      return 'body-mismatch';
    }
  }
  const signed = [...params.entries()]
    .filter(([name]) => name !== 'auth_signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const expected = createHmac('sha256', credentials.secret)
    .update([request.method.toUpperCase(), request.path, signed].join('\n'))
    .digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? 'ok' : 'bad-signature';
}
