/**
 * Offers made ahead of time (`MediaCore.createOfferLeg`): after the first offer the core keeps
 * a few legs ready; a leg taken from them joins its room under the participant's id and carries
 * audio both ways like one made on demand. Real werift legs on loopback, checked by listening.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultAssetsDir } from '../pstn/clips';
import { hasTone } from '../testing/audio-checks';
import { heardWindow, MediaEventLog } from '../testing/media-waits';
import { FakeClock } from '../testing/fake-clock';
import { MediaCore, OFFER_POOL_LOW_WATER, OFFER_REFILL_QUIET_MS } from './media-core';
import { WeriftBrowser } from './werift-browser';

describe('offers made ahead of time', () => {
  let dir: string;
  let core: MediaCore;
  let log: MediaEventLog;
  let warnings: string[];
  const browsers: WeriftBrowser[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-offer-pool-'));
    log = new MediaEventLog();
    warnings = [];
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      recordingsDir: join(dir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 100,
      offerPoolSize: 2,
      emit: log.listener,
      warn: (message) => warnings.push(message),
    });
    await core.start();
  });

  afterEach(async () => {
    for (const browser of browsers.splice(0)) await browser.close();
    await core.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  /** A browser answering the core's offer for `participantId` in `roomId`. */
  async function connect(roomId: string, participantId: string, toneHz: number) {
    const browser = new WeriftBrowser({ toneHz });
    browsers.push(browser);
    const offer = await core.createOfferLeg(roomId, participantId);
    await core.acceptAnswer(participantId, await browser.answer(offer));
    await log.next('leg.connected', participantId);
    return { browser, offer };
  }

  it('none is made before an offer is asked for; after it, legs wait ready and serve the next offers, which carry audio both ways', async () => {
    expect(core.readyOfferCount).toBe(0);
    const first = await connect('room-1', 'agent-a', 700);
    await vi.waitFor(() => expect(core.readyOfferCount).toBe(2), { timeout: 20_000, interval: 20 });
    expect(core.size.participants).toBe(1);

    // Taken from the ready legs: a different ICE user fragment from the first, in room-1.
    const second = await connect('room-1', 'agent-b', 1300);
    expect(second.offer).not.toBe(first.offer);
    expect(second.offer).toMatch(/a=candidate:.* 127\.0\.0\.1 \d+ typ host/);
    expect(log.of('leg.connected', 'agent-b')[0]).toMatchObject({ roomId: 'room-1' });
    expect(core.size.participants).toBe(2);

    const fromA = first.browser.heardSamples;
    const fromB = second.browser.heardSamples;
    await heardWindow(second.browser, fromB, (w) => hasTone(w, 700, 0.3), 'agent a at 700 Hz');
    await heardWindow(first.browser, fromA, (w) => hasTone(w, 1300, 0.3), 'agent b at 1300 Hz');
    // Refilled behind the one taken.
    await vi.waitFor(() => expect(core.readyOfferCount).toBe(2), { timeout: 20_000, interval: 20 });
    expect(warnings).toEqual([]);
  }, 60_000);

  it('a participant id in use is refused before a ready leg is spent', async () => {
    await connect('room-2', 'agent-c', 700);
    await vi.waitFor(() => expect(core.readyOfferCount).toBe(2), { timeout: 20_000, interval: 20 });
    await expect(core.createOfferLeg('room-2', 'agent-c')).rejects.toMatchObject({
      name: 'ParticipantExists',
    });
    expect(core.readyOfferCount).toBe(2);
  }, 60_000);

  it('prepareOffers fills the pool before any offer is asked; a burst of rings refills it only to the low water, the rest once rings pause', async () => {
    const clock = new FakeClock(1_000);
    const size = OFFER_POOL_LOW_WATER + 3;
    const paced = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox-paced'),
      recordingsDir: join(dir, 'recordings-paced'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 100,
      offerPoolSize: size,
      clock,
      scheduler: clock,
      emit: log.listener,
      warn: (message) => warnings.push(message),
    });
    await paced.start();
    /** Runs the due timers and lets werift finish what they started, until `done`. */
    const until = (done: () => boolean) =>
      vi.waitFor(
        async () => {
          clock.advance(0);
          await paced.settled();
          expect(done()).toBe(true);
        },
        { timeout: 20_000, interval: 10 },
      );
    try {
      clock.advance(0);
      await paced.settled();
      expect(paced.readyOfferCount).toBe(0);
      paced.prepareOffers();
      await until(() => paced.readyOfferCount === size);

      // A burst: four rings at once take four ready legs.
      for (const id of ['a', 'b', 'c', 'd']) await paced.createOfferLeg(`room-${id}`, id);
      expect(paced.readyOfferCount).toBe(size - 4);
      // Below the low water: made again at once, up to it and no further while rings are recent.
      await until(() => paced.readyOfferCount === OFFER_POOL_LOW_WATER);
      for (let turn = 0; turn < 5; turn++) {
        clock.advance(0);
        await paced.settled();
      }
      clock.advance(OFFER_REFILL_QUIET_MS - 1);
      await paced.settled();
      expect(paced.readyOfferCount).toBe(OFFER_POOL_LOW_WATER);
      // Quiet for long enough: the rest is made.
      clock.advance(1);
      await until(() => paced.readyOfferCount === size);
      expect(warnings).toEqual([]);
    } finally {
      await paced.shutdown();
    }
  }, 60_000);
});
