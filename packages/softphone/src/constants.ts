/**
 * The spec's constants the SDK uses (product spec section 9 unless noted), and the official
 * Voice SDK's where the spec names the behaviour but not the number.
 */

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
/**
 * A `constant-audio-input-level` warning after this many identical volume readings (section 9's
 * volume warning threshold), once warnings are enabled; it clears as the others do.
 */
export const VOLUME_WARNING_STREAK = 10;
/** Gap between DTMF tones (on the wire and between the local feedback sounds). */
export const DTMF_GAP_MS = 200;
/** Length of one DTMF tone sent as RFC 4733 events (the official SDK's). */
export const DTMF_TONE_MS = 160;
/** A `w` in `sendDigits` pauses this long (the official SDK's). */
export const DTMF_PAUSE_MS = 500;
/** The gateway sends a heartbeat at least this often; silence longer means the socket is dead. */
export const HEARTBEAT_TIMEOUT_MS = 15_000;
/** The signalling protocol's version (`@leadline/contracts/signalling` PSTREAM_VERSION). */
export const PSTREAM_VERSION = '1.6';
/** Reconnect back-off helper defaults: min 100 ms, max 10 s, factor 2, jitter 0..1. */
export const DEFAULT_BACKOFF = { minMs: 100, maxMs: 10_000, factor: 2, jitter: 1 } as const;
/** Media reconnect (ICE restart) back-off: min 1, max 30,000 ms, factor 1.1, jitter 0.5. */
export const MEDIA_BACKOFF = { minMs: 1, maxMs: 30_000, factor: 1.1, jitter: 0.5 } as const;
/** A media reconnect gives up (the call ends) after this long. */
export const MAX_ICE_RETRY_MS = 30_000;
/**
 * No audio from the gateway for this long while a call is open means the media path broke (the
 * gateway sends a frame every 20 ms, silence included): the call reconnects its media. Checked
 * at each stats sample. Not in the spec: Chromium keeps ICE `connected` for about 5 s without
 * packets, too long for a short network drop.
 */
export const MEDIA_SILENCE_MS = 2_000;
/**
 * Audio missing this long (packets come every 20 ms) is watched closely: the call reads the
 * stats again when `MEDIA_SILENCE_MS` would be reached, rather than at the next 1,000 ms
 * sample, so a short outage is noticed on time. Audio younger than this counts as flowing
 * (a media reconnect is over once it does). Not in the spec.
 */
export const MEDIA_GAP_MS = 200;
/** While the media reconnects, the stats are read this often to see audio come back. */
export const MEDIA_CHECK_INTERVAL_MS = 250;
/** Signalling reconnect of a live call: how long the gateway keeps it (`maxCallSignalingTimeoutMs`). */
export const CALL_SIGNALING_TIMEOUT_MS = 30_000;
/** Codec preference: PCMU then Opus. */
export const CODEC_PREFERENCES = ['pcmu', 'opus'] as const;
/** The SDK's version, reported in `listen`'s browserinfo. */
export const SDK_VERSION = '0.2.0';

/** Call quality: `getStats()` is sampled this often. */
export const STATS_INTERVAL_MS = 1_000;
/** Call quality: warnings are enabled this long after the call opened. */
export const WARNINGS_DELAY_MS = 5_000;
/** Call quality: a raised warning clears only after this long below its threshold. */
export const WARNING_CLEAR_MS = 5_000;
/** Call quality: samples are published in batches of this many. */
export const SAMPLES_BATCH_SIZE = 10;

/** Sounds and their maximum durations (ms; `incoming` loops until stopped). */
export const SOUND_MAX_DURATION_MS = { disconnect: 3_000, outgoing: 3_000, dtmf: 1_000 } as const;

/**
 * Call quality thresholds (section 9), as rules over the latest samples: a warning is raised
 * when `raiseCount` of the last `sampleCount` samples cross `max`/`min` (or their average
 * crosses `maxAverage`), and cleared once `clearCount` or fewer do (or the average is at most
 * `clearValue`) for `WARNING_CLEAR_MS`. Defaults as in the official SDK: `sampleCount` 10,
 * `raiseCount` 3, `clearCount` 0. `packetsLostFraction` is a percentage.
 */
export const QUALITY_RULES = [
  { warning: 'high-jitter', stat: 'jitter', max: 30 },
  { warning: 'high-rtt', stat: 'rtt', max: 400 },
  { warning: 'low-mos', stat: 'mos', min: 3 },
  { warning: 'high-packet-loss', stat: 'packetsLostFraction', max: 1 },
  {
    warning: 'high-packets-lost-fraction',
    stat: 'packetsLostFraction',
    maxAverage: 3,
    clearValue: 1,
    sampleCount: 7,
  },
  {
    warning: 'low-bytes-received',
    stat: 'bytesReceived',
    min: 1,
    sampleCount: 3,
    raiseCount: 3,
    clearCount: 2,
  },
  {
    warning: 'low-bytes-sent',
    stat: 'bytesSent',
    min: 1,
    sampleCount: 3,
    raiseCount: 3,
    clearCount: 2,
  },
] as const;
