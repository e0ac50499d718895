import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ } from '../constants';
import { dominantFrequency } from '../dsp/dominant-frequency';
import { readWavFile } from '../dsp/wav';
import { MediaError } from './media-errors';
import type { MediaEvent } from './media-engine';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

/** Collects engine events and waits for the one a test needs. */
class EventLog {
  readonly events: MediaEvent[] = [];
  private readonly waiters = new Set<() => void>();

  readonly listener = (event: MediaEvent): void => {
    this.events.push(event);
    for (const wake of [...this.waiters]) wake();
  };

  async next<T extends MediaEvent['type']>(
    type: T,
    participantId: string,
    timeoutMs = 20_000,
  ): Promise<Extract<MediaEvent, { type: T }>> {
    const find = (): Extract<MediaEvent, { type: T }> | undefined =>
      this.events.find(
        (event): event is Extract<MediaEvent, { type: T }> =>
          event.type === type && 'participantId' in event && event.participantId === participantId,
      );
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no ${type} for ${participantId}; got ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      const check = (): void => {
        const found = find();
        if (!found) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      this.waiters.add(check);
      check();
    });
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `browser` has heard `seconds` more audio than it had. */
async function listen(browser: WeriftBrowser, seconds: number): Promise<Int16Array> {
  const from = browser.heardSamples;
  const until = Date.now() + 20_000;
  while (browser.heardSamples - from < seconds * SAMPLE_RATE_HZ && Date.now() < until)
    await sleep(50);
  return browser.heard(from);
}

describe('WorkerMediaEngine (worker thread from TypeScript sources, werift client on loopback)', () => {
  let sandboxDir: string;
  let engine: WorkerMediaEngine;
  const log = new EventLog();
  const warnings: string[] = [];

  beforeAll(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-media-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      answerDelayMs: 300,
      logger: {
        warn: (message) => warnings.push(message),
        error: (message) => warnings.push(message),
      },
    });
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
      await log.next('dtmf', 'agent-2');
      await sleep(200);
      const digits = log.events.filter(
        (event) => event.type === 'dtmf' && event.participantId === 'agent-2',
      );
      expect(digits.map((event) => (event.type === 'dtmf' ? event.digit : ''))).toEqual(['7', '#']);

      engine.remove('phone-2');
      const recorded = await log.next('party.recorded', 'phone-2');
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

  it('reported no warnings along the way', () => {
    expect(warnings).toEqual([]);
  });

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
});
