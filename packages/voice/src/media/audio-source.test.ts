import { describe, expect, it } from 'vitest';
import { SAMPLES_PER_FRAME } from '../constants';
import { EchoSource } from './audio-source';

/** A frame whose every sample is `value`. */
const frame = (value: number): Int16Array => new Int16Array(SAMPLES_PER_FRAME).fill(value);

/**
 * One mixer frame as the room runs it: the party speaks first, then hears `heard`. Returns the
 * first sample of what it said.
 */
function tick(echo: EchoSource, heard: number): number {
  const said = echo.fill(new Int16Array(SAMPLES_PER_FRAME));
  echo.hear(frame(heard));
  return said[0]!;
}

describe('EchoSource', () => {
  it.each([
    // delay (ms), frames of silence before the first frame heard comes back
    [0, 1],
    [20, 2],
    [200, 11],
    [210, 12],
  ])('with a %i ms delay, plays back what it heard after %i frames', (delayMs, silentFrames) => {
    const echo = new EchoSource(delayMs);
    // Frame n hears the value n + 1 (never 0, so silence is told apart).
    const said = Array.from({ length: silentFrames + 5 }, (_, n) => tick(echo, n + 1));
    expect(said.slice(0, silentFrames)).toEqual(new Array<number>(silentFrames).fill(0));
    expect(said.slice(silentFrames)).toEqual([1, 2, 3, 4, 5]);
  });

  it('plays back exactly the samples it heard, and never ends', () => {
    const echo = new EchoSource(0);
    const heard = Int16Array.from({ length: SAMPLES_PER_FRAME }, (_, i) => i * 100 - 8000);
    echo.fill(new Int16Array(SAMPLES_PER_FRAME));
    echo.hear(heard);
    expect(echo.fill(new Int16Array(SAMPLES_PER_FRAME))).toEqual(heard);
    expect(echo.ended).toBe(false);
  });

  it('keeps no more than its delay when it hears more than it is asked to say', () => {
    const echo = new EchoSource(40);
    for (let n = 1; n <= 10; n++) echo.hear(frame(n));
    // Three frames kept (the delay of two, plus the one of this tick): 8, 9, 10.
    const said = [1, 2, 3, 4].map(() => echo.fill(new Int16Array(SAMPLES_PER_FRAME))[0]);
    expect(said).toEqual([8, 0, 0, 0]);
  });
});
