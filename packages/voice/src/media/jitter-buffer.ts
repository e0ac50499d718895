import {
  JITTER_DRIFT_MARGIN_FRAMES,
  JITTER_LOWER_MAX_WINDOWS,
  JITTER_LOWER_WINDOWS,
  JITTER_MAX_FRAMES,
  JITTER_MAX_TARGET_FRAMES,
  JITTER_MIN_TARGET_FRAMES,
  JITTER_QUIET_PEAK,
  JITTER_SETTLE_FRAMES,
  JITTER_TARGET_FRAMES,
  SAMPLES_PER_FRAME,
} from '../constants';

/** Options of a {@link JitterBuffer}; the defaults come from `constants.ts`. */
export interface JitterBufferOptions {
  /** Samples handed out per pull (one frame). */
  frameSamples?: number;
  /** Frames buffered before playout (re)starts, at first (the target adapts from there). */
  targetFrames?: number;
  /** The least the target goes down to while packets come evenly. */
  minTargetFrames?: number;
  /** The most the target goes up to after underruns. */
  maxTargetFrames?: number;
  /** Settle windows without the jitter eating into the target before it is lowered a frame. */
  lowerWindows?: number;
  /** The longest that wait grows to (it doubles at a raise soon after a lowering). */
  lowerMaxWindows?: number;
  /** Most frames held; beyond that the oldest audio is dropped. */
  maxFrames?: number;
  /** Frames above the target the depth must keep for a settle window before it is trimmed. */
  marginFrames?: number;
  /** Pulls of a settle window (see {@link JitterBuffer}). */
  settleFrames?: number;
  /** Peak below which a frame is quiet, dropped first when trimming. */
  quietPeak?: number;
}

/** Samples a packet may lie behind the playout point before it counts as a restarted stream. */
const RESTART_DISTANCE_SAMPLES = 8000;

/** Signed distance between two 32-bit RTP timestamps (`a - b`), correct across wrap-around. */
function distance(a: number, b: number): number {
  return (a - b) | 0;
}

/**
 * Reorders received audio by RTP timestamp and hands it out one frame at a time.
 *
 * Audio is written into a ring indexed by RTP timestamp, so reordering needs no bookkeeping and a
 * lost packet simply plays as silence. Playout starts once `targetFrames` are buffered; on an
 * underrun (the sender paused or fell behind) the buffer waits for `targetFrames` again and
 * re-anchors on the next packet, so pauses do not add latency. Packets later than the playout
 * point are dropped; if more than `maxFrames` pile up the oldest audio is skipped.
 *
 * Audio that keeps arriving never underruns, so a burst (late packets released at once) would
 * otherwise leave its delay for the rest of the call. The buffer converges back instead: when
 * the depth at every pull of a settle window (`settleFrames` pulls) stayed at least
 * `marginFrames` above the target, the smallest depth of the window minus the target is excess
 * nobody needed. It drops that excess a quiet frame at a time as quiet frames reach the playout
 * point; if a second settle window passes without enough of them, it drops the rest of the
 * oldest audio at once. Jitter (a depth that dips to the target or below) trims nothing.
 *
 * The target adapts to the jitter seen (as a browser's NetEQ does, more simply): when playout
 * ran dry twice within the wait below and each time the next packet continued the stream (it was
 * late, the sender had not paused), the target goes up a frame; a single late packet costs a
 * 20 ms gap and nothing more. When for `lowerWindows` settle windows in a row the depth at every
 * pull stayed at or above the target (the jitter never ate into it), the target goes down a
 * frame, and the excess is trimmed as above. A raise soon after a lowering doubles that wait (up
 * to `lowerMaxWindows`), so a link whose jitter needs the higher target keeps it. On an even
 * link (loopback, a LAN) the target settles at `minTargetFrames` and a packet plays at the first
 * mixer tick after it came.
 *
 * The playout point follows the mixer's clock: frames the mixer skipped after a stall
 * ({@link JitterBuffer.skipFrames}) are dropped too, and their packets count as late when they
 * arrive afterwards, so a stall costs a glitch rather than lasting delay.
 */
export class JitterBuffer {
  private readonly frameSamples: number;
  private targetSamples: number;
  private readonly minTargetSamples: number;
  private readonly maxTargetSamples: number;
  private readonly lowerMaxWindows: number;
  private readonly baseLowerWindows: number;
  /** Clean settle windows needed before the target is lowered (see {@link judgeDryOut}). */
  private lowerWindows: number;
  /** Settle windows since the target was last lowered. */
  private windowsSinceLowered = Infinity;
  /** Settle windows since playout last ran dry for a late packet. */
  private windowsSinceLate = Infinity;
  /** Clean settle windows in a row so far. */
  private cleanWindows = 0;
  /** Playout ran dry at this read point; the next packet says whether it was late or a pause. */
  private dryAt: number | null = null;
  private readonly maxSamples: number;
  private readonly marginSamples: number;
  private readonly settleFrames: number;
  private readonly quietPeak: number;
  private readonly ring: Int16Array;
  private readonly mask: number;
  private anchored = false;
  private playing = false;
  /** RTP timestamp of the next sample to play. */
  private readAt = 0;
  /** RTP timestamp just after the latest sample written. */
  private writtenUntil = 0;
  /** Pulls of the current settle window so far. */
  private settlePulls = 0;
  /** The smallest depth (samples) at a pull of the current settle window. */
  private settleLowest = Infinity;
  /** Excess samples still to drop (trimming), or 0 (watching the depth). */
  private excessSamples = 0;
  /** Pulls since trimming started (past a settle window, the oldest audio goes at once). */
  private trimPulls = 0;

