/**
 * Every sandbox number, for real: the worker engine from sources, one room per number with a
 * werift peer as the agent (playing 1000 Hz), all on loopback. The scenarios run side by side
 * (the no-answer number rings its full 30 s).
 *
 * What is checked here is what the real path adds: the events in their order, each outcome, the
 * party's record and what each side heard. How long anything takes (busy at once, 30 s of
 * ringing, a hang-up after 3 s, about 1 s of ringing, a caller on the line at once, a message
 * recorded only after the beep) is proven on a fake clock in `sandbox-network.test.ts` and
 * `media-core-rooms.test.ts`; this file asserts no time. Every wait is for a condition, and
 * fails naming it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SANDBOX_NUMBERS, VOICEMAIL_BEEP } from '../constants';
import { readWavFile } from '../dsp/wav';
import type { MediaEvent } from '../media/media-engine';
import { WeriftBrowser } from '../media/werift-browser';
import { WorkerMediaEngine } from '../media/worker-media-engine';
import { soundsLikeSpeech, tonesIn } from '../testing/audio-checks';
import { heardWindow, listen, MEDIA_WAIT_MS, MediaEventLog } from '../testing/media-waits';
import type { PartyRecord } from './virtual-party';

const AGENT_HZ = 1000;
const LEAD_HZ = 440;
/** A test's own limit: its waits fail first, with what they waited for. */
const TEST_TIMEOUT_MS = 90_000;
/** The no-answer number rings 30 s before it gives up. */
const NO_ANSWER_WAIT_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The party's events, in order, as `type` (`unanswered:<reason>` for a failure). */
const named = (events: MediaEvent[]): string[] =>
  events.map((event) =>
    event.type === 'party.unanswered' ? `unanswered:${event.reason}` : event.type,
  );

