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

/**
 * Share (0..1) of the signal's power that lies at `frequencyHz`: about 1 for a pure tone at that
 * frequency, about 0 when it is absent. A tone's share is halved when a second tone of the same
 * level is mixed in. Silence gives 0.
 */
export function toneShare(samples: SampleArray, frequencyHz: number, sampleRateHz: number): number {
  const total = meanSquare(samples);
  if (total === 0) return 0;
  return Math.min(1, (2 * goertzelPower(samples, frequencyHz, sampleRateHz)) / total);
}
