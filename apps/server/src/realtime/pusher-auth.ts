/**
 * Channel authentication of the Pusher protocol (the presence channel named after the user id,
 * spec section 7): `auth` is `<key>:<HMAC-SHA256 hex of "socket_id:channel[:channel_data]">`.
 */
import { createHmac } from 'node:crypto';

/** The realtime app's credentials. */
export interface PusherCredentials {
  appId: string;
  key: string;
  secret: string;
  cluster: string;
}

/** Signs a channel subscription; presence channels carry the member's data. */
export function signChannel(
  credentials: PusherCredentials,
  socketId: string,
  channel: string,
  member?: { user_id: string; user_info: Record<string, unknown> },
): { auth: string; channel_data?: string } {
  const channelData = member ? JSON.stringify(member) : undefined;
  const signature = channelSignature(credentials.secret, socketId, channel, channelData);
  return channelData === undefined
    ? { auth: `${credentials.key}:${signature}` }
    : { auth: `${credentials.key}:${signature}`, channel_data: channelData };
}

/** The hex HMAC-SHA256 of `socket_id:channel[:channel_data]`: the signature part of `auth`. */
export function channelSignature(
  secret: string,
  socketId: string,
  channel: string,
  channelData?: string,
): string {
  const payload =
    channelData === undefined ? `${socketId}:${channel}` : `${socketId}:${channel}:${channelData}`;
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Hears a member arrive on (first socket) or leave (last socket) a presence channel. */
export type PresenceListener = (channel: string, userId: string, present: boolean) => void;

/** The path Pusher's webhooks are configured to post to. */
export const PUSHER_WEBHOOK_PATH = '/pusher/webhooks';