describe.concurrent('the sandbox phone network (worker engine, werift agents, real time)', () => {
  let dir: string;
  let engine: WorkerMediaEngine;
  const log = new MediaEventLog();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-sandbox-network-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      recordingsDir: join(dir, 'recordings'),
    });
    engine.subscribe(log.listener);
    await engine.start();
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** What one scenario left behind. */
  interface Outcome {
    /** The party's events, in order (`named`), all of them: the party has left. */
    events: string[];
    /** Its record (`<party>.json`). */
    record: PartyRecord;
  }

  /**
   * Waits until the party's record has been written (when it leaves) and reads it; fails after
   * {@link MEDIA_WAIT_MS}.
   */
  async function recordOf(party: string): Promise<PartyRecord> {
    const path = join(dir, 'sandbox', `${party}.json`);
    const until = Date.now() + MEDIA_WAIT_MS;
    for (;;) {
      // Not there yet: undefined. The party writes it whole (then renames it into place), so
      // a record that is there parses.
      const record = await readFile(path, 'utf8').then(
        (text) => JSON.parse(text) as PartyRecord,
        () => undefined,
      );
      if (record) return record;
      if (Date.now() > until) {
        throw new Error(`${path} was not written within ${MEDIA_WAIT_MS} ms`);
      }
      await sleep(50);
    }
  }

  /**
   * Runs a call in room `room-<name>`: an agent (a werift peer playing 1000 Hz) joins it, then
   * `play` dials the number and waits for what the scenario needs. The room then closes, and
   * the outcome is read once the party has left.
   */
  async function call(
    name: string,
    play: (scene: { agent: WeriftBrowser; room: string; party: string }) => Promise<void>,
  ): Promise<Outcome> {
    const room = `room-${name}`;
    const party = `party-${name}`;
    const agentId = `agent-${name}`;
    const agent = new WeriftBrowser({ toneHz: AGENT_HZ });
    try {
      await engine.acceptAnswer(
        agentId,
        await agent.answer(await engine.createOfferLeg(room, agentId)),
      );
      await agent.connected();
      await log.next('leg.connected', agentId);
      await play({ agent, room, party });
      engine.closeRoom(room);
      // A party that answered reports its recording as it leaves, then writes its record.
      if (log.of('party.answered', party).length > 0) await log.next('party.recorded', party);
      const record = await recordOf(party);
      return { events: named(log.about(party)), record };
    } finally {
      engine.closeRoom(room);
      await agent.close();
    }
  }

  /** Whether a stretch of audio is the voicemail's beep. */
  const isBeep = (window: Int16Array): boolean =>
    tonesIn(window, [VOICEMAIL_BEEP.frequencyHz], 0.8).length === 1;
  /** Whether a stretch of audio is the test lead's tone. */
  const isLeadTone = (window: Int16Array): boolean => tonesIn(window, [LEAD_HZ], 0.8).length === 1;

  it(
    `${SANDBOX_NUMBERS.busy} is busy, without ringing`,
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const { events, record } = await call('busy', async ({ room, party }) => {
        engine.dial(room, party, SANDBOX_NUMBERS.busy);
        await log.next('party.unanswered', party);
      });
      expect(events).toEqual(['unanswered:busy']);
      expect(record).toMatchObject({
        number: SANDBOX_NUMBERS.busy,
        outcome: 'unanswered',
        failure: 'busy',
        recording: null,
      });
    },
  );

  it.for([SANDBOX_NUMBERS.invalid, '+15550200000'])(
    '%s fails as an invalid number, without ringing',
    { timeout: TEST_TIMEOUT_MS },
    async (number, { expect }) => {
      const { events, record } = await call(
        `invalid-${number.slice(1)}`,
        async ({ room, party }) => {
          engine.dial(room, party, number);
          await log.next('party.unanswered', party);
        },
      );
      expect(events).toEqual(['unanswered:failed']);
      expect(record).toMatchObject({ number, outcome: 'unanswered', failure: 'failed' });
    },
  );

  it(
    `${SANDBOX_NUMBERS.noAnswer} rings, then is not answered`,
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const { events, record } = await call('no-answer', async ({ agent, room, party }) => {
        engine.dial(room, party, SANDBOX_NUMBERS.noAnswer);
        await log.next('party.ringing', party);
        const from = agent.heardSamples;
        await log.next('party.unanswered', party, NO_ANSWER_WAIT_MS);
        // Nobody answered: the agent heard nothing from the number while it rang.
        expect(tonesIn(agent.heard(from), [LEAD_HZ, AGENT_HZ])).toEqual([]);
      });
      expect(events).toEqual(['party.ringing', 'unanswered:no-answer']);
      expect(record).toMatchObject({
        outcome: 'unanswered',
        failure: 'no-answer',
        recording: null,
      });
    },
  );

  it(
    `${SANDBOX_NUMBERS.voicemail} answers with a greeting and a beep, then records the message`,
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      let greeting: Int16Array = new Int16Array(0);
      const { events, record } = await call('voicemail', async ({ agent, room, party }) => {
        engine.dial(room, party, SANDBOX_NUMBERS.voicemail);
        await log.next('party.answered', party);
        const from = agent.heardSamples;
        const beepAt = await heardWindow(agent, from, isBeep, 'voicemail beep');
        greeting = agent.heard().slice(from, beepAt);
        // The agent talks after the beep: 2 s of the room's audio go by, heard by the agent and
        // recorded by the voicemail in the same media ticks.
        await listen(agent, 2);
      });
      // The greeting came first, and it was speech.
      expect(soundsLikeSpeech(greeting)).toBe(true);
      expect(events).toEqual(['party.ringing', 'party.answered', 'party.recorded']);
      expect(record).toMatchObject({ number: SANDBOX_NUMBERS.voicemail, outcome: 'answered' });
      // The message: what the agent said after the beep.
      expect(record.seconds).toBeGreaterThan(1);
      const message = (await readWavFile(record.recording ?? '')).samples;
      expect(tonesIn(message, [AGENT_HZ], 0.5)).toEqual([AGENT_HZ]);
    },
  );

  it(
    `${SANDBOX_NUMBERS.hangsUp} answers with the tone, then hangs up by itself`,
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      let whileAnswered: Int16Array = new Int16Array(0);
      let afterHangUp: Int16Array = new Int16Array(0);
      const { events, record } = await call('hangs-up', async ({ agent, room, party }) => {
        engine.dial(room, party, SANDBOX_NUMBERS.hangsUp);
        await log.next('party.answered', party);
        const answeredAt = agent.heardSamples;
        await log.next('party.hangup', party);
        whileAnswered = agent.heard().slice(answeredAt);
        await log.next('party.recorded', party);
        // It has gone: from some time on, the agent hears nobody.
        await heardWindow(
          agent,
          agent.heardSamples,
          (window) => tonesIn(window, [LEAD_HZ], 0.1).length === 0,
          'a stretch without the lead tone after the hang-up',
          { windowSeconds: 0.5 },
        );
        afterHangUp = await listen(agent, 1);
      });
      expect(events).toEqual(['party.ringing', 'party.answered', 'party.hangup', 'party.recorded']);
      expect(tonesIn(whileAnswered, [LEAD_HZ], 0.5)).toEqual([LEAD_HZ]);
      expect(tonesIn(afterHangUp, [LEAD_HZ, AGENT_HZ])).toEqual([]);
      expect(record).toMatchObject({ number: SANDBOX_NUMBERS.hangsUp, outcome: 'hung-up' });
      const heardByLead = (await readWavFile(record.recording ?? '')).samples;
      expect(tonesIn(heardByLead, [AGENT_HZ], 0.5)).toEqual([AGENT_HZ]);
    },
  );

  it.for(['+15550100001', '+15550100099'])(
    'a test lead (%s) rings, answers and plays a steady 440 Hz',
    { timeout: TEST_TIMEOUT_MS },
    async (number, { expect }) => {
      let steady: Int16Array = new Int16Array(0);
      const { events, record } = await call(
        `lead-${number.slice(1)}`,
        async ({ agent, room, party }) => {
          engine.dial(room, party, number);
          await log.next('party.answered', party);
          await heardWindow(agent, agent.heardSamples, isLeadTone, 'the lead tone');
          steady = await listen(agent, 1.5);
        },
      );
      expect(events).toEqual(['party.ringing', 'party.answered', 'party.recorded']);
      expect(tonesIn(steady, [LEAD_HZ, AGENT_HZ], 0.8)).toEqual([LEAD_HZ]);
      expect(record).toMatchObject({ number, outcome: 'answered', digits: '' });
      const heardByLead = (await readWavFile(record.recording ?? '')).samples;
      expect(tonesIn(heardByLead, [AGENT_HZ], 0.5)).toEqual([AGENT_HZ]);
    },
  );

  it(
    `${SANDBOX_NUMBERS.echo} (the echo test) answers and plays the agent's own tone back`,
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      let echoed: Int16Array = new Int16Array(0);
      const { events, record } = await call('echo', async ({ agent, room, party }) => {
        engine.dial(room, party, SANDBOX_NUMBERS.echo);
        await log.next('party.answered', party);
        const isAgentTone = (window: Int16Array): boolean =>
          tonesIn(window, [AGENT_HZ], 0.8).length === 1;
        await heardWindow(agent, agent.heardSamples, isAgentTone, "the agent's tone, echoed");
        echoed = await listen(agent, 1.5);
      });
      expect(events).toEqual(['party.ringing', 'party.answered', 'party.recorded']);
      // What came back is the agent's own 1000 Hz, and nothing of the sandbox's lead tone.
      expect(tonesIn(echoed, [LEAD_HZ, AGENT_HZ], 0.8)).toEqual([AGENT_HZ]);
      expect(record).toMatchObject({ number: SANDBOX_NUMBERS.echo, outcome: 'answered' });
      const heardByEcho = (await readWavFile(record.recording ?? '')).samples;
      expect(tonesIn(heardByEcho, [AGENT_HZ], 0.5)).toEqual([AGENT_HZ]);
    },
  );

  it(
    'a test lead logs the DTMF digits the agent pressed (RFC 4733), in order',
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      const { events, record } = await call('dtmf', async ({ agent, room, party }) => {
        engine.dial(room, party, '+15550100001');
        await log.next('party.answered', party);
        await heardWindow(agent, agent.heardSamples, isLeadTone, 'the lead tone');
        for (const digit of '42#') await agent.pressDigit(digit);
        const digits = (): string =>
          log
            .of('party.dtmf', party)
            .map((e) => e.digits)
            .join('');
        await log.until(() => digits().length >= 3, `three digits logged by ${party}`);
        expect(digits()).toBe('42#');
      });
      expect(events).toEqual([
        'party.ringing',
        'party.answered',
        'party.dtmf',
        'party.dtmf',
        'party.dtmf',
        'party.recorded',
      ]);
      expect(record).toMatchObject({ digits: '42#' });
    },
  );

  it(
    'any other +1 555 010 XXXX rings, answers and a lead talks (the voice clip)',
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      let talk: Int16Array = new Int16Array(0);
      const { events, record } = await call('voice', async ({ agent, room, party }) => {
        engine.dial(room, party, '+15550104321');
        await log.next('party.answered', party);
        talk = await listen(agent, 2.5);
      });
      expect(events).toEqual(['party.ringing', 'party.answered', 'party.recorded']);
      expect(soundsLikeSpeech(talk)).toBe(true);
      expect(record).toMatchObject({ number: '+15550104321', outcome: 'answered' });
    },
  );

  it(
    'an inbound caller is on the line without ringing, talks, and records the agent',
    { timeout: TEST_TIMEOUT_MS },
    async ({ expect }) => {
      let talk: Int16Array = new Int16Array(0);
      const { events, record } = await call('inbound', async ({ agent, room, party }) => {
        engine.addCaller(room, party, '+15550101234', '+15557654321');
        await log.next('party.answered', party);
        talk = await listen(agent, 2.5);
      });
      expect(events).toEqual(['party.answered', 'party.recorded']);
      expect(soundsLikeSpeech(talk)).toBe(true);
      expect(record).toMatchObject({
        direction: 'inbound',
        number: '+15550101234',
        to: '+15557654321',
        outcome: 'answered',
      });
      const heardByCaller = (await readWavFile(record.recording ?? '')).samples;
      expect(tonesIn(heardByCaller, [AGENT_HZ], 0.5)).toEqual([AGENT_HZ]);
    },
  );
});
