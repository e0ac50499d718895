import { describe, expect, it } from 'vitest';
import { JitterBuffer } from './jitter-buffer';

/** A 160-sample frame whose samples are all `value` (frames are told apart by value). */
const frame = (value: number, samples = 160): Int16Array => new Int16Array(samples).fill(value);

function pull(buffer: JitterBuffer): number | undefined {
  const out = new Int16Array(160);
  return buffer.pull(out) ? out[0] : undefined;
}

describe('JitterBuffer', () => {
  it('plays nothing until the target depth is buffered, then frames in order', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    expect(pull(buffer)).toBeUndefined();
    buffer.push(1000, frame(1));
    expect(pull(buffer)).toBeUndefined();
    buffer.push(1160, frame(2));
    expect(pull(buffer)).toBe(1);
    buffer.push(1320, frame(3));
    expect(pull(buffer)).toBe(2);
    expect(pull(buffer)).toBe(3);
  });

  it('reorders packets by timestamp', () => {
    const buffer = new JitterBuffer({ targetFrames: 3 });
    buffer.push(0, frame(1));
    buffer.push(320, frame(3));
    buffer.push(160, frame(2));
    expect([pull(buffer), pull(buffer), pull(buffer)]).toEqual([1, 2, 3]);
  });

  it('plays a lost packet as silence and keeps the timing', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    buffer.push(0, frame(1));
    buffer.push(320, frame(3));
    expect([pull(buffer), pull(buffer), pull(buffer)]).toEqual([1, 0, 3]);
  });

  it('drops packets that arrive after their time', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    buffer.push(0, frame(1));
    buffer.push(160, frame(2));
    expect(pull(buffer)).toBe(1);
    buffer.push(0, frame(9));
    expect(pull(buffer)).toBe(2);
    expect(buffer.bufferedSamples).toBe(0);
  });

  it('after an underrun re-buffers and re-anchors, so a pause adds no latency', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    buffer.push(0, frame(1));
    buffer.push(160, frame(2));
    expect([pull(buffer), pull(buffer), pull(buffer)]).toEqual([1, 2, undefined]);
    // The sender paused for a second, then resumed.
    buffer.push(8320, frame(4));
    expect(pull(buffer)).toBeUndefined();
    buffer.push(8480, frame(5));
    expect([pull(buffer), pull(buffer)]).toEqual([4, 5]);
  });

  it('skips the oldest audio when more than the maximum piles up', () => {
    const buffer = new JitterBuffer({ targetFrames: 2, maxFrames: 4 });
    for (let i = 0; i < 5; i++) buffer.push(i * 160, frame(i + 1));
    // Five frames exceed the maximum of four: it drops back to the target depth (frames 4 and 5).
    expect(buffer.bufferedSamples).toBe(2 * 160);
    buffer.push(5 * 160, frame(6));
    expect([pull(buffer), pull(buffer), pull(buffer), pull(buffer)]).toEqual([4, 5, 6, undefined]);
  });

  it('handles RTP timestamps wrapping around 2^32', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    buffer.push(0xffff_ff00, frame(1));
    buffer.push((0xffff_ff00 + 160) >>> 0, frame(2));
    buffer.push((0xffff_ff00 + 320) >>> 0, frame(3));
    expect([pull(buffer), pull(buffer), pull(buffer)]).toEqual([1, 2, 3]);
  });

  it('starts over when the stream restarts far in the past or future', () => {
    const buffer = new JitterBuffer({ targetFrames: 1 });
    buffer.push(100_000, frame(1));
    expect(pull(buffer)).toBe(1);
    buffer.push(5, frame(2));
    expect(pull(buffer)).toBe(2);
    buffer.push(5_000_000, frame(3));
    expect(pull(buffer)).toBe(3);
  });

  it('assembles frames from packets of other sizes', () => {
    const buffer = new JitterBuffer({ targetFrames: 1 });
    buffer.push(0, frame(1, 80));
    buffer.push(80, frame(2, 80));
    const out = new Int16Array(160);
    expect(buffer.pull(out)).toBe(true);
    expect(out.slice(0, 80).every((sample) => sample === 1)).toBe(true);
    expect(out.slice(80).every((sample) => sample === 2)).toBe(true);
  });
});
