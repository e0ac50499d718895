import { JITTER_MAX_FRAMES, JITTER_TARGET_FRAMES, SAMPLES_PER_FRAME } from '../constants';

/** Options of a {@link JitterBuffer}; the defaults come from `constants.ts`. */
export interface JitterBufferOptions {
  /** Samples handed out per pull (one frame). */
  frameSamples?: number;
  /** Frames buffered before playout (re)starts. */
  targetFrames?: number;
  /** Most frames held; beyond that the oldest audio is dropped. */
  maxFrames?: number;
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
 */
export class JitterBuffer {
  private readonly frameSamples: number;
  private readonly targetSamples: number;
  private readonly maxSamples: number;
  private readonly ring: Int16Array;
  private readonly mask: number;
  private anchored = false;
  private playing = false;
  /** RTP timestamp of the next sample to play. */
  private readAt = 0;
  /** RTP timestamp just after the latest sample written. */
  private writtenUntil = 0;

  /** Creates an empty buffer. */
  constructor(options: JitterBufferOptions = {}) {
    this.frameSamples = options.frameSamples ?? SAMPLES_PER_FRAME;
    this.targetSamples = (options.targetFrames ?? JITTER_TARGET_FRAMES) * this.frameSamples;
    this.maxSamples = (options.maxFrames ?? JITTER_MAX_FRAMES) * this.frameSamples;
    let capacity = 1;
    while (capacity < this.maxSamples + 2 * this.frameSamples) capacity <<= 1;
    this.ring = new Int16Array(capacity);
    this.mask = capacity - 1;
  }

  /** Samples buffered ahead of the playout point. */
  get bufferedSamples(): number {
    return this.anchored ? Math.max(0, distance(this.writtenUntil, this.readAt)) : 0;
  }

  /** Adds the decoded audio of one RTP packet whose first sample has RTP timestamp `timestamp`. */
  push(timestamp: number, samples: Int16Array): void {
    const start = timestamp >>> 0;
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
    if (!this.playing && buffered >= this.targetSamples) this.playing = true;
    if (this.playing && buffered <= 0) this.playing = false;
    if (!this.playing) {
      out.fill(0);
      return false;
    }
    for (let i = 0; i < out.length; i++) {
      const index = (this.readAt + i) & this.mask;
      out[i] = this.ring[index] ?? 0;
      this.ring[index] = 0;
    }
    this.readAt = (this.readAt + out.length) >>> 0;
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
    this.readAt = start;
    this.writtenUntil = start;
  }

  private skip(samples: number): void {
    for (let i = 0; i < samples; i++) this.ring[(this.readAt + i) & this.mask] = 0;
    this.readAt = (this.readAt + samples) >>> 0;
  }
}
