import { describe, expect, it } from 'vitest';
import { MEDIA_BACKOFF, MEDIA_SILENCE_MS } from '../constants';
import { Backoff } from '../lib/backoff';
import type { ReconnectContext, ReconnectPolicy } from '../lib/reconnect-policy';
import { StatsMonitor } from '../quality/stats-monitor';
import { fakeEnvironment } from '../testing/fake-platform';
import { flush } from '../testing/scenarios';
import { MediaReconnector, mediaReconnectPolicy } from './media-reconnector';
import { MediaSession } from './media-session';

/** A policy that hands out the given delays in turn and records what it was asked. */
function scriptedPolicy(delaysMs: Array<number | null>): ReconnectPolicy & {
  asked: ReconnectContext[];
} {
  const asked: ReconnectContext[] = [];
  return {
    asked,
    nextRetryDelayInMs: (context) => {
      asked.push({ ...context });
      return delaysMs[asked.length - 1] ?? null;
    },
  };
}

/** A reconnector over a fresh media session (no audio flows), with what it tells its call. */
function reconnectorUnderTest(policy: ReconnectPolicy) {
  const env = fakeEnvironment();
  const media = new MediaSession(env.platform, {});
  const monitor = new StatsMonitor(() => media.getStats(), env.clock);
  const log: string[] = [];
  const reconnector: MediaReconnector = new MediaReconnector({
    clock: env.clock,
    media,
    monitor,
    policy,
    host: {
      isLive: () => true,
      canSignal: () => true,
      sendOffer: () => log.push(`offer at ${env.clock.now()}`),
      lost: (error) => log.push(`lost ${error.code}`),
      restored: () => log.push('restored'),
      gaveUp: () => {
        // As the call does: it ends, and its reconnector stops.
        log.push(`gave up at ${env.clock.now()}`);
        reconnector.stop();
      },
    },
  });
  const tick = async (ms: number) => {
    env.clock.tick(ms);
    await flush();
  };
  return { env, reconnector, log, tick };
}

describe('MediaReconnector and its ReconnectPolicy', () => {
  it("waits the policy's delay before each ICE restart, and gives up when it says null", async () => {
    const policy = scriptedPolicy([700, 1_500, null]);
    const { env, reconnector, log, tick } = reconnectorUnderTest(policy);
    reconnector.failed();
    expect(log).toEqual(['lost 53405']);
    expect(policy.asked).toEqual([{ retryCount: 0, elapsedMs: 0 }]);

    await tick(699);
    expect(log).toEqual(['lost 53405']);
    await tick(1);
    expect(log).toEqual(['lost 53405', 'offer at 700']);
    expect(env.pc().offers).toEqual([{ iceRestart: true }]);

    // No answer within MEDIA_SILENCE_MS: the restart failed; the policy is asked again.
    await tick(MEDIA_SILENCE_MS);
    expect(policy.asked.at(-1)).toEqual({ retryCount: 1, elapsedMs: 700 + MEDIA_SILENCE_MS });
    await tick(1_499);
    expect(log).toEqual(['lost 53405', 'offer at 700']);
    await tick(1);
    expect(log).toEqual(['lost 53405', 'offer at 700', 'offer at 4200']);

    // The second restart fails too, and the policy says stop: no third restart.
    await tick(MEDIA_SILENCE_MS);
    expect(policy.asked.at(-1)).toEqual({ retryCount: 2, elapsedMs: 4_200 + MEDIA_SILENCE_MS });
    expect(log).toEqual(['lost 53405', 'offer at 700', 'offer at 4200', 'gave up at 6200']);
    await tick(60_000);
    expect(log).toHaveLength(4);
    expect(env.pc().offers).toHaveLength(2);
  });

  it('gives up at once when the policy allows no retry', async () => {
    const policy = scriptedPolicy([null]);
    const { env, reconnector, log, tick } = reconnectorUnderTest(policy);
    reconnector.failed();
    expect(log).toEqual(['lost 53405', 'gave up at 0']);
    await tick(60_000);
    expect(log).toHaveLength(2);
    expect(env.pc().offers).toEqual([]);
  });

  it("the default policy is the spec's back-off, delay for delay", () => {
    const policy = mediaReconnectPolicy(() => 0.25);
    const backoff = new Backoff(MEDIA_BACKOFF, () => 0.25);
    const asked = Array.from({ length: 120 }, (_, retryCount) =>
      policy.nextRetryDelayInMs({ retryCount, elapsedMs: 0 }),
    );
    expect(asked).toEqual(Array.from({ length: 120 }, () => backoff.next()));
  });
});
