import type { SampleArray } from './samples';

/** Options of {@link toneLevelsDb}. */
export interface ToneLevelOptions {
  /** Length of the blocks whose powers are averaged (default 100 ms: about ±20 Hz resolution). */
  blockMs?: number;
  /** The sample value of full scale (default 32 768, 16-bit PCM; 1 for float audio). */
  fullScale?: number;
}

/** Level reported for a frequency that has no power at all (silence). */
export const SILENCE_DB = -200;

/**
 * The level of each of `frequenciesHz` in `samples`, in dB relative to a full-scale sine (a sine
 * of peak amplitude A at that frequency reads 20·log10(A / fullScale)), whatever else is mixed in.
 *
 * Each frequency's power is measured with a Hann-windowed Goertzel filter over consecutive
 * blocks of `blockMs` and averaged: the window keeps tones a few hundred hertz away from leaking
 * in (their sidelobes fall below −90 dB), and short blocks tolerate a tone a few hertz off (a
 * resampled or time-stretched stream). Frequencies with no power read {@link SILENCE_DB}.
 */
export function toneLevelsDb(
  samples: SampleArray,
  sampleRateHz: number,
  frequenciesHz: readonly number[],
  options: ToneLevelOptions = {},
): number[] {
  const fullScale = options.fullScale ?? 32_768;
  const blockSize = Math.max(16, Math.round((sampleRateHz * (options.blockMs ?? 100)) / 1000));
  const blocks = Math.floor(samples.length / blockSize);
  const window = Float64Array.from(
    { length: blockSize },
    (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (blockSize - 1)),
  );
  const windowSum = window.reduce((sum, w) => sum + w, 0);
  return frequenciesHz.map((frequencyHz) => {
    if (blocks === 0) return SILENCE_DB;
    const coefficient = 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRateHz);
    let sumOfSquaredAmplitudes = 0;
    for (let b = 0; b < blocks; b++) {
      let previous = 0;
      let beforePrevious = 0;
      const start = b * blockSize;
      for (let n = 0; n < blockSize; n++) {
        const current =
          (samples[start + n] ?? 0) * (window[n] ?? 0) + coefficient * previous - beforePrevious;
        beforePrevious = previous;
        previous = current;
      }
      const magnitudeSquared =
        previous * previous +
        beforePrevious * beforePrevious -
        coefficient * previous * beforePrevious;
      // A sine of amplitude A gives |X| = A/2 · Σw at its frequency.
      sumOfSquaredAmplitudes += (4 * Math.max(0, magnitudeSquared)) / (windowSum * windowSum);
    }
    const meanSquaredAmplitude = sumOfSquaredAmplitudes / blocks / (fullScale * fullScale);
    return meanSquaredAmplitude > 0
      ? Math.max(SILENCE_DB, 10 * Math.log10(meanSquaredAmplitude))
      : SILENCE_DB;
  });
}
