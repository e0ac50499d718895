import { dbfsToAmplitude } from './samples';

/** A steady sine tone. */
export interface ToneSpec {
  /** Frequency of the sine. */
  frequencyHz: number;
  /** Peak level in dB relative to full scale (0 is a full-scale sine); default -10. */
  dbfs?: number;
  /** Sample rate of the generated PCM. */
  sampleRateHz: number;
}

/** Default peak level of generated tones, in dBFS. */
export const DEFAULT_TONE_DBFS = -10;

/**
 * Generates a tone continuously, frame after frame, with no phase jump between frames (a
 * stateful source for a loop that asks for 20 ms at a time).
 */
export class ToneGenerator {
  private readonly phaseStep: number;
  private readonly amplitude: number;
  private phase = 0;

  /** Creates a generator of `spec`, starting at phase 0. */
  constructor(spec: ToneSpec) {
    this.phaseStep = (2 * Math.PI * spec.frequencyHz) / spec.sampleRateHz;
    this.amplitude = dbfsToAmplitude(spec.dbfs ?? DEFAULT_TONE_DBFS);
  }

  /** Fills `out` with the next `out.length` samples of the tone and returns it. */
  fill(out: Int16Array): Int16Array {
    for (let i = 0; i < out.length; i++) {
      out[i] = Math.round(this.amplitude * Math.sin(this.phase));
      this.phase += this.phaseStep;
    }
    // Keep the phase small so precision does not drift over hours of audio.
    this.phase %= 2 * Math.PI;
    return out;
  }
}

/** Generates `sampleCount` samples of a tone as 16-bit PCM. */
export function generateTone(spec: ToneSpec, sampleCount: number): Int16Array {
  return new ToneGenerator(spec).fill(new Int16Array(sampleCount));
}
