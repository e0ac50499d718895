/**
 * The Pusher Channels protocol (version 7) as pusher-js 8 speaks it, and the Pusher HTTP events
 * API as the `pusher` npm library posts it: JSON text frames `{ event, channel?, data }` over a
 * WebSocket at `/app/{key}`. Client frames carry `data` as an object; server frames carry it as
 * a JSON string (except `pusher:error`, whose data is an object). See docs/realtime.md.
 *
 * Written with `zod/mini` so a browser bundle that parses them stays small.
 */
import * as z from 'zod/mini';

/** The protocol version the embedded endpoint speaks (pusher-js 8 sends `?protocol=7`). */
export const PUSHER_PROTOCOL_VERSION = 7;

/** Any frame a client sends: an event name, an optional channel, and data. */
export const PusherClientFrame = z.object({
  event: z.string().check(z.minLength(1), z.maxLength(200)),
  channel: z.optional(z.string()),
  data: z.optional(z.unknown()),
});
export type PusherClientFrame = z.infer<typeof PusherClientFrame>;

/** A channel name as Pusher allows it: at most 200 of `A-Za-z0-9_-=@,.;`. */
export const PusherChannelName = z
  .string()
  .check(z.minLength(1), z.maxLength(200), z.regex(/^[A-Za-z0-9_\-=@,.;]+$/));

/** The data of `pusher:subscribe`; private and presence channels carry `auth`. */
export const PusherSubscribeData = z.object({
  channel: PusherChannelName,
  auth: z.optional(z.string()),
  channel_data: z.optional(z.string()),
});
export type PusherSubscribeData = z.infer<typeof PusherSubscribeData>;

/** The data of `pusher:unsubscribe`. */
export const PusherUnsubscribeData = z.object({ channel: PusherChannelName });
export type PusherUnsubscribeData = z.infer<typeof PusherUnsubscribeData>;

/** A presence member as `channel_data` names it (hosted Pusher accepts a numeric user id). */
export const PusherPresenceMember = z.object({
  user_id: z.union([z.string().check(z.minLength(1)), z.number()]),
  user_info: z.optional(z.unknown()),
});
export type PusherPresenceMember = z.infer<typeof PusherPresenceMember>;

/** One event of the HTTP events API: `POST /apps/{app_id}/events`. `data` is a string. */
export const PusherTriggerBody = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  data: z.string(),
  channels: z.optional(z.array(PusherChannelName).check(z.minLength(1), z.maxLength(100))),
  channel: z.optional(PusherChannelName),
  socket_id: z.optional(z.string()),
});
export type PusherTriggerBody = z.infer<typeof PusherTriggerBody>;

/** One event of a batch: `POST /apps/{app_id}/batch_events`. */
export const PusherBatchEvent = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  data: z.string(),
  channel: PusherChannelName,
  socket_id: z.optional(z.string()),
});
/** The body of `POST /apps/{app_id}/batch_events`. */
export const PusherBatchBody = z.object({
  batch: z.array(PusherBatchEvent).check(z.minLength(1), z.maxLength(10)),
});
export type PusherBatchBody = z.infer<typeof PusherBatchBody>;

/** The signed query of the HTTP API, as the `pusher` library builds it. */
export const PusherSignedQuery = z.looseObject({
  auth_key: z.string(),
  auth_timestamp: z.string().check(z.regex(/^\d+$/)),
  auth_version: z.literal('1.0'),
  auth_signature: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  body_md5: z.optional(z.string()),
});
export type PusherSignedQuery = z.infer<typeof PusherSignedQuery>;
