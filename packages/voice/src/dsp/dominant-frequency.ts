import { fftInPlace } from './fft';
import type { SampleArray } from './samples';

/** Options of {@link dominantFrequency}. */
export interface DominantFrequencyOptions {
  /** Lowest frequency considered; default 100 Hz. */
  minHz?: number;
  /** Highest frequency considered; default 4000 Hz (capped at the Nyquist frequency). */
  maxHz?: number;
  /** FFT block size (a power of two); default 8192, about 1 Hz per bin at 8 kHz. */
  blockSize?: number;
}

/**
 * The strongest frequency in `samples` between `minHz` and `maxHz`, in Hz, or `undefined` for
 * silence. The signal is cut into Hann-windowed blocks whose power spectra are averaged (Welch),
 * so a tone present in only part of a recording still wins; the peak bin is refined by parabolic
 * interpolation, giving well under 1 Hz of error for a steady tone at 8 kHz.
 */
export function dominantFrequency(
  samples: SampleArray,
  sampleRateHz: number,
  options: DominantFrequencyOptions = {},
): number | undefined {
  const blockSize = options.blockSize ?? 8192;
  const minHz = options.minHz ?? 100;
  const maxHz = Math.min(options.maxHz ?? 4000, sampleRateHz / 2);
  const spectrum = averagePowerSpectrum(samples, blockSize);
  const binHz = sampleRateHz / blockSize;
  const firstBin = Math.max(1, Math.ceil(minHz / binHz));
  const lastBin = Math.min(blockSize / 2 - 1, Math.floor(maxHz / binHz));
  let peakBin = -1;
  let peakPower = 0;
  for (let bin = firstBin; bin <= lastBin; bin++) {
    const power = spectrum[bin] ?? 0;
    if (power > peakPower) {
      peakPower = power;
      peakBin = bin;
    }
  }
  if (peakBin < 0) return undefined;
  // Parabolic interpolation on log power around the peak (exact for a Gaussian-like main lobe).
  const left = Math.log(spectrum[peakBin - 1] ?? peakPower);
  const centre = Math.log(peakPower);
  const right = Math.log(spectrum[peakBin + 1] ?? peakPower);
  const curvature = left - 2 * centre + right;
  const offset = curvature === 0 ? 0 : (0.5 * (left - right)) / curvature;
  return (peakBin + offset) * binHz;
}

/** Mean power spectrum (bins 0..blockSize/2) of Hann-windowed blocks of `samples`. */
function averagePowerSpectrum(samples: SampleArray, blockSize: number): Float64Array {
  const spectrum = new Float64Array(blockSize / 2 + 1);
  const re = new Float64Array(blockSize);
  const im = new Float64Array(blockSize);
  const window = hannWindow(blockSize);
  // Half-overlapping blocks; a short signal is one zero-padded block.
  const hop = blockSize / 2;
  for (let start = 0; start === 0 || start + hop < samples.length; start += hop) {
    for (let i = 0; i < blockSize; i++) {
      re[i] = (samples[start + i] ?? 0) * (window[i] ?? 0);
      im[i] = 0;
    }
    fftInPlace(re, im);
    for (let bin = 0; bin < spectrum.length; bin++) {
      const real = re[bin] ?? 0;
      const imaginary = im[bin] ?? 0;
      spectrum[bin] = (spectrum[bin] ?? 0) + real * real + imaginary * imaginary;
    }
  }
  return spectrum;
}

function hannWindow(size: number): Float64Array {
  const window = new Float64Array(size);
  for (let i = 0; i < size; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1));
  return window;
}
