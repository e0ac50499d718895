import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateTone } from './tone';
import { encodeWav, readWavFile } from './wav';
import { WavFileWriter } from './wav-writer';

describe('WavFileWriter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wav-writer-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes the same bytes as encodeWav, frame by frame across several flushes', async () => {
    const tone = generateTone({ frequencyHz: 440, sampleRateHz: 8000 }, 8000 * 2 + 480);
    const writer = new WavFileWriter(join(dir, 'a.wav'), 8000);
    for (let i = 0; i < tone.length; i += 160) writer.append(tone.subarray(i, i + 160));
    expect(writer.sampleCount).toBe(tone.length);
    await expect(writer.close()).resolves.toBeCloseTo(2.06, 5);
    expect(new Uint8Array(await readFile(join(dir, 'a.wav')))).toEqual(encodeWav(tone, 8000));
  });

  it('copies frames (callers reuse theirs), ignores appends after close, and closes twice', async () => {
    const writer = new WavFileWriter(join(dir, 'b.wav'), 8000);
    const frame = new Int16Array(160).fill(7);
    writer.append(frame);
    frame.fill(-3);
    writer.append(frame);
    await writer.close();
    writer.append(frame);
    await expect(writer.close()).resolves.toBeCloseTo(0.04, 5);
    const wav = await readWavFile(join(dir, 'b.wav'));
    expect([...wav.samples.subarray(0, 2), ...wav.samples.subarray(160, 162)]).toEqual([
      7, 7, -3, -3,
    ]);
    expect(wav.samples).toHaveLength(320);
  });

  it('writes a valid empty file', async () => {
    const writer = new WavFileWriter(join(dir, 'c.wav'), 8000);
    await writer.close();
    expect((await readWavFile(join(dir, 'c.wav'))).samples).toHaveLength(0);
  });

  it('reports a file it cannot write when it closes, and never throws before', async () => {
    const writer = new WavFileWriter(join(dir, 'no-such-dir', 'd.wav'), 8000);
    writer.append(new Int16Array(9000));
    await expect(writer.close()).rejects.toThrow(/ENOENT/);
  });
});
