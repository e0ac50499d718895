import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { dominantFrequency } from '../dsp/dominant-frequency';
import { readWavFile } from '../dsp/wav';
import { listen, MediaEventLog } from '../testing/media-waits';
import { MediaError } from './media-errors';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

describe('WorkerMediaEngine (worker thread from TypeScript sources, werift client on loopback)', () => {
  let sandboxDir: string;
  let engine: WorkerMediaEngine;
  const log = new MediaEventLog();

  beforeAll(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-media-'));
    engine = new WorkerMediaEngine({ iceAddresses: ['127.0.0.1'], sandboxDir, answerDelayMs: 300 });
    engine.subscribe(log.listener);
    await engine.start();
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    await rm(sandboxDir, { recursive: true, force: true });
  });

  it('engine offer, client answer: the client hears the sandbox tone and the party records the client', async () => {
    const browser = new WeriftBrowser({ toneHz: 1000 });
    try {
      const offer = await engine.createOfferLeg('room-offer', 'agent-1');
      expect(offer).toMatch(/a=candidate:.* 127\.0\.0\.1 \d+ typ host/);
      expect(offer).toMatch(/a=rtpmap:0 PCMU\/8000/);
      await engine.acceptAnswer('agent-1', await browser.answer(offer));
      await expect(log.next('leg.connected', 'agent-1')).resolves.toMatchObject({
        roomId: 'room-offer',
      });

      engine.dial('room-offer', 'phone-1', '+15550100042');
      await log.next('party.ringing', 'phone-1');
      await log.next('party.answered', 'phone-1');
      const heard = await listen(browser, 1.5);
      const heardHz = dominantFrequency(heard.subarray(heard.length / 3), SAMPLE_RATE_HZ);
      expect(Math.abs((heardHz ?? 0) - 440)).toBeLessThanOrEqual(20);

      engine.remove('phone-1');
      const recorded = await log.next('party.recorded', 'phone-1');
      expect(recorded.path).toBe(join(sandboxDir, 'phone-1.wav'));
      expect(recorded.seconds).toBeGreaterThan(1);
      const wav = await readWavFile(recorded.path);
      expect(wav.sampleRateHz).toBe(8000);
      expect(wav.channels).toBe(1);
      expect(wav.samples.length / wav.sampleRateHz).toBeCloseTo(recorded.seconds, 5);
      expect(
        Math.abs((dominantFrequency(wav.samples, wav.sampleRateHz) ?? 0) - 1000),
      ).toBeLessThanOrEqual(20);
    } finally {
      engine.closeRoom('room-offer');
      await browser.close();
    }
  }, 60_000);

  it('client offer (Chrome-like, telephone-event/48000 first), engine answer: audio both ways and DTMF', async () => {
    const browser = new WeriftBrowser({ toneHz: 1000 });
    try {
      const offer = await browser.createOffer(true);
      expect(offer).toContain('telephone-event/48000');
      const answer = await engine.createAnswerLeg('room-answer', 'agent-2', offer);
      expect(answer).toMatch(/a=candidate:.* 127\.0\.0\.1 \d+ typ host/);
      expect(answer).toMatch(/a=rtpmap:101 telephone-event\/8000/);
      expect(answer).not.toContain('telephone-event/48000');
      await browser.acceptAnswer(answer);
      await log.next('leg.connected', 'agent-2');

      engine.dial('room-answer', 'phone-2', '+15550100042');
      await log.next('party.answered', 'phone-2');
      const heard = await listen(browser, 1.5);
      expect(
        Math.abs((dominantFrequency(heard.subarray(heard.length / 3), SAMPLE_RATE_HZ) ?? 0) - 440),
      ).toBeLessThanOrEqual(20);

      await browser.pressDigit('7');
      await browser.pressDigit('#');
      const digits = (): string[] => log.of('dtmf', 'agent-2').map((event) => event.digit);
      await log.until(() => digits().length >= 2, 'two DTMF digits from agent-2');
      expect(digits()).toEqual(['7', '#']);

      engine.remove('phone-2');
      const recorded = await log.next('party.recorded', 'phone-2');
      // The worker has handled every packet sent before the party left (the end packets repeated
      // three times among them): still one digit per press.
      expect(digits()).toEqual(['7', '#']);
      const wav = await readWavFile(recorded.path);
      expect(
        Math.abs((dominantFrequency(wav.samples, wav.sampleRateHz) ?? 0) - 1000),
      ).toBeLessThanOrEqual(20);
    } finally {
      engine.closeRoom('room-answer');
      await browser.close();
    }
  }, 60_000);

  it('a muted client is not recorded by the party', async () => {
    const browser = new WeriftBrowser({ toneHz: 1000 });
    try {
      await engine.acceptAnswer(
        'agent-3',
        await browser.answer(await engine.createOfferLeg('room-mute', 'agent-3')),
      );
      await log.next('leg.connected', 'agent-3');
      engine.setMuted('agent-3', true);
      engine.dial('room-mute', 'phone-3', '+15550100043');
      await log.next('party.answered', 'phone-3');
      await listen(browser, 1);
      engine.closeRoom('room-mute');
      const recorded = await log.next('party.recorded', 'phone-3');
      const wav = await readWavFile(recorded.path);
      expect(wav.samples.length).toBeGreaterThan(0);
      expect(wav.samples.every((sample) => sample === 0)).toBe(true);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('an unknown number fails at once', async () => {
    engine.dial('room-x', 'phone-x', '+15559990000');
    await expect(log.next('party.unanswered', 'phone-x')).resolves.toMatchObject({
      reason: 'failed',
      roomId: 'room-x',
    });
    expect(
      log.events.some(
        (event) => event.type === 'party.ringing' && event.participantId === 'phone-x',
      ),
    ).toBe(false);
    engine.closeRoom('room-x');
  });

  it('ignores commands for participants and rooms that have gone', async () => {
    expect(() => engine.remove('nobody')).not.toThrow();
    expect(() => engine.setMuted('nobody', true)).not.toThrow();
    expect(() => engine.closeRoom('no-room')).not.toThrow();
    await expect(engine.acceptAnswer('nobody', 'v=0')).resolves.toBeUndefined();
  });

  it('rejects a reused participant id and an offer without PCMU', async () => {
    const first = engine.createOfferLeg('room-dup', 'dup');
    await expect(engine.createOfferLeg('room-dup', 'dup')).rejects.toMatchObject({
      name: 'ParticipantExists',
      code: 53_102,
    });
    await first;
    const opusOnly = [
      'v=0',
      'o=- 1 1 IN IP4 127.0.0.1',
      's=-',
      't=0 0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      'c=IN IP4 0.0.0.0',
      'a=ice-ufrag:abcd',
      'a=ice-pwd:abcdefghijklmnopqrstuvwx',
      'a=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF',
      'a=setup:actpass',
      'a=mid:0',
      'a=sendrecv',
      'a=rtcp-mux',
      'a=rtpmap:111 opus/48000/2',
      '',
    ].join('\r\n');
    const refused = engine.createAnswerLeg('room-dup', 'opus-only', opusOnly);
    await expect(refused).rejects.toBeInstanceOf(MediaError);
    await expect(refused).rejects.toMatchObject({ name: 'NoCommonCodec' });
    engine.closeRoom('room-dup');
  });

  it('reports no warnings through a whole call, from its start to its close', async () => {
    const warnings: string[] = [];
    const quiet = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      answerDelayMs: 300,
      logger: {
        warn: (message) => warnings.push(message),
        error: (message) => warnings.push(message),
      },
    });
    const events = new MediaEventLog();
    quiet.subscribe(events.listener);
    // The agent's leg is offered by the engine, a second client's is offered by the client.
    const agent = new WeriftBrowser({ toneHz: 1000 });
    const guest = new WeriftBrowser({ toneHz: 1500 });
    try {
      await quiet.start();
      await quiet.acceptAnswer(
        'quiet-agent',
        await agent.answer(await quiet.createOfferLeg('room-quiet', 'quiet-agent')),
      );
      await guest.acceptAnswer(
        await quiet.createAnswerLeg('room-quiet', 'quiet-guest', await guest.createOffer(true)),
      );
      await Promise.all([agent.connected(), guest.connected()]);
      await events.next('leg.connected', 'quiet-agent');
      await events.next('leg.connected', 'quiet-guest');
      quiet.dial('room-quiet', 'quiet-phone', '+15550100042');
      await events.next('party.answered', 'quiet-phone');
      // Media flows both ways: the agent hears the room, the engine hears the guest's key press.
      await listen(agent, 1);
      await guest.pressDigit('5');
      await events.next('dtmf', 'quiet-guest');
      quiet.setMuted('quiet-guest', true);
      await listen(agent, 0.5);
      quiet.remove('quiet-phone');
      await events.next('party.recorded', 'quiet-phone');
      quiet.closeRoom('room-quiet');
    } finally {
      await Promise.all([agent.close(), guest.close()]);
      // Closing waits for the worker to stop: every warning it sent has arrived.
      await quiet.close();
    }
    expect(warnings).toEqual([]);
  }, 60_000);

  it('close() stops the worker; later commands reject and nothing throws', async () => {
    const other = new WorkerMediaEngine({ iceAddresses: ['127.0.0.1'], sandboxDir });
    await other.start();
    expect(other.state).toBe('running');
    await other.close();
    expect(other.state).toBe('closed');
    await expect(other.createOfferLeg('r', 'p')).rejects.toMatchObject({
      name: 'EngineNotRunning',
    });
    expect(() => other.dial('r', 'p', '+15550100042')).not.toThrow();
    await expect(other.close()).resolves.toBeUndefined();
  }, 30_000);

  it('the first offer asked of one worker sets every worker keeping offers ready', async () => {
    const two = new WorkerMediaEngine({ iceAddresses: ['127.0.0.1'], sandboxDir, workers: 2 });
    await two.start();
    try {
      expect((await two.stats()).map((s) => s.readyOffers)).toEqual([0, 0]);
      await two.createOfferLeg('room-pool', 'agent-pool');
      await vi.waitFor(
        async () => {
          for (const stats of await two.stats()) expect(stats.readyOffers).toBeGreaterThan(0);
        },
        { timeout: 20_000, interval: 50 },
      );
    } finally {
      await two.close();
    }
  }, 30_000);
});
