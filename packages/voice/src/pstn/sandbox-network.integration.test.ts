/**
 * Every sandbox number, for real: the worker engine from sources (its default 1 s ringing), one
 * room per number with a werift peer as the agent (playing 1000 Hz), all on loopback. The
 * scenarios run at once (the no-answer number rings its full 30 s); each test then checks one.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RATE_HZ, SANDBOX_NUMBERS, VOICEMAIL_BEEP } from '../constants';
import { readWavFile } from '../dsp/wav';
import type { MediaEvent } from '../media/media-engine';
import { WeriftBrowser } from '../media/werift-browser';
import { WorkerMediaEngine } from '../media/worker-media-engine';
import { between, soundsLikeSpeech, tonesIn } from '../testing/audio-checks';
import type { PartyRecord } from './virtual-party';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What one scenario saw: the party's events with their times, and what the agent heard. */
interface Outcome {
  events: Array<{ type: string; atMs: number; reason?: string }>;
  agentHeard: Int16Array;
  record: PartyRecord | undefined;
}

describe('the sandbox phone network (worker engine, werift agents, real time)', () => {
  let dir: string;
  let engine: WorkerMediaEngine;
  const events: Array<MediaEvent & { atMs: number }> = [];
  const outcomes = new Map<string, Outcome>();

  /** Waits for the party's event of `type`, or gives up after `timeoutMs`. */
  async function eventOf(participantId: string, type: MediaEvent['type'], timeoutMs: number) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(
        (event) =>
          event.type === type && 'participantId' in event && event.participantId === participantId,
      );
      if (found || Date.now() > until) return found;
      await sleep(50);
    }
  }

  /**
   * Calls `number` from a room whose agent is a werift peer: the agent is connected, the number
   * is dialled, and the room closes after `holdMs` (or when the party leaves by itself).
   */
  async function scenario(
    name: string,
    dial: (room: string, party: string) => void,
    holdMs: number,
    duringCall?: (agent: WeriftBrowser) => Promise<void>,
  ): Promise<void> {
    const room = `room-${name}`;
    const party = `party-${name}`;
    const agent = new WeriftBrowser({ toneHz: 1000 });
    try {
      await engine.acceptAnswer(
        `agent-${name}`,
        await agent.answer(await engine.createOfferLeg(room, `agent-${name}`)),
      );
      await agent.connected();
      const startedAt = Date.now();
      dial(room, party);
      const from = agent.heardSamples;
      const endAt = startedAt + holdMs;
      if (duringCall) {
        await eventOf(party, 'party.answered', 5000);
        await duringCall(agent);
      }
      while (Date.now() < endAt) {
        const gone = events.some(
          (event) =>
            'participantId' in event &&
            event.participantId === party &&
            (event.type === 'party.unanswered' || event.type === 'party.hangup'),
        );
        if (gone) break;
        await sleep(100);
      }
      engine.closeRoom(room);
      await eventOf(party, 'party.ringing', 0);
      let record: PartyRecord | undefined;
      for (let i = 0; i < 40 && !record; i++) {
        await sleep(100);
        record = await readFile(join(dir, 'sandbox', `${party}.json`), 'utf8').then(
          (text) => JSON.parse(text) as PartyRecord,
          () => undefined,
        );
      }
      outcomes.set(name, {
        events: events
          .filter((event) => 'participantId' in event && event.participantId === party)
          .map((event) => ({
            type: event.type,
            atMs: event.atMs - startedAt,
            ...(event.type === 'party.unanswered' ? { reason: event.reason } : {}),
          })),
        agentHeard: agent.heard(from),
        record,
      });
    } finally {
      await agent.close();
    }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-sandbox-network-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      recordingsDir: join(dir, 'recordings'),
    });
    engine.subscribe((event) => events.push({ ...event, atMs: Date.now() }));
    await engine.start();
    const dialling =
      (number: string) =>
      (room: string, party: string): void =>
        engine.dial(room, party, number);
    await Promise.all([
      scenario('busy', dialling(SANDBOX_NUMBERS.busy), 1000),
      scenario('no-answer', dialling(SANDBOX_NUMBERS.noAnswer), 40_000),
      scenario('voicemail', dialling(SANDBOX_NUMBERS.voicemail), 9000),
      scenario('hangs-up', dialling(SANDBOX_NUMBERS.hangsUp), 8000),
      scenario('invalid', dialling(SANDBOX_NUMBERS.invalid), 1000),
      scenario('lead-0001', dialling('+15550100001'), 3000, async (agent) => {
        await agent.pressDigit('4');
        await agent.pressDigit('2');
        await agent.pressDigit('#');
      }),
      scenario('lead-0099', dialling('+15550100099'), 3000),
      scenario('voice', dialling('+15550104321'), 4000),
      scenario(
        'inbound',
        (room, party) => engine.addCaller(room, party, '+15550101234', '+15557654321'),
        3000,
      ),
    ]);
  }, 90_000);

  afterAll(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  const outcome = (name: string): Outcome => {
    const found = outcomes.get(name);
    if (!found) throw new Error(`scenario ${name} did not run`);
    return found;
  };
  const types = (name: string): string[] => outcome(name).events.map((event) => event.type);
  const at = (name: string, type: string): number =>
    outcome(name).events.find((event) => event.type === type)?.atMs ?? NaN;

  it(`${SANDBOX_NUMBERS.busy} is busy at once`, () => {
    expect(outcome('busy').events).toEqual([
      expect.objectContaining({ type: 'party.unanswered', reason: 'busy' }),
    ]);
  });

  it(`${SANDBOX_NUMBERS.noAnswer} rings 30 s, then is not answered`, () => {
    expect(types('no-answer')).toEqual(['party.ringing', 'party.unanswered']);
    expect(outcome('no-answer').events[1]?.reason).toBe('no-answer');
    expect(at('no-answer', 'party.unanswered')).toBeGreaterThanOrEqual(29_900);
    expect(at('no-answer', 'party.unanswered')).toBeLessThan(40_000);
  });

  it(`${SANDBOX_NUMBERS.voicemail} answers with a greeting and a beep, then records the message`, async () => {
    expect(types('voicemail').slice(0, 2)).toEqual(['party.ringing', 'party.answered']);
    const heard = outcome('voicemail').agentHeard;
    const answeredS = at('voicemail', 'party.answered') / 1000;
    expect(soundsLikeSpeech(between(heard, answeredS + 0.2, answeredS + 3.5))).toBe(true);
    // The beep ends the greeting (4 s): find it in the 2 s after.
    const beepWindows = [...Array(20).keys()].map((i) =>
      between(heard, answeredS + 3.5 + i * 0.1, answeredS + 3.6 + i * 0.1),
    );
    expect(
      beepWindows.some((part) => tonesIn(part, [VOICEMAIL_BEEP.frequencyHz], 0.8).length === 1),
    ).toBe(true);
    const record = outcome('voicemail').record;
    expect(record).toMatchObject({ number: SANDBOX_NUMBERS.voicemail, outcome: 'answered' });
    // The message: what the agent said after the beep (the call lasted 9 s; greeting and beep ~4.5 s).
    expect(record?.seconds).toBeGreaterThan(2);
    expect(record?.seconds).toBeLessThan(5.5);
    const message = (await readWavFile(record?.recording ?? '')).samples;
    expect(tonesIn(message, [1000], 0.5)).toEqual([1000]);
  });

  it(`${SANDBOX_NUMBERS.hangsUp} answers, then hangs up after 3 s`, () => {
    expect(types('hangs-up')).toEqual([
      'party.ringing',
      'party.answered',
      'party.hangup',
      'party.recorded',
    ]);
    const stayedMs = at('hangs-up', 'party.hangup') - at('hangs-up', 'party.answered');
    expect(stayedMs).toBeGreaterThanOrEqual(2900);
    expect(stayedMs).toBeLessThan(4000);
    const answeredS = at('hangs-up', 'party.answered') / 1000;
    expect(
      tonesIn(
        between(outcome('hangs-up').agentHeard, answeredS + 0.5, answeredS + 2.5),
        [440],
        0.5,
      ),
    ).toEqual([440]);
  });

  it(`${SANDBOX_NUMBERS.invalid} fails as an invalid number`, () => {
    expect(outcome('invalid').events).toEqual([
      expect.objectContaining({ type: 'party.unanswered', reason: 'failed' }),
    ]);
  });

  it.each(['lead-0001', 'lead-0099'])(
    'a test lead (%s) rings about 1 s, answers and plays a steady 440 Hz',
    (name) => {
      expect(types(name).slice(0, 2)).toEqual(['party.ringing', 'party.answered']);
      expect(at(name, 'party.answered')).toBeGreaterThanOrEqual(900);
      expect(at(name, 'party.answered')).toBeLessThan(2000);
      const answeredS = at(name, 'party.answered') / 1000;
      const heard = between(outcome(name).agentHeard, answeredS + 0.3, answeredS + 1.8);
      expect(heard.length).toBeGreaterThan(SAMPLE_RATE_HZ);
      expect(tonesIn(heard, [440], 0.8)).toEqual([440]);
    },
  );

  it('a test lead logs the DTMF digits the agent pressed (RFC 4733)', () => {
    expect(outcome('lead-0001').record).toMatchObject({ digits: '42#' });
    expect(types('lead-0001')).toContain('party.dtmf');
  });

  it('any other +1 555 010 XXXX answers and a lead talks (the voice clip)', () => {
    expect(types('voice').slice(0, 2)).toEqual(['party.ringing', 'party.answered']);
    const answeredS = at('voice', 'party.answered') / 1000;
    expect(
      soundsLikeSpeech(between(outcome('voice').agentHeard, answeredS + 0.2, answeredS + 2.8)),
    ).toBe(true);
  });

  it('an inbound caller is on the line at once, talks, and records the agent', async () => {
    expect(types('inbound').slice(0, 1)).toEqual(['party.answered']);
    expect(at('inbound', 'party.answered')).toBeLessThan(500);
    expect(soundsLikeSpeech(between(outcome('inbound').agentHeard, 0.5, 2.5))).toBe(true);
    const record = outcome('inbound').record;
    expect(record).toMatchObject({
      direction: 'inbound',
      number: '+15550101234',
      to: '+15557654321',
    });
    expect(tonesIn((await readWavFile(record?.recording ?? '')).samples, [1000], 0.5)).toEqual([
      1000,
    ]);
  });
});
