/**
 * Twilio's PStream 1.6 signalling protocol, as the official `@twilio/voice-sdk` speaks it:
 * JSON text frames `{ type, version: "1.6", payload }` over a WebSocket at `/signal`.
 * One schema per message and direction; see docs/signalling.md for the sequences.
 *
 * Written with `zod/mini` so the browser SDK that parses them stays small.
 */
import * as z from 'zod/mini';

/** The protocol version every frame carries. */
export const PSTREAM_VERSION = '1.6';

const callsid = z.string().check(z.minLength(1));
const sdp = z.string().check(z.minLength(1));

/** A coded error as it travels on the wire (31204, 31205, …). */
export const WireError = z.object({
  code: z.number(),
  message: z.string(),
});
export type WireError = z.infer<typeof WireError>;

// ---------------------------------------------------------------- client → gateway

/** First message on a socket (and on every token update): authenticates the socket. */
export const ListenPayload = z.object({
  token: z.string().check(z.minLength(1)),
  browserinfo: z.optional(z.looseObject({})),
  reconnectTimeout: z.optional(z.number()),
});
/** Presence registration; re-sent every 30 s while the device is registered. */
export const RegisterPayload = z.object({
  media: z.optional(z.looseObject({ audio: z.optional(z.boolean()) })),
});
/** Outgoing call offer, or a signalling reconnect of a live call when `reconnect` is set. */
export const ClientInvitePayload = z.object({
  callsid,
  sdp,
  twilio: z.optional(z.looseObject({ params: z.optional(z.string()) })),
  reconnect: z.optional(z.string()),
});
/** Answer to an incoming invite. */
export const ClientAnswerPayload = z.object({ callsid, sdp });
/** ICE restart offer for a live call. */
export const ReinvitePayload = z.object({ callsid, sdp });
/** Digits sent over signalling (when RTCDTMFSender is unavailable). */
export const DtmfPayload = z.object({ callsid, dtmf: z.string().check(z.minLength(1)) });
/** Local disconnect. */
export const ClientHangupPayload = z.object({ callsid, message: z.optional(z.string()) });
/** Incoming call refused. */
export const RejectPayload = z.object({ callsid });
/** A user-defined message on a call, either direction. */
export const MessagePayload = z.object({
  callsid,
  content: z.unknown(),
  contenttype: z.optional(z.string()),
  messagetype: z.string().check(z.minLength(1)),
  voiceeventsid: z.string().check(z.minLength(1)),
});

// ---------------------------------------------------------------- gateway → client

/** Reply to a valid `listen`: the identity and the token's remaining lifetime in seconds. */
export const ConnectedPayload = z.object({
  region: z.string(),
  edge: z.optional(z.string()),
  home: z.optional(z.string()),
  token: z.object({ identity: z.string(), ttl: z.number() }),
});
/** The device is registered for incoming calls. */
export const ReadyPayload = z.looseObject({});
/** The device is no longer registered. */
export const OfflinePayload = z.looseObject({});
/** Incoming call; without `callsid` or `sdp` the SDK reports 'Malformed invite from gateway'. */
export const GatewayInvitePayload = z.object({
  callsid,
  sdp,
  parameters: z.record(z.string(), z.string()),
  reconnect: z.optional(z.string()),
});
/** Outgoing call is ringing at the far end; `sdp` carries early media. */
export const RingingPayload = z.object({ callsid, sdp: z.optional(z.string()) });
/** Outgoing call answered (or a reconnect accepted); `reconnect` is the token for later reconnects. */
export const GatewayAnswerPayload = z.object({
  callsid,
  sdp,
  reconnect: z.optional(z.string()),
});
/** The caller gave up before the incoming call was answered. */
export const CancelPayload = z.object({ callsid });
/** The far end hung up, or the call failed with `error`. */
export const GatewayHangupPayload = z.object({ callsid, error: z.optional(WireError) });
/** Confirms a client `message`. */
export const AckPayload = z.object({
  acktype: z.string(),
  callsid,
  voiceeventsid: z.string(),
  reconnect: z.optional(z.string()),
});
/** A coded error for the device (no callsid) or one call. */
export const ErrorPayload = z.object({ callsid: z.optional(z.string()), error: WireError });

function frame<T extends string, P extends z.ZodMiniType>(type: T, payload: P) {
  return z.object({ type: z.literal(type), version: z.string(), payload });
}

/** Every frame a client may send to the gateway. */
export const ClientMessage = z.discriminatedUnion('type', [
  frame('listen', ListenPayload),
  frame('register', RegisterPayload),
  frame('invite', ClientInvitePayload),
  frame('answer', ClientAnswerPayload),
  frame('reinvite', ReinvitePayload),
  frame('dtmf', DtmfPayload),
  frame('hangup', ClientHangupPayload),
  frame('reject', RejectPayload),
  frame('message', MessagePayload),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** Every frame the gateway may send to a client. */
export const GatewayMessage = z.discriminatedUnion('type', [
  frame('connected', ConnectedPayload),
  frame('ready', ReadyPayload),
  frame('offline', OfflinePayload),
  frame('invite', GatewayInvitePayload),
  frame('ringing', RingingPayload),
  frame('answer', GatewayAnswerPayload),
  frame('cancel', CancelPayload),
  frame('hangup', GatewayHangupPayload),
  frame('ack', AckPayload),
  frame('message', MessagePayload),
  frame('error', ErrorPayload),
]);
export type GatewayMessage = z.infer<typeof GatewayMessage>;

/** Payload type of a client frame by its `type`. */
export type ClientPayload<T extends ClientMessage['type']> = Extract<
  ClientMessage,
  { type: T }
>['payload'];
/** Payload type of a gateway frame by its `type`. */
export type GatewayPayload<T extends GatewayMessage['type']> = Extract<
  GatewayMessage,
  { type: T }
>['payload'];

/** Serialises one frame with the protocol version. */
export function encodeFrame(type: string, payload: unknown): string {
  return JSON.stringify({ type, version: PSTREAM_VERSION, payload });
}
