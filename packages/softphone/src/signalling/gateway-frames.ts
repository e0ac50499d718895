/**
 * Parses the gateway's frames by the contract (`GatewayMessage` in
 * `@leadline/contracts/signalling`) without zod: the same rules, written as a small table of
 * checks, so the browser bundle does not carry a schema library (zod/mini alone would be about
 * 5.5 KB of the SDK's gzip budget; see docs/benchmarks.md). `gateway-frames.test.ts` checks
 * that this parser and the zod schemas accept and refuse the same frames.
 */
import type { GatewayMessage } from '@leadline/contracts/signalling';

type Check = (value: unknown) => boolean;
type Shape = Record<string, Check>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v) => typeof v === 'string';
const filled: Check = (v) => typeof v === 'string' && v !== '';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
/** Any value, but the key must be there (zod 4: `z.unknown()` in an object is required). */
const any: Check = (v) => v !== undefined;
const opt =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const obj =
  (shape: Shape): Check =>
  (v) =>
    isObject(v) && Object.keys(shape).every((key) => shape[key]!(v[key]));
const strings: Check = (v) => isObject(v) && Object.values(v).every(str);
const wireError = obj({ code: num, message: str });

/** The payload rules of each gateway frame type. */
const PAYLOADS: Record<GatewayMessage['type'], Shape> = {
  connected: {
    region: str,
    edge: opt(str),
    home: opt(str),
    token: obj({ identity: str, ttl: num }),
  },
  ready: {},
  offline: {},
  invite: { callsid: filled, sdp: filled, parameters: strings, reconnect: opt(str) },
  ringing: { callsid: filled, sdp: opt(str) },
  answer: { callsid: filled, sdp: filled, reconnect: opt(str) },
  cancel: { callsid: filled },
  hangup: { callsid: filled, error: opt(wireError) },
  ack: { acktype: str, callsid: filled, voiceeventsid: str, reconnect: opt(str) },
  message: {
    callsid: filled,
    content: any,
    contenttype: opt(str),
    messagetype: filled,
    voiceeventsid: filled,
  },
  error: { callsid: opt(str), error: wireError },
};

/** A parsed frame, or why it was refused (`type` is its `type` field when it had one). */
export type ParsedFrame =
  { ok: true; frame: GatewayMessage } | { ok: false; type: string | null; reason: string };

/** Parses one text frame from the gateway. */
export function parseGatewayFrame(text: string): ParsedFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, type: null, reason: 'not JSON' };
  }
  const type = isObject(json) && typeof json.type === 'string' ? json.type : null;
  const shape = type === null ? undefined : PAYLOADS[type as GatewayMessage['type']];
  if (!isObject(json) || !shape || !Object.hasOwn(PAYLOADS, type!)) {
    return { ok: false, type, reason: 'type is not a gateway message' };
  }
  if (!str(json.version)) return { ok: false, type, reason: 'version is invalid' };
  const payload = json.payload;
  if (!isObject(payload)) return { ok: false, type, reason: 'payload is invalid' };
  for (const key of Object.keys(shape)) {
    if (!shape[key]!(payload[key])) return { ok: false, type, reason: `payload.${key} is invalid` };
  }
  return { ok: true, frame: json as GatewayMessage };
}
