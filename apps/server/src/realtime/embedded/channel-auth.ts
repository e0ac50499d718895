/**
 * Checks the `auth` of a private or presence subscription the way hosted Pusher does:
 * `<key>:<HMAC-SHA256 hex of "socket_id:channel[:channel_data]">`, compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import { channelSignature, type PusherCredentials } from '../pusher-auth';

/** Whether `auth` signs this socket's subscription to `channel` (with `channelData` if given). */
export function isValidChannelAuth(
  credentials: Pick<PusherCredentials, 'key' | 'secret'>,
  socketId: string,
  channel: string,
  auth: string | undefined,
  channelData?: string,
): boolean {
  if (auth === undefined) return false;
  const colon = auth.indexOf(':');
  if (colon < 0 || auth.slice(0, colon) !== credentials.key) return false;
  const given = Buffer.from(auth.slice(colon + 1));
  const expected = Buffer.from(
    channelSignature(credentials.secret, socketId, channel, channelData),
  );
  return given.length === expected.length && timingSafeEqual(given, expected);
}