  /** Creates an empty buffer. */
  constructor(options: JitterBufferOptions = {}) {
    this.frameSamples = options.frameSamples ?? SAMPLES_PER_FRAME;
    const targetFrames = options.targetFrames ?? JITTER_TARGET_FRAMES;
    this.targetSamples = targetFrames * this.frameSamples;
    this.minTargetSamples =
      Math.min(options.minTargetFrames ?? JITTER_MIN_TARGET_FRAMES, targetFrames) *
      this.frameSamples;
    this.maxTargetSamples =
      Math.max(options.maxTargetFrames ?? JITTER_MAX_TARGET_FRAMES, targetFrames) *
      this.frameSamples;
    this.baseLowerWindows = options.lowerWindows ?? JITTER_LOWER_WINDOWS;
    this.lowerWindows = this.baseLowerWindows;
    this.lowerMaxWindows = Math.max(
      this.baseLowerWindows,
      options.lowerMaxWindows ?? JITTER_LOWER_MAX_WINDOWS,
    );
    this.maxSamples = (options.maxFrames ?? JITTER_MAX_FRAMES) * this.frameSamples;
    this.marginSamples = (options.marginFrames ?? JITTER_DRIFT_MARGIN_FRAMES) * this.frameSamples;
    this.settleFrames = options.settleFrames ?? JITTER_SETTLE_FRAMES;
    this.quietPeak = options.quietPeak ?? JITTER_QUIET_PEAK;
    let capacity = 1;
    while (capacity < this.maxSamples + 2 * this.frameSamples) capacity <<= 1;
    this.ring = new Int16Array(capacity);
    this.mask = capacity - 1;
  }

  /** The depth (samples) playout (re)starts at and trimming keeps, as adapted so far. */
  get targetDepthSamples(): number {
    return this.targetSamples;
  }

  /** Samples buffered ahead of the playout point. */
  get bufferedSamples(): number {
    return this.anchored ? Math.max(0, distance(this.writtenUntil, this.readAt)) : 0;
  }

  /** Adds the decoded audio of one RTP packet whose first sample has RTP timestamp `timestamp`. */
  push(timestamp: number, samples: Int16Array): void {
    const start = timestamp >>> 0;
    if (this.dryAt !== null) this.judgeDryOut(this.dryAt, start);
    if (!this.anchored || this.isRestart(start) || this.isResumeAfterPause(start))
      this.anchor(start);
    const offset = distance(start, this.readAt);
    if (offset + samples.length <= 0) return;
    if (offset > this.maxSamples) this.anchor(start);
    const from = Math.max(0, -distance(start, this.readAt));
    for (let i = from; i < samples.length; i++)
      this.ring[(start + i) & this.mask] = samples[i] ?? 0;
    const end = (start + samples.length) >>> 0;
    if (distance(end, this.writtenUntil) > 0) this.writtenUntil = end;
    const excess = distance(this.writtenUntil, this.readAt) - this.maxSamples;
    if (excess > 0) this.skip(excess + (this.maxSamples - this.targetSamples));
  }

  /** Fills `out` (one frame) with the next audio; returns `false` (and silence) while buffering. */
  pull(out: Int16Array): boolean {
    if (!this.anchored) {
      out.fill(0);
      return false;
    }
    const buffered = distance(this.writtenUntil, this.readAt);
    if (!this.playing && buffered >= this.targetSamples) this.startPlaying();
    if (this.playing && buffered <= 0) {
      this.playing = false;
      this.dryAt = this.readAt;
    }
    if (!this.playing) {
      out.fill(0);
      return false;
    }
    this.settle(buffered);
    for (let i = 0; i < out.length; i++) {
      const index = (this.readAt + i) & this.mask;
      out[i] = this.ring[index] ?? 0;
      this.ring[index] = 0;
    }
    this.readAt = (this.readAt + out.length) >>> 0;
    return true;
  }

  /**
   * The mixer skipped `frames` frames after a stall: the playout point moves on past them as if
   * they had been pulled, dropping their audio (or, not yet arrived, making it late).
   */
  skipFrames(frames: number): void {
    if (!this.anchored || frames <= 0) return;
    this.skip(frames * this.frameSamples);
    if (distance(this.writtenUntil, this.readAt) <= 0) this.playing = false;
    this.resetSettle();
  }

