import { FRAME_DURATION_MS, SAMPLE_RATE_HZ } from '../constants';
import { dbfsToAmplitude } from '../dsp/samples';
import { ToneGenerator } from '../dsp/tone';

/** Something that plays audio into a room, 20 ms at a time (8 kHz mono 16-bit). */
export interface AudioSource {
  /** Fills `out` with the next samples (silence once the source has ended) and returns it. */
  fill(out: Int16Array): Int16Array;
  /** Whether everything has been played (a looping source never ends). */
  readonly ended: boolean;
  /** A source that plays back what its party hears (the echo) takes each frame it heard. */
  hear?(frame: Int16Array): void;
}

/** A steady sine tone that never ends. */
export class ToneSource implements AudioSource {
  private readonly generator: ToneGenerator;
  readonly ended = false;

  constructor(frequencyHz: number, dbfs: number) {
    this.generator = new ToneGenerator({ frequencyHz, dbfs, sampleRateHz: SAMPLE_RATE_HZ });
  }

  fill(out: Int16Array): Int16Array {
    return this.generator.fill(out);
  }
}

/**
 * An echo: what the party hears, played back `delayMs` later (rounded to whole 20 ms frames;
 * silence until then). The room asks a party what it says before it gives it what it heard in
 * the same frame, so the echo comes back one frame (20 ms) after the delay. It never ends.
 */
export class EchoSource implements AudioSource {
  readonly ended = false;
  private readonly delayFrames: number;
  /** Frames heard and not yet played back, oldest first. */
  private readonly queue: Int16Array[] = [];

  constructor(delayMs: number) {
    this.delayFrames = Math.max(0, Math.round(delayMs / FRAME_DURATION_MS));
  }

  hear(frame: Int16Array): void {
    this.queue.push(frame.slice());
    // Never further behind than the delay, whatever the order of hearing and speaking.
    while (this.queue.length > this.delayFrames + 1) this.queue.shift();
  }

  fill(out: Int16Array): Int16Array {
    if (this.queue.length <= this.delayFrames) return out.fill(0);
    const frame = this.queue.shift()!;
    out.set(frame.subarray(0, out.length));
    if (frame.length < out.length) out.fill(0, frame.length);
    return out;
  }
}

/** Recorded samples, played once or over and over. */
export class ClipSource implements AudioSource {
  private position = 0;

  constructor(
    private readonly samples: Int16Array,
    private readonly loop: boolean,
  ) {}

  get ended(): boolean {
    return !this.loop && this.position >= this.samples.length;
  }

  fill(out: Int16Array): Int16Array {
    for (let i = 0; i < out.length; i++) {
      if (this.position >= this.samples.length) {
        if (!this.loop || this.samples.length === 0) {
          out.fill(0, i);
          return out;
        }
        this.position = 0;
      }
      out[i] = this.samples[this.position++] ?? 0;
    }
    return out;
  }
}

/** A tone for a fixed time (a beep), then silence. */
export class BeepSource implements AudioSource {
  private readonly tone: ToneSource;
  private remaining: number;

  constructor(frequencyHz: number, dbfs: number, durationMs: number) {
    this.tone = new ToneSource(frequencyHz, dbfs);
    this.remaining = Math.round((durationMs * SAMPLE_RATE_HZ) / 1000);
  }

  get ended(): boolean {
    return this.remaining <= 0;
  }

  fill(out: Int16Array): Int16Array {
    this.tone.fill(out);
    if (this.remaining < out.length) out.fill(0, Math.max(0, this.remaining));
    this.remaining -= out.length;
    return out;
  }
}

/**
 * Sources played one after the other (each until it ends), then silence. A source that ends
 * in the middle of a frame finishes that frame with silence; the next starts on the next frame.
 */
export class SequenceSource implements AudioSource {
  private index = 0;

  constructor(private readonly parts: readonly AudioSource[]) {}

  get ended(): boolean {
    return this.index >= this.parts.length;
  }

  fill(out: Int16Array): Int16Array {
    const part = this.parts[this.index];
    if (!part) return out.fill(0);
    part.fill(out);
    if (part.ended) this.index++;
    return out;
  }
}

/**
 * Hold music: a short arpeggio looped for as long as the call is on hold (notes of
 * `notesHz`, each `noteMs` long, with a 10 ms fade in and out so the note changes do not click).
 */
export class MelodySource implements AudioSource {
  readonly ended = false;
  private readonly amplitude: number;
  private readonly noteSamples: number;
  private readonly fadeSamples = Math.round(SAMPLE_RATE_HZ / 100);
  private sample = 0;
  private phase = 0;

  constructor(
    private readonly notesHz: readonly number[],
    noteMs: number,
    dbfs: number,
  ) {
    this.amplitude = dbfsToAmplitude(dbfs);
    this.noteSamples = Math.round((noteMs * SAMPLE_RATE_HZ) / 1000);
  }

  fill(out: Int16Array): Int16Array {
    const cycle = this.noteSamples * this.notesHz.length;
    for (let i = 0; i < out.length; i++) {
      const inCycle = this.sample % cycle;
      const note = this.notesHz[Math.floor(inCycle / this.noteSamples)] ?? 0;
      const inNote = inCycle % this.noteSamples;
      const edge = Math.min(inNote, this.noteSamples - 1 - inNote);
      const gain = edge < this.fadeSamples ? edge / this.fadeSamples : 1;
      this.phase += (2 * Math.PI * note) / SAMPLE_RATE_HZ;
      out[i] = Math.round(this.amplitude * gain * Math.sin(this.phase));
      this.sample = (this.sample + 1) % cycle;
    }
    this.phase %= 2 * Math.PI;
    return out;
  }
}
