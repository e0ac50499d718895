/**
 * Listening helpers for tests: which tones a stretch of audio holds, whether it is the hold
 * music, whether it sounds like speech. All work on 8 kHz mono 16-bit samples unless told.
 */
import { HOLD_MUSIC, SAMPLE_RATE_HZ } from '../constants';
import { dominantFrequency } from '../dsp/dominant-frequency';
import { toneShare } from '../dsp/goertzel';
import { rmsDbfs } from '../dsp/samples';

/** The samples from `fromSeconds` to `toSeconds` (clamped to the array). */
export function between(
  samples: Int16Array,
  fromSeconds: number,
  toSeconds: number,
  sampleRateHz = SAMPLE_RATE_HZ,
): Int16Array {
  const from = Math.max(0, Math.round(fromSeconds * sampleRateHz));
  const to = Math.min(samples.length, Math.round(toSeconds * sampleRateHz));
  return samples.subarray(from, Math.max(from, to));
}

/** Whether `frequencyHz` carries at least `minShare` of the power of `samples`. */
export function hasTone(
  samples: Int16Array,
  frequencyHz: number,
  minShare = 0.1,
  sampleRateHz = SAMPLE_RATE_HZ,
): boolean {
  return samples.length > 0 && toneShare(samples, frequencyHz, sampleRateHz) >= minShare;
}

/** Which of `frequenciesHz` are present in `samples` (see {@link hasTone}). */
export function tonesIn(
  samples: Int16Array,
  frequenciesHz: readonly number[],
  minShare = 0.1,
  sampleRateHz = SAMPLE_RATE_HZ,
): number[] {
  return frequenciesHz.filter((frequencyHz) =>
    hasTone(samples, frequencyHz, minShare, sampleRateHz),
  );
}

/** Splits `samples` into consecutive windows of `size` (the last partial one dropped). */
export function windows(samples: Int16Array, size: number): Int16Array[] {
  const out: Int16Array[] = [];
  for (let start = 0; start + size <= samples.length; start += size)
    out.push(samples.subarray(start, start + size));
  return out;
}

/**
 * Share (0..1) of 100 ms windows whose dominant frequency is a note of the hold music: near 1
 * for the hold music, near 0 for tones, speech or silence.
 */
export function holdMusicShare(samples: Int16Array, sampleRateHz = SAMPLE_RATE_HZ): number {
  const parts = windows(samples, Math.round(sampleRateHz / 10));
  if (parts.length === 0) return 0;
  const musical = parts.filter((part) => {
    if (rmsDbfs(part) < -40) return false;
    const dominant = dominantFrequency(part, sampleRateHz, { blockSize: 512 });
    return (
      dominant !== undefined && HOLD_MUSIC.notesHz.some((note) => Math.abs(note - dominant) <= 15)
    );
  });
  return musical.length / parts.length;
}

/**
 * Whether `samples` sound like speech rather than a tone or silence: audible, and the dominant
 * frequency of its 100 ms windows wanders (at least `minDistinct` different 50 Hz bands).
 */
export function soundsLikeSpeech(
  samples: Int16Array,
  minDistinct = 5,
  sampleRateHz = SAMPLE_RATE_HZ,
): boolean {
  const bands = new Set<number>();
  for (const part of windows(samples, Math.round(sampleRateHz / 10))) {
    if (rmsDbfs(part) < -45) continue;
    const dominant = dominantFrequency(part, sampleRateHz, { blockSize: 512 });
    if (dominant !== undefined) bands.add(Math.round(dominant / 50));
  }
  return bands.size >= minDistinct;
}
