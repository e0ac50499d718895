import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeMuLaw, encodeMuLaw } from '../codec/mu-law';
import { generateTone } from './tone';
import { decodeWav, encodeWav, readWavFile, WavFormatError, writeWavFile } from './wav';

function header(
  fields: { format?: number; channels?: number; bits?: number },
  data: number[],
): Uint8Array {
  const { format = 1, channels = 1, bits = 16 } = fields;
  const bytes = new Uint8Array(44 + data.length * 2);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode('RIFF'), 0);
  view.setUint32(4, bytes.length - 8, true);
  bytes.set(new TextEncoder().encode('WAVEfmt '), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, format, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, 8000, true);
  view.setUint32(28, 8000 * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, bits, true);
  bytes.set(new TextEncoder().encode('data'), 36);
  view.setUint32(40, data.length * 2, true);
  data.forEach((sample, i) => view.setInt16(44 + 2 * i, sample, true));
  return bytes;
}

describe('WAV files', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('round-trips mono 16-bit PCM exactly', () => {
    const samples = generateTone({ frequencyHz: 440, sampleRateHz: 8000 }, 1234);
    samples[0] = -32_768;
    samples[1] = 32_767;
    const bytes = encodeWav(samples, 8000);
    expect(bytes).toHaveLength(44 + 2 * 1234);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('RIFF');
    const decoded = decodeWav(bytes);
    expect(decoded.sampleRateHz).toBe(8000);
    expect(decoded.channels).toBe(1);
    expect(decoded.samples).toEqual(samples);
  });

  it('writes and reads files', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wav-'));
    const path = join(dir, 'tone.wav');
    const samples = generateTone({ frequencyHz: 1000, sampleRateHz: 8000 }, 8000);
    await writeWavFile(path, samples, 8000);
    const read = await readWavFile(path);
    expect(read.samples).toEqual(samples);
    expect(read.samples.length / read.sampleRateHz).toBe(1);
  });

  it('mixes several channels down to mono', () => {
    expect(decodeWav(header({ channels: 2 }, [100, 300, -50, -150])).samples).toEqual(
      Int16Array.of(200, -100),
    );
  });

  it('skips unknown chunks', () => {
    const plain = encodeWav(Int16Array.of(1, 2, 3), 8000);
    const withList = new Uint8Array(plain.length + 10);
    withList.set(plain.subarray(0, 36), 0);
    withList.set(new TextEncoder().encode('LIST'), 36);
    new DataView(withList.buffer).setUint32(40, 1, true);
    // One byte of body plus one of padding.
    withList.set(plain.subarray(36), 46);
    expect(decodeWav(withList).samples).toEqual(Int16Array.of(1, 2, 3));
  });

  it('decodes G.711 µ-law (format 7, 8 bits a sample) to linear PCM', () => {
    const tone = generateTone({ frequencyHz: 440, sampleRateHz: 8000, dbfs: -6 }, 800);
    const codes = encodeMuLaw(tone);
    const bytes = header({ format: 7, bits: 8 }, []);
    const file = new Uint8Array(bytes.length + codes.length);
    file.set(bytes, 0);
    file.set(codes, bytes.length);
    new DataView(file.buffer).setUint32(40, codes.length, true);
    const decoded = decodeWav(file);
    expect(decoded.sampleRateHz).toBe(8000);
    expect(decoded.samples).toEqual(decodeMuLaw(codes));
    // µ-law keeps a tone within a few percent of its linear value.
    const worst = Math.max(...tone.map((v, i) => Math.abs(v - (decoded.samples[i] ?? 0))));
    expect(worst).toBeLessThan(1100);
  });

  it.each([
    ['not RIFF', new TextEncoder().encode('hello world, not a wav file at all...'), /RIFF\/WAVE/],
    ['8-bit', header({ bits: 8 }, [0]), /16-bit/],
    ['µ-law with 16-bit samples', header({ format: 7 }, [0]), /µ-law WAV file: 16 bits/],
    ['A-law encoded', header({ format: 6, bits: 8 }, [0]), /linear PCM and µ-law/],
    ['truncated before data', header({}, []).subarray(0, 36), /no data chunk/],
  ])('rejects a file that is %s', async (_name, bytes, message) => {
    expect(() => decodeWav(bytes)).toThrow(WavFormatError);
    expect(() => decodeWav(bytes)).toThrow(message);
    dir = await mkdtemp(join(tmpdir(), 'wav-'));
    await writeFile(join(dir, 'bad.wav'), bytes);
    await expect(readWavFile(join(dir, 'bad.wav'))).rejects.toThrow(WavFormatError);
  });
});
