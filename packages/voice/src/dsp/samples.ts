/** Any sequence of audio samples the analysis functions accept (16-bit PCM or floats). */
export type SampleArray = ArrayLike<number>;

/** Converts a level in dB relative to full scale to a linear peak amplitude of 16-bit PCM. */
export function dbfsToAmplitude(dbfs: number): number {
  return 32_767 * 10 ** (dbfs / 20);
}

/** Root-mean-square level of `samples` in dB relative to a full-scale 16-bit sine; -Infinity for silence. */
export function rmsDbfs(samples: SampleArray): number {
  if (samples.length === 0) return -Infinity;
  let sumOfSquares = 0;
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i] ?? 0;
    sumOfSquares += sample * sample;
  }
  const rms = Math.sqrt(sumOfSquares / samples.length);
  // A full-scale sine has an RMS of 32767 / √2; report it as 0 dBFS.
  return rms === 0 ? -Infinity : 20 * Math.log10((rms * Math.SQRT2) / 32_767);
}
