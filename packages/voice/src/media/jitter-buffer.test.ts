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

describe('JitterBuffer converging back to its target depth', () => {
  /**
   * Target two frames (held there: adapting is tested below), trimmed once the depth stayed ≥ 3
   * frames for a window of 5 pulls.
   */
  const options = {
    targetFrames: 2,
    minTargetFrames: 2,
    maxTargetFrames: 2,
    marginFrames: 1,
    settleFrames: 5,
  };
  const LOUD = 1000;

  /**
   * A sender of one 160-sample frame per 20 ms tick and the mixer pulling once per tick, the
   * tick count as the clock. Frame `n` has RTP timestamp `n * 160` and the value `value(n)`.
   */
  function call(buffer: JitterBuffer, value: (n: number) => number) {
    let sent = 0;
    const heard: Array<number | undefined> = [];
    /** Frames held before each pull (the last tick's first). */
    const depths: number[] = [];
    return {
      heard,
      depths,
      send(frames: number): void {
        for (let i = 0; i < frames; i++, sent++) buffer.push(sent * 160, frame(value(sent)));
      },
      /** `ticks` ticks of one frame sent, then one pulled. */
      run(ticks: number): void {
        for (let tick = 0; tick < ticks; tick++) {
          this.send(1);
          depths.push(buffer.bufferedSamples / 160);
          heard.push(pull(buffer));
        }
      },
    };
  }

  it('drops the quiet frames of a burst of extra frames, back to the target within two windows', () => {
    const buffer = new JitterBuffer(options);
    // Tone bursts: four loud frames, four quiet ones, and so on.
    const value = (n: number) => (Math.floor(n / 4) % 2 === 0 ? LOUD + n : n % 100);
    const stream = call(buffer, value);
    // Late packets released at once: nine frames held at the first pull, seven beyond the target.
    stream.send(8);
    stream.run(40);
    // A window (5 pulls) sees the excess; then the quiet frames 4 to 7 go at once, the loud ones
    // play, and the quiet frames 12 to 14 go: from the tenth pull on it holds the target.
    expect(stream.depths.slice(0, 10)).toEqual([9, 9, 9, 9, 9, 5, 5, 5, 5, 2]);
    expect(stream.depths.slice(9)).toEqual(new Array<number>(31).fill(2));
    // No loud frame was dropped: every one sent up to the last heard was heard, in order.
    const loudHeard = stream.heard.filter((v): v is number => v !== undefined && v >= LOUD);
    const lastLoud = Math.max(...loudHeard) - LOUD;
    const loudSent = Array.from({ length: lastLoud + 1 }, (_, n) => value(n)).filter(
      (v) => v >= LOUD,
    );
    expect(loudHeard).toEqual(loudSent);
  });

  it('drops the oldest excess at once when no quiet frame comes within the second window', () => {
    const buffer = new JitterBuffer(options);
    const stream = call(buffer, (n) => LOUD + n);
    stream.send(7);
    stream.run(30);
    // Held 8 (7 + this tick's) at the first pull, 5 of them beyond the target and its margin.
    expect(stream.depths[0]).toBe(8);
    expect(stream.depths.slice(9)).toEqual(new Array<number>(21).fill(2));
    // A window (5 pulls) to see the excess, a second to wait for quiet frames, then the six
    // oldest beyond the target (frames 8 to 13) go at once.
    expect(stream.heard.slice(6, 10)).toEqual([LOUD + 6, LOUD + 7, LOUD + 14, LOUD + 15]);
  });

  it('trims nothing while the depth keeps dipping to the target (jitter needs it)', () => {
    const buffer = new JitterBuffer(options);
    const stream = call(buffer, (n) => LOUD + n);
    stream.send(1);
    // Packets in pairs every other tick: the depth at a pull swings between 3 and 2 frames.
    for (let tick = 0; tick < 40; tick++) {
      if (tick % 2 === 0) stream.send(2);
      stream.depths.push(buffer.bufferedSamples / 160);
      stream.heard.push(pull(buffer));
    }
    expect(Math.min(...stream.depths)).toBe(2);
    expect(stream.heard).toEqual(Array.from({ length: 40 }, (_, n) => LOUD + n));
  });

  it('drops the frames of ticks the mixer skipped, and their packets arriving late', () => {
    const buffer = new JitterBuffer(options);
    const stream = call(buffer, (n) => LOUD + n);
    stream.send(1);
    stream.run(4);
    expect(stream.heard).toEqual([LOUD, LOUD + 1, LOUD + 2, LOUD + 3]);
    // A stall: the mixer skips three ticks; the packets sent meanwhile come in after it.
    buffer.skipFrames(3);
    stream.send(3);
    stream.run(5);
    // Frames 4 to 6 were due in the skipped ticks; the next is heard with no added delay.
    expect(stream.heard.slice(4)).toEqual([LOUD + 7, LOUD + 8, LOUD + 9, LOUD + 10, LOUD + 11]);
    expect(stream.depths.slice(4)).toEqual([2, 2, 2, 2, 2]);
  });

  it('drops the frames of skipped ticks that had already arrived', () => {
    const buffer = new JitterBuffer(options);
    const stream = call(buffer, (n) => LOUD + n);
    stream.send(1);
    stream.run(3);
    // The packets of the stall arrive before the mixer skips its ticks.
    stream.send(3);
    buffer.skipFrames(3);
    stream.run(3);
    expect(stream.heard).toEqual([LOUD, LOUD + 1, LOUD + 2, LOUD + 6, LOUD + 7, LOUD + 8]);
  });
});

