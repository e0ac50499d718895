/**
 * Constants of the media engine, each with the source that fixes it.
 *
 * Product spec section 9 ("Business constants and limits") chooses the codecs ("PCMU then Opus")
 * and the ICE gathering timeout; the rest follows from the standards named beside each value.
 */

/** G.711 (ITU-T G.711, RFC 3551 §4.5.14): PCMU samples at 8000 Hz. Spec §9: "Codecs: PCMU then Opus". */
export const SAMPLE_RATE_HZ = 8000;

/** Packetisation time of one audio frame: RFC 3551 §4.5 default `ptime` for G.711 (20 ms). */
export const FRAME_DURATION_MS = 20;

/** Samples in one 20 ms frame at 8000 Hz (RFC 3551 §4.5.14: 160 octets of PCMU per 20 ms). */
export const SAMPLES_PER_FRAME = (SAMPLE_RATE_HZ * FRAME_DURATION_MS) / 1000;

/** Static RTP payload type of PCMU (RFC 3551 table 4). */
export const PCMU_PAYLOAD_TYPE = 0;

/** Dynamic payload type the engine offers for `telephone-event/8000` (RFC 4733 §7.1.1). */
export const TELEPHONE_EVENT_PAYLOAD_TYPE = 101;

/** Clock rate of the telephone-event codec the engine accepts (RFC 4733 §2.5.1.1 with PCMU). */
export const TELEPHONE_EVENT_CLOCK_RATE_HZ = 8000;

/**
 * Spec §9: "maximum ICE retry time 30000 ms". A leg whose ICE fails within this time of an ICE
 * restart by its client is only interrupted: the client is retrying, so the leg waits this long
 * for a restart that connects before it fails.
 */
export const ICE_RESTART_WINDOW_MS = 30_000;

/** Spec §9: "ICE gathering timeout 15000 ms". The engine returns its SDP by then at the latest. */
export const ICE_GATHERING_TIMEOUT_MS = 15_000;

/** Largest positive 16-bit PCM sample (saturation bound of the mixer). */
export const PCM16_MAX = 32_767;

/** Smallest 16-bit PCM sample (saturation bound of the mixer). */
export const PCM16_MIN = -32_768;

/** Delay before a sandbox number answers unless `answerDelayMs` says otherwise (about 1 s of ringing). */
export const DEFAULT_ANSWER_DELAY_MS = 1000;

/**
 * The sandbox phone network (issue 5, docs/sandbox-numbers.md): test leads +1 555 010 0001–0099
 * play a steady tone; every other +1 555 010 XXXX speaks the voice clip; +1 555 019 900X are the
 * special behaviours below.
 */
export const SANDBOX_NUMBERS = {
  busy: '+15550199001',
  noAnswer: '+15550199002',
  voicemail: '+15550199003',
  hangsUp: '+15550199004',
  invalid: '+15550199005',
  /** The echo test (issue 17's pre-call network test): answers at once, plays back what it hears. */
  echo: '+15550199006',
} as const;

/** How long `+15550199002` rings before it counts as not answered. */
export const NO_ANSWER_RING_MS = 30_000;

/** How long `+15550199004` stays on the line after answering. */
export const HANG_UP_AFTER_MS = 3000;

/**
 * How long the echo number (`SANDBOX_NUMBERS.echo`) holds what it hears before it plays it back
 * (a whole number of 20 ms frames): a short delay, as echo-test lines have, so callers hear
 * their own voice come back rather than a sidetone.
 */
export const ECHO_DELAY_MS = 200;

/** The voicemail's beep after its greeting: frequency, length and level. */
export const VOICEMAIL_BEEP = { frequencyHz: 1400, durationMs: 500, dbfs: -10 } as const;

/** Hold music: a C-major arpeggio (C5 E5 G5 E5), each note 250 ms, at -16 dBFS, looped. */
export const HOLD_MUSIC = {
  notesHz: [523.25, 659.25, 783.99, 659.25],
  noteMs: 250,
  dbfs: -16,
} as const;

/** Frequency of the steady tone an answered sandbox number plays (A4, 440 Hz). */
export const SANDBOX_TONE_HZ = 440;

/** Peak level of the sandbox tone, in dB relative to full scale. */
export const SANDBOX_TONE_DBFS = -10;

/**
 * Audio a WebRTC leg buffers before playout starts (two frames, 40 ms): where its adaptive
 * target starts, between {@link JITTER_MIN_TARGET_FRAMES} and {@link JITTER_MAX_TARGET_FRAMES}.
 */
export const JITTER_TARGET_FRAMES = 2;

/** The least a leg's jitter buffer targets once its packets came evenly (one frame, 20 ms). */
export const JITTER_MIN_TARGET_FRAMES = 1;

/** The most a leg's jitter buffer targets after late packets ran it dry (six frames, 120 ms). */
export const JITTER_MAX_TARGET_FRAMES = 6;

/**
 * Settle windows in a row (10, 5 s) in which the jitter never ate into a leg's target before the
 * target is lowered a frame; a raise soon after a lowering doubles this, up to
 * {@link JITTER_LOWER_MAX_WINDOWS}, so a target that was too low is not tried again soon.
 */
export const JITTER_LOWER_WINDOWS = 10;

/** The longest a raised target is held before it is tried lower again (120 windows, 60 s). */
export const JITTER_LOWER_MAX_WINDOWS = 120;

/** Most audio a WebRTC leg buffers before it drops the oldest (ten frames, 200 ms). */
export const JITTER_MAX_FRAMES = 10;

/**
 * A WebRTC leg's jitter buffer trims what it holds beyond its target once the depth stayed at
 * least this far above the target (one frame, 20 ms) at every frame of a settle window.
 */
export const JITTER_DRIFT_MARGIN_FRAMES = 1;

/**
 * Frames of a jitter buffer's settle window (25 frames, 500 ms): the depth must stay above target
 * + margin that long before it is trimmed, and trimming waits that long again for quiet frames
 * to drop before it drops the oldest audio instead.
 */
export const JITTER_SETTLE_FRAMES = 25;

/**
 * Peak below which a frame counts as quiet (−40 dBFS): a jitter buffer trimming its excess
 * drops quiet frames first, so the cut is not heard.
 */
export const JITTER_QUIET_PEAK = 328;

/**
 * Frames the mixer loop replays back to back after a stall before it skips ahead instead
 * (40 ms). Replaying more makes a burst that delays the next ticks in turn (docs/benchmarks.md).
 */
export const MAX_CATCH_UP_FRAMES = 2;

/**
 * Nice value of the media worker threads by default (lower runs first; the main thread keeps
 * its 0): when HTTP and database work share a core with the mixer, the mixer's 20 ms ticks go
 * first, so API load does not bend frame pacing (docs/benchmarks.md). Needs `CAP_SYS_NICE`.
 */
export const MEDIA_THREAD_NICE = -10;

/** How long `close()` waits for the worker to finish its rooms (and write WAVs) before it terminates it. */
export const WORKER_SHUTDOWN_TIMEOUT_MS = 5000;

/**
 * Calls the sandbox phone network's call log keeps (`VoiceEngine.sandboxCalls`, the newest; older
 * ones are forgotten): enough for a day of demo calls or a test run, bounded so a long-running
 * embedded server does not grow without end (docs/sandbox-numbers.md).
 */
export const SANDBOX_CALL_LOG_LIMIT = 1000;
