/**
 * Constants of the embedded Pusher-protocol endpoint. The timeouts are the realtime client's of
 * the product spec, section 9 (activity timeout 120 s, pong timeout 30 s).
 */

/** The path prefix pusher-js connects to: `/app/{key}`. */
export const PUSHER_APP_PATH_PREFIX = '/app/';

/** Seconds of silence after which either side pings (spec section 9: 120 s). */
export const ACTIVITY_TIMEOUT_S = 120;

/**
 * A socket must hold an authorised subscription (a private or presence channel, signed through
 * `POST /api/v1/pusher/auth`) within this long of connecting, or it is closed (`authDeadline`):
 * an anonymous socket holds nothing here for long. The console subscribes as soon as it connects.
 */
export const AUTH_DEADLINE_S = 30;

/** How long the server waits for `pusher:pong` after its ping before closing (spec: 30 s). */
export const PONG_TIMEOUT_MS = 30_000;

/** Largest WebSocket frame accepted; a larger one closes the socket with 1009 (hosted: 10 KB). */
export const MAX_FRAME_BYTES = 16 * 1024;

/** Largest `data` of one event on the HTTP events API (hosted Pusher: 10 KB). */
export const MAX_EVENT_DATA_BYTES = 10 * 1024;

/** How far `auth_timestamp` of an HTTP API request may be from the server's clock (Pusher: 600 s). */
export const MAX_REQUEST_AGE_S = 600;

/** Protocol versions accepted in the `protocol` query parameter (pusher-js 8 sends 7). */
export const SUPPORTED_PROTOCOLS: readonly number[] = [5, 6, 7];
