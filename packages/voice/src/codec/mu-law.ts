/**
 * G.711 µ-law (PCMU) codec, table driven.
 *
 * The tables are built once from the reference algorithm of ITU-T G.711 (the widely used
 * Sun Microsystems `g711.c` formulation: bias 0x84, clip 32635, inverted code words), so encoding
 * and decoding a frame is one lookup per sample.
 */

/** Added to the magnitude before the segment search (G.711 µ-law bias, 33 << 2). */
const BIAS = 0x84;
/** Largest magnitude that still fits the top segment once the bias is added. */
const CLIP = 32_635;

function encodeReference(sample: number): number {
  let magnitude = sample;
  const sign = magnitude < 0 ? 0x80 : 0;
  if (sign !== 0) magnitude = -magnitude;
  if (magnitude > CLIP) magnitude = CLIP;
  magnitude += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function decodeReference(code: number): number {
  const inverted = ~code & 0xff;
  const exponent = (inverted >> 4) & 0x07;
  const mantissa = inverted & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return (inverted & 0x80) !== 0 ? -magnitude : magnitude;
}

/** µ-law code word for every 16-bit sample, indexed by `sample & 0xffff`. */
const ENCODE_TABLE: Uint8Array = (() => {
  const table = new Uint8Array(65_536);
  for (let sample = -32_768; sample <= 32_767; sample++)
    table[sample & 0xffff] = encodeReference(sample);
  return table;
})();

/** Linear sample of every µ-law code word. */
const DECODE_TABLE: Int16Array = (() => {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code++) table[code] = decodeReference(code);
  return table;
})();

/** Encodes one 16-bit linear sample (an integer in -32768..32767) as a µ-law code word (0..255). */
export function encodeMuLawSample(sample: number): number {
  return ENCODE_TABLE[sample & 0xffff] ?? 0xff;
}

/** Decodes one µ-law code word (0..255) to a 16-bit linear sample. */
export function decodeMuLawSample(code: number): number {
  return DECODE_TABLE[code & 0xff] ?? 0;
}

/** Encodes 16-bit linear PCM as µ-law, one byte per sample (into `out` when given). */
export function encodeMuLaw(
  samples: Int16Array,
  out: Uint8Array = new Uint8Array(samples.length),
): Uint8Array {
  for (let i = 0; i < samples.length; i++)
    out[i] = ENCODE_TABLE[(samples[i] ?? 0) & 0xffff] ?? 0xff;
  return out;
}

/** Decodes µ-law bytes to 16-bit linear PCM (into `out` when given). */
export function decodeMuLaw(
  codes: Uint8Array,
  out: Int16Array = new Int16Array(codes.length),
): Int16Array {
  for (let i = 0; i < codes.length; i++) out[i] = DECODE_TABLE[codes[i] ?? 0xff] ?? 0;
  return out;
}

/** The µ-law code word of silence (linear 0). */
export const MU_LAW_SILENCE = 0xff;
