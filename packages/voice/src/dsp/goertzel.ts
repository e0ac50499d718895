import type { SampleArray } from './samples';

/**
 * Power of one frequency in `samples` (Goertzel algorithm), normalised so that a sine of
 * amplitude A at exactly `frequencyHz` gives about A² / 4 whatever the length: compare it with
 * the signal's mean square (`meanSquare(samples)`, A² / 2 for that sine) to get the share of the
 * signal's power in that frequency.
 */
export function goertzelPower(
  samples: SampleArray,
  frequencyHz: number,
  sampleRateHz: number,
): number {
  const n = samples.length;
  if (n === 0) return 0;
  const omega = (2 * Math.PI * frequencyHz) / sampleRateHz;
  const coefficient = 2 * Math.cos(omega);
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < n; i++) {
    const current = (samples[i] ?? 0) + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power =
    previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return power / (n * n);
}

/** Mean of the squared samples (the signal's power); 0 for no samples. */
export function meanSquare(samples: SampleArray): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i] ?? 0;
    sum += sample * sample;
  }
  return sum / samples.length;
}

/** Length of the windows {@link toneShare} measures in (ms). */
export const TONE_WINDOW_MS = 100;

/** Hann weights of a window of `size` samples, and their sum; cached by size. */
const hannWindows = new Map<number, { weights: Float64Array; sum: number }>();
function hann(size: number): { weights: Float64Array; sum: number } {
  let window = hannWindows.get(size);
  if (!window) {
    const weights = Float64Array.from({ length: size }, (_, i) =>
      size === 1 ? 1 : 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1)),
    );
    window = { weights, sum: weights.reduce((a, b) => a + b, 0) };
    if (hannWindows.size >= 64) hannWindows.clear();
    hannWindows.set(size, window);
  }
  return window;
}

/** Power at `frequencyHz` of `samples[start..start+size)` under a Hann window (A²/4 for a sine). */
function hannGoertzel(
  samples: SampleArray,
  start: number,
  size: number,
  frequencyHz: number,
  sampleRateHz: number,
): number {
  const { weights, sum } = hann(size);
  const coefficient = 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRateHz);
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < size; i++) {
    const current =
      (samples[start + i] ?? 0) * (weights[i] ?? 0) + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power =
    previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return power / (sum * sum);
}

/**
 * Share (0..1) of the signal's power that lies at `frequencyHz`: about 1 for a pure tone at that
 * frequency, about 0 when it is absent. A tone's share is halved when a second tone of the same
 * level is mixed in. Silence gives 0.
 *
 * A short-time estimate: the tone's power is measured in consecutive {@link TONE_WINDOW_MS}
 * Hann windows (little leakage from tones nearby) and weighted by their length, so a tone whose
 * level changes (a browser's automatic gain control settling) or whose phase jumps (a frame
 * lost or concealed on the way) still counts whole. One Goertzel over a long stretch is
 * phase-coherent and sees such a tone as only partly there (a tone falling from -5 to -26 dBFS
 * over three seconds measured about 0.5 that way).
 */
export function toneShare(samples: SampleArray, frequencyHz: number, sampleRateHz: number): number {
  const total = meanSquare(samples) * samples.length;
  if (total === 0) return 0;
  const size = Math.max(1, Math.round((sampleRateHz * TONE_WINDOW_MS) / 1000));
  let atTone = 0;
  for (let start = 0; start < samples.length; start += size) {
    // A short tail joins the window before it rather than being measured alone.
    const end = samples.length - (start + size) < size / 2 ? samples.length : start + size;
    const length = end - start;
    atTone += 2 * hannGoertzel(samples, start, length, frequencyHz, sampleRateHz) * length;
    if (end === samples.length) break;
  }
  return Math.min(1, atTone / total);
}