describe('JitterBuffer adapting its target to the jitter', () => {
  /**
   * Starts at two frames, between one and three; lowered after 2 clean windows of 5 pulls, a
   * wait that doubles at each raise up to 8 windows.
   */
  const options = {
    targetFrames: 2,
    minTargetFrames: 1,
    maxTargetFrames: 3,
    marginFrames: 1,
    settleFrames: 5,
    lowerWindows: 2,
    lowerMaxWindows: 8,
  };
  const QUIET = 7;

  /** One frame sent per tick (all quiet, so trimming may drop any), then one pulled. */
  function link(buffer: JitterBuffer) {
    let sent = 0;
    const depths: number[] = [];
    const heard: Array<number | undefined> = [];
    const tick = (arrivals: number) => {
      for (let i = 0; i < arrivals; i++, sent++) buffer.push(sent * 160, frame(QUIET));
      depths.push(buffer.bufferedSamples / 160);
      heard.push(pull(buffer));
    };
    return {
      depths,
      heard,
      /** `ticks` ticks of one packet each. */
      even(ticks: number) {
        for (let i = 0; i < ticks; i++) tick(1);
      },
      /** A packet `ticks` ticks late: that many ticks with none, then one with them all. */
      late(ticks = 1) {
        for (let i = 0; i < ticks; i++) tick(0);
        tick(ticks + 1);
      },
      /** Packets late until playout runs dry, then all of them at once. */
      dry() {
        let missed = 0;
        do {
          tick(0);
          missed++;
        } while (heard.at(-1) !== undefined);
        tick(missed + 1);
      },
      /** The sender pauses `frames` frames (their timestamps pass, nothing is sent). */
      pause(frames: number) {
        sent += frames;
        tick(0);
      },
      target: () => buffer.targetDepthSamples / 160,
    };
  }

  it('on an even link lowers its target to one frame: a packet plays at the first pull after it came', () => {
    const buffer = new JitterBuffer(options);
    const call = link(buffer);
    call.even(1);
    call.even(9);
    // Two clean windows (10 pulls) at the depth of two frames: the target goes down to one.
    expect(call.target()).toBe(2);
    call.even(1);
    expect(call.target()).toBe(1);
    // The next window trims the spare frame; from then on the depth at a pull is the packet
    // that just came.
    call.even(20);
    expect(call.depths.slice(-10)).toEqual(new Array<number>(10).fill(1));
    expect(call.target()).toBe(1);
    expect(call.heard.slice(-10).every((value) => value === QUIET)).toBe(true);
  });

  it('one late packet costs a gap; a second soon after raises the target a frame, and soon after a lowering doubles the wait before it is lowered again', () => {
    const buffer = new JitterBuffer(options);
    const call = link(buffer);
    call.even(11);
    expect(call.target()).toBe(1);
    call.dry();
    expect(call.heard.at(-2)).toBeUndefined();
    expect(call.target()).toBe(1);
    call.even(3);
    call.dry();
    expect(call.target()).toBe(2);
    // Clean again: after two windows it would have lowered before; now it waits four.
    call.even(15);
    expect(call.target()).toBe(2);
    call.even(10);
    expect(call.target()).toBe(1);
    // Lateness that keeps running playout dry raises it up to its most, no further.
    for (let i = 0; i < 6; i++) call.dry();
    expect(call.target()).toBe(3);
  });

  it('late packets long after the target was lowered raise it and the wait starts over', () => {
    const buffer = new JitterBuffer(options);
    const call = link(buffer);
    call.even(11);
    expect(call.target()).toBe(1);
    // Six windows later: the link changed rather than the lowering being wrong.
    call.even(30);
    call.dry();
    call.dry();
    expect(call.target()).toBe(2);
    call.even(11);
    expect(call.target()).toBe(1);
  });

  it('a pause of the sender is not jitter: the target stays', () => {
    const buffer = new JitterBuffer(options);
    const call = link(buffer);
    call.even(30);
    expect(call.target()).toBe(1);
    call.pause(50);
    call.even(5);
    expect(call.target()).toBe(1);
    expect(call.heard.slice(-4).every((value) => value === QUIET)).toBe(true);
  });

  it('keeps the target while the jitter eats into it', () => {
    const buffer = new JitterBuffer(options);
    const call = link(buffer);
    call.even(2);
    // Packets in pairs every other tick, playout started on the second: the depth at a pull
    // swings between one and two frames, below the target of two on every other pull.
    for (let i = 0; i < 30; i++) call.late();
    expect(Math.min(...call.depths.slice(1))).toBe(1);
    expect(call.target()).toBe(2);
    expect(call.heard.slice(1).every((value) => value === QUIET)).toBe(true);
  });
});
