import { describe, expect, it } from 'vitest';
import { decodeWav, toneShare } from '@leadline/voice/dsp';
import { makeSounds, SOUND_NAMES, soundUrls } from './sounds';

/** Each frequency's share of the sound's power (two tones of one level: about 0.5 each). */
function shares(
  wav: Uint8Array,
  hz: number[],
  firstSeconds = Infinity,
): { shares: number[]; seconds: number } {
  const { samples, sampleRateHz } = decodeWav(wav);
  const part = samples.subarray(0, Math.min(samples.length, firstSeconds * sampleRateHz));
  return {
    shares: hz.map((f) => toneShare(part, f, sampleRateHz)),
    seconds: samples.length / sampleRateHz,
  };
}

describe('the softphone sounds', () => {
  const sounds = makeSounds();

  it('has every sound of the official SDK, as URLs on the product', () => {
    expect([...sounds.keys()]).toEqual([...SOUND_NAMES]);
    expect(soundUrls().dtmfh).toBe('/sounds/dtmfh.wav');
    expect(Object.keys(soundUrls())).toHaveLength(15);
  });

  it.each([
    ['dtmf1', 697, 1209],
    ['dtmf5', 770, 1336],
    ['dtmf9', 852, 1477],
    ['dtmf0', 941, 1336],
    ['dtmfs', 941, 1209],
    ['dtmfh', 941, 1477],
  ] as const)('%s is the dual tone %i + %i Hz, short', (name, low, high) => {
    const { shares: share, seconds } = shares(sounds.get(name)!, [low, high, 1000]);
    expect(share[0]).toBeGreaterThan(0.3);
    expect(share[1]).toBeGreaterThan(0.3);
    expect(share[2]).toBeLessThan(0.001);
    expect(seconds).toBeLessThan(1);
  });

  it('incoming is a 440 + 480 Hz ring, 2 s on and 4 s off; the cues are short', () => {
    const { shares: share, seconds } = shares(sounds.get('incoming')!, [440, 480, 1000], 2);
    expect(share[0]).toBeGreaterThan(0.3);
    expect(share[1]).toBeGreaterThan(0.3);
    expect(share[2]).toBeLessThan(0.001);
    expect(seconds).toBeCloseTo(6, 1);
    // …and silent for the other 4 s.
    const { samples, sampleRateHz } = decodeWav(sounds.get('incoming')!);
    expect(samples.subarray(2 * sampleRateHz + 1).every((v) => v === 0)).toBe(true);
    for (const name of ['outgoing', 'disconnect'] as const) {
      expect(shares(sounds.get(name)!, []).seconds).toBeLessThan(1);
    }
  });
});
