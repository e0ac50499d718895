/**
 * Signal processing helpers: tone detection, tone generation and WAV files. Tests across the
 * repository (server, e2e in Chromium) import these from `@leadline/voice/dsp` to check audio.
 */
export { dominantFrequency, type DominantFrequencyOptions } from './dominant-frequency';
export { fftInPlace } from './fft';
export { goertzelPower, meanSquare, toneShare } from './goertzel';
export { dbfsToAmplitude, rmsDbfs, type SampleArray } from './samples';
export { DEFAULT_TONE_DBFS, generateTone, ToneGenerator, type ToneSpec } from './tone';
export { SILENCE_DB, toneLevelsDb, type ToneLevelOptions } from './tone-levels';
export {
  decodeWav,
  encodeWav,
  readWavFile,
  writeWavFile,
  WavFormatError,
  type WavAudio,
} from './wav';
export { WavFileWriter } from './wav-writer';
