/**
 * ICE restarts and media interruptions on real legs: the worker engine from sources, a werift
 * peer playing the browser, on loopback. Audio is checked by listening on both sides.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { readWavFile } from '../dsp/wav';
import { between, tonesIn } from '../testing/audio-checks';
import type { MediaEvent } from './media-engine';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function waitFor<T extends MediaEvent>(
  events: MediaEvent[],
  test: (event: MediaEvent) => event is T,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const found = events.find(test);
      if (found) resolve(found);
      else if (Date.now() > until)
        reject(new Error(`event not seen; got ${JSON.stringify(events)}`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

const isEvent =
  <K extends MediaEvent['type']>(type: K, participantId: string) =>
  (event: MediaEvent): event is Extract<MediaEvent, { type: K }> =>
    event.type === type && 'participantId' in event && event.participantId === participantId;

/** Waits until `browser` has heard `seconds` more audio, and returns that audio. */
async function listen(browser: WeriftBrowser, seconds: number): Promise<Int16Array> {
  const from = browser.heardSamples;
  const until = Date.now() + 20_000;
  while (browser.heardSamples - from < seconds * SAMPLE_RATE_HZ && Date.now() < until)
    await sleep(50);
  return browser.heard(from);
}

const ufrag = (sdp: string): string | undefined => /^a=ice-ufrag:(\S+)/m.exec(sdp)?.[1];

describe('renegotiation and interruptions of a live leg', () => {
  let dir: string;
  let engine: WorkerMediaEngine;
  const events: MediaEvent[] = [];
  const warnings: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-renegotiation-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      answerDelayMs: 200,
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    engine.subscribe((event) => events.push(event));
    await engine.start();
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['the engine offered (an incoming call)', 'offer'],
    ['the client offered (an outgoing call)', 'answer'],
  ] as const)(
    'an ICE restart of a leg where %s keeps audio flowing both ways',
    async (_name, side) => {
      const room = `room-${side}`;
      const agent = `agent-${side}`;
      const phone = `phone-${side}`;
      const browser = new WeriftBrowser({ toneHz: 1000 });
      try {
        if (side === 'offer') {
          const offer = await engine.createOfferLeg(room, agent);
          await engine.acceptAnswer(agent, await browser.answer(offer));
        } else {
          const answer = await engine.createAnswerLeg(room, agent, await browser.createOffer());
          await browser.acceptAnswer(answer);
        }
        await waitFor(events, isEvent('leg.connected', agent));
        engine.dial(room, phone, '+15550100042');
        await waitFor(events, isEvent('party.answered', phone));
        expect(tonesIn(await listen(browser, 1), [440], 0.5)).toEqual([440]);

        // Same credentials (a reconnect whose media never broke): nothing is applied, the
        // engine's SDP comes back as it was.
        const oldSdp = browser.currentSdp;
        const unchanged = await engine.renegotiate(agent, oldSdp);
        expect(unchanged).toMatch(/^v=0/);
        const restartOffer = await browser.restartIce();
        expect(ufrag(restartOffer)).not.toBe(ufrag(oldSdp));
        const answer = await engine.renegotiate(agent, restartOffer);
        expect(ufrag(answer)).toBeDefined();
        expect(ufrag(answer)).not.toBe(ufrag(unchanged));
        expect(answer).toMatch(/a=candidate:.* 127\.0\.0\.1 \d+ typ host/);
        await browser.acceptAnswer(answer);
        await sleep(1500);
        expect(tonesIn(await listen(browser, 1.5), [440], 0.5)).toEqual([440]);
        expect(browser.peer.connectionState).toBe('connected');

        engine.remove(phone);
        const recorded = await waitFor(events, isEvent('party.recorded', phone));
        const heardByLead = (await readWavFile(recorded.path)).samples;
        // The lead heard the agent after the restart too (its last second).
        expect(
          tonesIn(between(heardByLead, recorded.seconds - 1, recorded.seconds), [1000], 0.5),
        ).toEqual([1000]);
        expect(events.some((event) => event.type === 'leg.failed')).toBe(false);
      } finally {
        engine.closeRoom(room);
        await browser.close();
      }
    },
    60_000,
  );

  it('interruptMedia: the client hears nothing while the leg is cut off, then audio returns', async () => {
    const browser = new WeriftBrowser({ toneHz: 1000 });
    try {
      await engine.acceptAnswer(
        'agent-cut',
        await browser.answer(await engine.createOfferLeg('room-cut', 'agent-cut')),
      );
      await waitFor(events, isEvent('leg.connected', 'agent-cut'));
      engine.dial('room-cut', 'phone-cut', '+15550100042');
      await waitFor(events, isEvent('party.answered', 'phone-cut'));
      await listen(browser, 0.5);
      const heardBefore = browser.heardSamples;
      engine.interruptMedia('agent-cut', 2000);
      await sleep(1500);
      // Nothing arrived for most of the cut (packets in flight when it began aside).
      expect(browser.heardSamples - heardBefore).toBeLessThan(0.3 * SAMPLE_RATE_HZ);
      await sleep(1000);
      expect(tonesIn(await listen(browser, 1), [440], 0.5)).toEqual([440]);
      expect(events.some((event) => event.type === 'leg.failed')).toBe(false);
    } finally {
      engine.closeRoom('room-cut');
      await browser.close();
    }
  }, 60_000);

  it('refuses to renegotiate a leg that is not negotiated yet, and ignores one that has gone', async () => {
    await engine.createOfferLeg('room-early', 'agent-early');
    await expect(engine.renegotiate('agent-early', 'v=0')).rejects.toMatchObject({
      name: 'IllegalTransition',
    });
    engine.closeRoom('room-early');
    await expect(engine.renegotiate('agent-early', 'v=0')).resolves.toBe('');
  });

  it('reported no warnings', () => {
    expect(warnings).toEqual([]);
  });
});
