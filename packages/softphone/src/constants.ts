/** The spec's constants the SDK uses (product spec section 9 unless noted). */

/** Token-will-expire fires at the token's lifetime minus this margin. */
export const TOKEN_REFRESH_MARGIN_MS = 10_000;
/** Presence registration is re-sent this often while registered. */
export const REGISTRATION_INTERVAL_MS = 30_000;
/** An incoming call waits at most this long for the ringtone to start. */
export const RINGTONE_WAIT_MS = 2_000;
/** ICE gathering gives up after this long (the SDP goes out with what was gathered). */
export const ICE_GATHERING_TIMEOUT_MS = 15_000;
/** Volume events are emitted this often during a call. */
export const VOLUME_INTERVAL_MS = 50;
/** Gap between DTMF tones. */
export const DTMF_GAP_MS = 200;
/** The gateway sends a heartbeat at least this often; silence longer means the socket is dead. */
export const HEARTBEAT_TIMEOUT_MS = 15_000;
/** The signalling protocol's version. */
export { PSTREAM_VERSION } from '@leadline/contracts/signalling';
/** Reconnect back-off helper defaults: min 100 ms, max 10 s, factor 2, jitter 0..1. */
export const DEFAULT_BACKOFF = { minMs: 100, maxMs: 10_000, factor: 2, jitter: 1 } as const;
/** Codec preference: PCMU then Opus. */
export const CODEC_PREFERENCES = ['pcmu', 'opus'] as const;
/** The SDK's version, reported in `listen`'s browserinfo. */
export const SDK_VERSION = '0.1.0';
