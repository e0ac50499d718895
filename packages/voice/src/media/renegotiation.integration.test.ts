/**
 * ICE restarts and media interruptions on real legs: the worker engine from sources, a werift
 * peer playing the browser, on loopback. Audio is checked by listening on both sides.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { readWavFile } from '../dsp/wav';
import { between, tonesIn } from '../testing/audio-checks';
import { listen, MediaEventLog } from '../testing/media-waits';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until an ICE restart of `browser` is through: its new ICE checks succeeded (it can send
 * again) and audio reaches it again.
 */
async function restarted(browser: WeriftBrowser): Promise<void> {
  await vi.waitFor(() => expect(browser.peer.iceConnectionState).toBe('connected'), {
    timeout: 20_000,
    interval: 20,
  });
  await listen(browser, 0.5);
}

const ufrag = (sdp: string): string | undefined => /^a=ice-ufrag:(\S+)/m.exec(sdp)?.[1];

describe('renegotiation and interruptions of a live leg', () => {
  let dir: string;
  let engine: WorkerMediaEngine;
  const log = new MediaEventLog();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-renegotiation-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      answerDelayMs: 200,
    });
    engine.subscribe(log.listener);
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
        await log.next('leg.connected', agent);
        engine.dial(room, phone, '+15550100042');
        await log.next('party.answered', phone);
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
        await restarted(browser);
        expect(tonesIn(await listen(browser, 1.5), [440], 0.5)).toEqual([440]);
        expect(browser.peer.connectionState).toBe('connected');

        engine.remove(phone);
        const recorded = await log.next('party.recorded', phone);
        const heardByLead = (await readWavFile(recorded.path)).samples;
        // The lead heard the agent after the restart too (its last second).
        expect(
          tonesIn(between(heardByLead, recorded.seconds - 1, recorded.seconds), [1000], 0.5),
        ).toEqual([1000]);
        expect(log.events.some((event) => event.type === 'leg.failed')).toBe(false);
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
      await log.next('leg.connected', 'agent-cut');
      engine.dial('room-cut', 'phone-cut', '+15550100042');
      await log.next('party.answered', 'phone-cut');
      await listen(browser, 0.5);
      const heardBefore = browser.heardSamples;
      engine.interruptMedia('agent-cut', 2000);
      await sleep(1500);
      // Nothing arrived for most of the cut (packets in flight when it began aside).
      expect(browser.heardSamples - heardBefore).toBeLessThan(0.3 * SAMPLE_RATE_HZ);
      // The cut ends: audio flows again before it is judged.
      await listen(browser, 0.5);
      expect(tonesIn(await listen(browser, 1), [440], 0.5)).toEqual([440]);
      expect(log.events.some((event) => event.type === 'leg.failed')).toBe(false);
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

  it('reports no warnings through a renegotiation, an ICE restart and a media cut, from start to close', async () => {
    const warnings: string[] = [];
    const quiet = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'quiet'),
      answerDelayMs: 200,
      logger: {
        warn: (message) => warnings.push(message),
        error: (message) => warnings.push(message),
      },
    });
    const events = new MediaEventLog();
    quiet.subscribe(events.listener);
    // The client offers (an outgoing call), as in the restarts above.
    const browser = new WeriftBrowser({ toneHz: 1000 });
    try {
      await quiet.start();
      await browser.acceptAnswer(
        await quiet.createAnswerLeg('room-quiet', 'quiet-agent', await browser.createOffer()),
      );
      await events.next('leg.connected', 'quiet-agent');
      quiet.dial('room-quiet', 'quiet-phone', '+15550100042');
      await events.next('party.answered', 'quiet-phone');
      await listen(browser, 0.5);
      // A reconnect whose media never broke (same credentials), then an ICE restart.
      await quiet.renegotiate('quiet-agent', browser.currentSdp);
      await browser.acceptAnswer(
        await quiet.renegotiate('quiet-agent', await browser.restartIce()),
      );
      await restarted(browser);
      // A media cut; audio comes back after it.
      quiet.interruptMedia('quiet-agent', 1000);
      await listen(browser, 1);
      // A renegotiation refused (the leg is not negotiated yet), and one of a leg that has gone.
      await quiet.createOfferLeg('room-early', 'quiet-early');
      await expect(quiet.renegotiate('quiet-early', 'v=0')).rejects.toMatchObject({
        name: 'IllegalTransition',
      });
      quiet.closeRoom('room-early');
      await expect(quiet.renegotiate('quiet-early', 'v=0')).resolves.toBe('');
      quiet.remove('quiet-phone');
      await events.next('party.recorded', 'quiet-phone');
      quiet.closeRoom('room-quiet');
    } finally {
      await browser.close();
      // Closing waits for the worker to stop: every warning it sent has arrived.
      await quiet.close();
    }
    expect(warnings).toEqual([]);
  }, 60_000);
});
