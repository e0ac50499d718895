import { readFile, writeFile } from 'node:fs/promises';
import { decodeMuLaw } from '../codec/mu-law';

/** Decoded contents of a 16-bit PCM WAV file. */
export interface WavAudio {
  /** Sample rate from the `fmt ` chunk. */
  sampleRateHz: number;
  /** Channels in the file (the samples are mixed down to mono). */
  channels: number;
  /** Mono 16-bit samples (the mean of the channels when there are several). */
  samples: Int16Array;
}

/** A WAV file that is neither 16-bit linear PCM nor G.711 µ-law, or is truncated or malformed. */
export class WavFormatError extends Error {
  override readonly name = 'WavFormatError';
}

const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
const FMT_CHUNK_BYTES = 16;
const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_MULAW = 7;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const BITS_PER_SAMPLE = 16;
const MULAW_BITS_PER_SAMPLE = 8;

/** Encodes mono 16-bit PCM as a canonical 44-byte-header WAV file. */
export function encodeWav(samples: Int16Array, sampleRateHz: number): Uint8Array {
  const dataBytes = samples.length * 2;
  const bytes = new Uint8Array(
    RIFF_HEADER_BYTES + 2 * CHUNK_HEADER_BYTES + FMT_CHUNK_BYTES + dataBytes,
  );
  const view = new DataView(bytes.buffer);
  writeAscii(view, 0, 'RIFF');
  view.setUint32(4, bytes.length - 8, true);
  writeAscii(view, 8, 'WAVE');
  writeAscii(view, 12, 'fmt ');
  view.setUint32(16, FMT_CHUNK_BYTES, true);
  view.setUint16(20, WAVE_FORMAT_PCM, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRateHz, true);
  view.setUint32(28, sampleRateHz * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, BITS_PER_SAMPLE, true);
  writeAscii(view, 36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + 2 * i, samples[i] ?? 0, true);
  return bytes;
}

/**
 * Decodes a 16-bit PCM WAV file (plain or WAVE_FORMAT_EXTENSIBLE) or a G.711 µ-law one (format
 * 7, as `sox -e mu-law` writes the engine's voice clips), any channel count, chunks in any
 * order. Throws {@link WavFormatError} for anything else.
 */
export function decodeWav(bytes: Uint8Array): WavAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    bytes.length < RIFF_HEADER_BYTES ||
    readAscii(view, 0) !== 'RIFF' ||
    readAscii(view, 8) !== 'WAVE'
  ) {
    throw new WavFormatError('Not a WAV file: missing the RIFF/WAVE header');
  }
  let format: WavFormat | undefined;
  for (let offset = RIFF_HEADER_BYTES; offset + CHUNK_HEADER_BYTES <= bytes.length;) {
    const id = readAscii(view, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + CHUNK_HEADER_BYTES;
    if (id === 'fmt ') {
      format = readFormat(view, body, size);
    } else if (id === 'data') {
      if (!format)
        throw new WavFormatError('Malformed WAV file: the data chunk comes before the fmt chunk');
      const available = Math.min(size, bytes.length - body);
      const samples = format.muLaw
        ? readMuLawSamples(bytes.subarray(body, body + available), format.channels)
        : readSamples(view, body, available, format.channels);
      return { sampleRateHz: format.sampleRateHz, channels: format.channels, samples };
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  throw new WavFormatError('Malformed WAV file: no data chunk');
}

/** Reads and decodes a 16-bit PCM WAV file. */
export async function readWavFile(path: string): Promise<WavAudio> {
  return decodeWav(await readFile(path));
}

/** Encodes mono 16-bit PCM as WAV and writes it to `path` (asynchronously). */
export async function writeWavFile(
  path: string,
  samples: Int16Array,
  sampleRateHz: number,
): Promise<void> {
  await writeFile(path, encodeWav(samples, sampleRateHz));
}

interface WavFormat {
  sampleRateHz: number;
  channels: number;
  muLaw: boolean;
}

function readFormat(view: DataView, body: number, size: number): WavFormat {
  if (size < FMT_CHUNK_BYTES)
    throw new WavFormatError(`Malformed WAV file: fmt chunk of ${size} bytes`);
  const formatTag = view.getUint16(body, true);
  const channels = view.getUint16(body + 2, true);
  const sampleRateHz = view.getUint32(body + 4, true);
  const bitsPerSample = view.getUint16(body + 14, true);
  const muLaw = formatTag === WAVE_FORMAT_MULAW;
  if (formatTag !== WAVE_FORMAT_PCM && formatTag !== WAVE_FORMAT_EXTENSIBLE && !muLaw) {
    throw new WavFormatError(
      `Unsupported WAV encoding ${formatTag}: only linear PCM and µ-law are supported`,
    );
  }
  if (muLaw && bitsPerSample !== MULAW_BITS_PER_SAMPLE) {
    throw new WavFormatError(`Malformed µ-law WAV file: ${bitsPerSample} bits per sample`);
  }
  if (!muLaw && bitsPerSample !== BITS_PER_SAMPLE) {
    throw new WavFormatError(
      `Unsupported WAV sample size ${bitsPerSample} bits: only 16-bit PCM is supported`,
    );
  }
  if (channels === 0 || sampleRateHz === 0) {
    throw new WavFormatError('Malformed WAV file: zero channels or sample rate');
  }
  return { sampleRateHz, channels, muLaw };
}

function readMuLawSamples(bytes: Uint8Array, channels: number): Int16Array {
  const decoded = decodeMuLaw(bytes);
  if (channels === 1) return decoded;
  const frames = Math.floor(decoded.length / channels);
  const samples = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++)
      sum += decoded[frame * channels + channel] ?? 0;
    samples[frame] = Math.round(sum / channels);
  }
  return samples;
}

function readSamples(
  view: DataView,
  body: number,
  byteLength: number,
  channels: number,
): Int16Array {
  const frameBytes = 2 * channels;
  const frames = Math.floor(byteLength / frameBytes);
  const samples = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++)
      sum += view.getInt16(body + frame * frameBytes + 2 * channel, true);
    samples[frame] = Math.round(sum / channels);
  }
  return samples;
}

function writeAscii(view: DataView, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
}

function readAscii(view: DataView, offset: number): string {
  let text = '';
  for (let i = 0; i < 4; i++) text += String.fromCharCode(view.getUint8(offset + i));
  return text;
}
