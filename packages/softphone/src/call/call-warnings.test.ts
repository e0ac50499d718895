import { describe, expect, it } from 'vitest';
import { fakeEnvironment, type FakeEnvironment } from '../testing/fake-platform';
import { advance, openCall } from '../testing/scenarios';
import type { Call } from './call';

/** Spec section 9: volume polling every 50 ms; warnings from 5000 ms; cleared after 5000 ms. */
const POLL_MS = 50;
const WARNINGS_AFTER_MS = 5_000;
const CLEARS_AFTER_MS = 5_000;

/** A microphone that plays a tone: the level read moves a little from one reading to the next. */
const tone = (reading: number) => 0.17 + (reading % 3) * 0.004;
const silence = () => 0;

/** An open call whose microphone reads `level`, and its `warning` / `warning-cleared` log. */
async function callWithMicrophone(
  env: FakeEnvironment,
  level: (reading: number) => number,
): Promise<{ call: Call; log: string[]; speak: typeof speak }> {
  let reading = 0;
  let current = level;
  const { call } = await openCall(env);
  const log: string[] = [];
  call.on('warning', (name) => log.push(`warning ${name} at ${env.clock.now() - openedAt}`));
  call.on('warning-cleared', (name) =>
    log.push(`cleared ${name} at ${env.clock.now() - openedAt}`),
  );
  const openedAt = env.clock.now();
  /** Moves time `ms` in volume polls, the microphone reading `next` from now on. */
  async function speak(ms: number, next = current): Promise<void> {
    current = next;
    for (let left = ms; left > 0; left -= POLL_MS) {
      env.levels[0] = current(reading++);
      env.levels[1] = tone(reading);
      await advance(env, POLL_MS, {}, POLL_MS);
    }
  }
  return { call, log, speak };
}

const inputWarnings = (log: string[]) =>
  log.filter((l) => l.includes('constant-audio-input-level'));

describe('constant-audio-input-level (the microphone reads the same level 10 times running)', () => {
  it('a microphone playing a steady tone never raises it', async () => {
    const env = fakeEnvironment();
    const { log, speak } = await callWithMicrophone(env, tone);
    await speak(20_000);
    expect(inputWarnings(log)).toEqual([]);
  });

  it(`a silent microphone raises it once, only from ${WARNINGS_AFTER_MS} ms into the call`, async () => {
    const env = fakeEnvironment();
    const { log, speak } = await callWithMicrophone(env, silence);
    await speak(WARNINGS_AFTER_MS - POLL_MS);
    expect(inputWarnings(log)).toEqual([]);
    await speak(2 * POLL_MS);
    expect(inputWarnings(log)).toEqual([
      expect.stringMatching(/^warning constant-audio-input-level at 50\d\d$/),
    ]);
    await speak(10_000);
    expect(inputWarnings(log)).toHaveLength(1);
  });

  it('a microphone silent at the start of the call only (warming up) raises nothing', async () => {
    const env = fakeEnvironment();
    const { log, speak } = await callWithMicrophone(env, silence);
    await speak(3_000);
    await speak(10_000, tone);
    expect(inputWarnings(log)).toEqual([]);
  });

  it(`clears once the readings have changed for ${CLEARS_AFTER_MS} ms; silent again meanwhile, it waits again`, async () => {
    const env = fakeEnvironment();
    const { log, speak } = await callWithMicrophone(env, tone);
    await speak(6_000, silence);
    expect(inputWarnings(log)).toHaveLength(1);
    // Sound for 3 s, then a pause of a second: still raised, and the 5 s start again.
    await speak(3_000, tone);
    await speak(1_000, silence);
    await speak(CLEARS_AFTER_MS - 2 * POLL_MS, tone);
    expect(inputWarnings(log)).toHaveLength(1);
    await speak(3 * POLL_MS);
    expect(inputWarnings(log)).toEqual([
      expect.stringMatching(/^warning constant-audio-input-level/),
      expect.stringMatching(/^cleared constant-audio-input-level/),
    ]);
  });

  it('not while muted: muting clears it at once; still silent once unmuted, it is raised again', async () => {
    const env = fakeEnvironment();
    const { call, log, speak } = await callWithMicrophone(env, tone);
    await speak(6_000, silence);
    call.mute(true);
    await speak(2 * POLL_MS);
    expect(inputWarnings(log).map((l) => l.split(' at ')[0])).toEqual([
      'warning constant-audio-input-level',
      'cleared constant-audio-input-level',
    ]);
    await speak(5_000);
    expect(inputWarnings(log)).toHaveLength(2);
    call.mute(false);
    await speak(2 * POLL_MS);
    expect(inputWarnings(log)).toHaveLength(3);
    expect(inputWarnings(log)[2]).toMatch(/^warning constant-audio-input-level/);
  });
});

describe(`volume polling (spec §9: every ${POLL_MS} ms)`, () => {
  it(`reads both meters and emits 'volume' every ${POLL_MS} ms while the call is open`, async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    const volumes: Array<[number, number, number]> = [];
    call.on('volume', (input, output) => volumes.push([env.clock.now(), input, output]));
    const openedAt = env.clock.now();
    env.levels = [0.3, 0.6];
    env.clock.tick(POLL_MS - 1);
    expect(volumes).toEqual([]);
    env.clock.tick(1);
    expect(volumes).toEqual([[openedAt + POLL_MS, 0.3, 0.6]]);
    env.levels = [0.1, 0.2];
    env.clock.tick(POLL_MS - 1);
    expect(volumes).toHaveLength(1);
    env.clock.tick(1);
    expect(volumes.at(-1)).toEqual([openedAt + 2 * POLL_MS, 0.1, 0.2]);
    call.disconnect();
    env.clock.tick(10 * POLL_MS);
    expect(volumes).toHaveLength(2);
  });
});
