/** Timing of the PStream gateway. */

/** The official SDK reconnects after 15 s without a frame; heartbeats (`\n`) keep it alive. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A socket that sent nothing (not even a heartbeat) for this long is dead. */
export const SOCKET_IDLE_TIMEOUT_MS = 30_000;
/** Largest frame accepted from a client (SDPs are a few KB). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** The region/edge names the gateway reports in `connected`. */
export const GATEWAY_REGION = 'local';
/**
 * How long a live call waits for its client to come back on a new socket (signalling reconnect
 * with the call's `reconnect` token) before it ends as `disconnected`.
 */
export const RECONNECT_GRACE_MS = 30_000;
/**
 * A socket must authenticate (`listen` with a valid access token) within this long of opening, or
 * of its token expiring; otherwise it is closed with {@link AUTH_DEADLINE_CLOSE}. The SDKs send
 * `listen` as soon as the socket opens.
 */
export const AUTH_DEADLINE_MS = 10_000;
/** The close code and reason of a socket that did not authenticate in time. */
export const AUTH_DEADLINE_CLOSE = {
  code: 4401,
  reason: 'Not authenticated: send listen with a valid access token within 10 seconds.',
} as const;