  /**
   * Playout ran dry at `dryAt`; `start` is the next packet. Continuing the stream (at most a frame past the
   * read point, allowing one lost packet), it was late; further on, the sender paused: nothing to
   * learn. A late packet on its own costs a 20 ms gap and changes nothing (a link whose packets
   * are nearly all on time is best served by the low target); a second one within the wait for
   * lowering raises the target a frame. A raise soon after a lowering (within the wait that
   * lowering took) shows the lower target too low for this link: the wait doubles; later on, the
   * link changed and the wait starts over.
   */
  private judgeDryOut(dryAt: number, start: number): void {
    const late = distance(start, dryAt) <= this.frameSamples;
    this.dryAt = null;
    if (!late) return;
    this.cleanWindows = 0;
    const recurring = this.windowsSinceLate < this.lowerWindows;
    this.windowsSinceLate = 0;
    if (!recurring) return;
    if (this.targetSamples >= this.maxTargetSamples) return;
    this.targetSamples += this.frameSamples;
    this.lowerWindows =
      this.windowsSinceLowered <= this.lowerWindows
        ? Math.min(this.lowerMaxWindows, this.lowerWindows * 2)
        : this.baseLowerWindows;
  }

  /**
   * A settle window ended with `lowest` samples the least held at a pull: at or above the
   * target, the jitter did not need all of it; enough such windows in a row lower it a frame.
   */
  private adaptDown(lowest: number): void {
    this.windowsSinceLowered++;
    this.windowsSinceLate++;
    if (lowest < this.targetSamples) {
      this.cleanWindows = 0;
      return;
    }
    if (++this.cleanWindows < this.lowerWindows) return;
    this.cleanWindows = 0;
    if (this.targetSamples <= this.minTargetSamples) return;
    this.targetSamples -= this.frameSamples;
    this.windowsSinceLowered = 0;
  }

  private startPlaying(): void {
    this.playing = true;
    this.resetSettle();
  }

  private resetSettle(): void {
    this.settlePulls = 0;
    this.settleLowest = Infinity;
    this.excessSamples = 0;
    this.trimPulls = 0;
  }

  /** Watches the depth at this pull (`buffered` samples) and trims the excess it finds. */
  private settle(buffered: number): void {
    if (this.excessSamples === 0) {
      this.settleLowest = Math.min(this.settleLowest, buffered);
      if (++this.settlePulls < this.settleFrames) return;
      this.adaptDown(this.settleLowest);
      const excess = this.settleLowest - this.targetSamples;
      this.settlePulls = 0;
      this.settleLowest = Infinity;
      if (excess < this.marginSamples) return;
      this.excessSamples = excess;
      this.trimPulls = 0;
    }
    let chunk = Math.min(this.frameSamples, this.droppable());
    while (chunk > 0 && this.isQuiet(chunk)) {
      this.skip(chunk);
      this.excessSamples -= chunk;
      chunk = Math.min(this.frameSamples, this.droppable());
    }
    if (this.excessSamples > 0 && ++this.trimPulls >= this.settleFrames) {
      this.skip(Math.max(0, this.droppable()));
      this.excessSamples = 0;
    }
    if (this.droppable() <= 0) this.excessSamples = 0;
  }

  /**
   * Samples of the excess that may go now: never below the target, so what is left still covers
   * this pull and the target after it.
   */
  private droppable(): number {
    return Math.min(
      this.excessSamples,
      distance(this.writtenUntil, this.readAt) - this.targetSamples,
    );
  }

  /** Whether the next `samples` samples from the playout point are all below the quiet peak. */
  private isQuiet(samples: number): boolean {
    for (let i = 0; i < samples; i++) {
      const sample = this.ring[(this.readAt + i) & this.mask] ?? 0;
      if (sample >= this.quietPeak || sample <= -this.quietPeak) return false;
    }
    return true;
  }

  private isRestart(start: number): boolean {
    return distance(start, this.readAt) < -RESTART_DISTANCE_SAMPLES;
  }

  private isResumeAfterPause(start: number): boolean {
    // Nothing left to play and the stream continues later: start again from this packet.
    return (
      !this.playing &&
      distance(this.writtenUntil, this.readAt) <= 0 &&
      distance(start, this.readAt) > 0
    );
  }

  private anchor(start: number): void {
    this.ring.fill(0);
    this.anchored = true;
    this.playing = false;
    this.resetSettle();
    this.readAt = start;
    this.writtenUntil = start;
  }

  private skip(samples: number): void {
    const cleared = Math.min(samples, this.ring.length);
    for (let i = 0; i < cleared; i++) this.ring[(this.readAt + i) & this.mask] = 0;
    this.readAt = (this.readAt + samples) >>> 0;
  }
}
