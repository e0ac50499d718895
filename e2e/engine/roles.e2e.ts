/**
 * The call's roles in Chromium, driven through the engine's room-control interface: three
 * browsers whose microphones play their own tone (agent 1000 Hz, supervisor 1500 Hz, second
 * agent 700 Hz) and the virtual test lead (+15550100042, 440 Hz), which records what it hears.
 * Every check listens: the level of each tone in what a browser receives (captured in the page)
 * and in the lead's recording, against the floor between the tones.
 *
 * Three calls: a supervisor whispers, listens, then barges in (and the call's recording holds
 * both parties); the lead is put on hold and back; a second agent makes it a conference.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readWavFile } from '@leadline/voice/dsp';
import { between, holdMusicShare } from '@leadline/voice/testing';
import type { AgentRole } from '@leadline/voice';
import { captureRemoteAudio, launchChromium, toneWav } from '../support/browser';
import { openSoftphone, startEngineHarness, type EngineHarness } from '../support/engine-harness';
import {
  heardTones,
  remoteToneLevels,
  toneLevels,
  type Pcm,
  type ToneLevels,
} from '../support/remote-tones';

const LEAD = '+15550100042';
const TONES = { lead: 440, second: 700, agent: 1000, supervisor: 1500 } as const;
const PROBES = [TONES.lead, TONES.second, TONES.agent, TONES.supervisor];
/** How long one listen lasts, and how long a change may take to be heard. */
const LISTEN_MS = 1500;
const SETTLE_TIMEOUT_MS = 12_000;
/**
 * Seconds kept off the end of a stretch of a recording, so that it does not run into the next
 * phase: the lead's answer is seen here a little after the recording started, and a role change
 * takes a frame or two to reach the mix. (Frames the engine skips under load are recorded as
 * silence, so the recording keeps wall-clock time.)
 */
const MARGIN_S = 0.3;

interface Party {
  identity: string;
  browser: Browser;
  page: Page;
}

let harness: EngineHarness;
let agent: Party;
let supervisor: Party;
let second: Party;
/** Every measured level, printed at the end (the report's figures). */
const measured: Array<{ what: string; levels: ToneLevels }> = [];

async function party(identity: string, toneHz: number): Promise<Party> {
  const browser = await launchChromium(await toneWav(toneHz, 30));
  const page = await browser.newPage();
  await captureRemoteAudio(page);
  await openSoftphone(page, harness, identity);
  await harness.waitFor('device.online', (e) => e.identity === identity);
  return { identity, browser, page };
}

/** Rings `who` into the call in `role` and accepts in its page; resolves once answered. */
async function joinCall(callSid: string, who: Party, role: AgentRole = 'agent'): Promise<void> {
  const since = harness.events.length;
  const before = await who.page.evaluate(
    () => (window as unknown as { calls: unknown[] }).calls.length,
  );
  expect(await harness.engine.ringAgent(callSid, who.identity, {}, { role })).toBe(1);
  await who.page.waitForFunction(
    (count) => (window as unknown as { calls: unknown[] }).calls.length > count,
    before,
    { timeout: 10_000 },
  );
  await who.page.evaluate(() =>
    (window as unknown as { calls: Array<{ accept(): void }> }).calls.at(-1)!.accept(),
  );
  await harness.waitFor(
    'agent.answered',
    (e) => e.callSid === callSid && e.identity === who.identity,
    10_000,
    since,
  );
}

/** Listens to `who` until `done(heard tones)` holds or the time is up; returns the last levels. */
async function listenUntil(
  who: Party,
  what: string,
  done: (heard: number[]) => boolean,
): Promise<ToneLevels> {
  const until = Date.now() + SETTLE_TIMEOUT_MS;
  let levels = await remoteToneLevels(who.page, PROBES, LISTEN_MS);
  while (!done(heardTones(levels)) && Date.now() < until)
    levels = await remoteToneLevels(who.page, PROBES, LISTEN_MS);
  measured.push({ what, levels });
  return levels;
}

/** Listens to `who` once. */
async function listen(who: Party, what: string): Promise<ToneLevels> {
  const levels = await remoteToneLevels(who.page, PROBES, LISTEN_MS);
  measured.push({ what, levels });
  return levels;
}

const same = (expected: number[]) => (heard: number[]) =>
  heard.length === expected.length && expected.every((tone) => heard.includes(tone));

/** The lead of a call: when it answered (ms since epoch) and, once it left, what it heard. */
interface Lead {
  answeredAt: number;
  /** Seconds since the answer (the lead's recording starts there). */
  now(): number;
  recording(): Promise<Pcm>;
}

async function dialLead(callSid: string): Promise<Lead> {
  const since = harness.events.length;
  harness.engine.dial(callSid, LEAD);
  const { at: answeredAt } = await harness.waitFor(
    'phone.answered',
    (e) => e.callSid === callSid,
    10_000,
    since,
  );
  return {
    answeredAt,
    now: () => (Date.now() - answeredAt) / 1000,
    async recording() {
      const recorded = await harness.waitFor(
        'phone.recorded',
        (e) => e.callSid === callSid,
        10_000,
        since,
      );
      const wav = await readWavFile(recorded.path);
      return { sampleRateHz: wav.sampleRateHz, samples: wav.samples };
    },
  };
}

/** Levels of a stretch of a recording (seconds from its start). */
function stretch(pcm: Pcm, what: string, fromSeconds: number, toSeconds: number): ToneLevels {
  const levels = toneLevels(
    {
      sampleRateHz: pcm.sampleRateHz,
      samples: between(pcm.samples, fromSeconds, toSeconds, pcm.sampleRateHz),
    },
    PROBES,
  );
  measured.push({ what: `${what} [${fromSeconds.toFixed(1)}–${toSeconds.toFixed(1)} s]`, levels });
  return levels;
}

beforeAll(async () => {
  harness = await startEngineHarness();
  [agent, supervisor, second] = await Promise.all([
    party('agent-1', TONES.agent),
    party('supervisor-1', TONES.supervisor),
    party('agent-2', TONES.second),
  ]);
});

afterAll(async () => {
  for (const { what, levels } of measured) console.log(what, JSON.stringify(levels));
  await Promise.all([agent, supervisor, second].map((p) => p?.browser.close()));
  await harness?.close();
});

describe('roles in Chromium (agent 1000 Hz, supervisor 1500 Hz, second agent 700 Hz, lead 440 Hz)', () => {
  it('whisper, listen, barge: who hears the supervisor; the call is recorded with both parties', async () => {
    const call = 'CAsupervise';
    await joinCall(call, agent);
    const lead = await dialLead(call);
    expect(heardTones(await listenUntil(agent, 'agent, lead only', same([TONES.lead])))).toEqual([
      TONES.lead,
    ]);

    // Whisper: the agent hears the supervisor; the lead does not.
    await joinCall(call, supervisor, 'whisper');
    const whisperFrom = lead.now();
    const [agentWhisper, supervisorWhisper] = await Promise.all([
      listenUntil(agent, 'agent, supervisor whispers', same([TONES.lead, TONES.supervisor])),
      listenUntil(supervisor, 'supervisor, whispering', same([TONES.lead, TONES.agent])),
    ]);
    expect(heardTones(agentWhisper)).toEqual([TONES.lead, TONES.supervisor]);
    expect(heardTones(supervisorWhisper)).toEqual([TONES.lead, TONES.agent]);

    // Listen: the supervisor hears both; nobody hears the supervisor.
    harness.engine.setRole(call, supervisor.identity, 'listen');
    const listenFrom = lead.now();
    const [agentListen, supervisorListen] = await Promise.all([
      listenUntil(agent, 'agent, supervisor listens', same([TONES.lead])),
      listenUntil(supervisor, 'supervisor, listening', same([TONES.lead, TONES.agent])),
    ]);
    expect(heardTones(agentListen)).toEqual([TONES.lead]);
    expect(heardTones(supervisorListen)).toEqual([TONES.lead, TONES.agent]);

    // Barge: everyone hears the supervisor.
    harness.engine.setRole(call, supervisor.identity, 'barge');
    const bargeFrom = lead.now();
    const [agentBarge, supervisorBarge] = await Promise.all([
      listenUntil(agent, 'agent, supervisor barges', same([TONES.lead, TONES.supervisor])),
      listenUntil(supervisor, 'supervisor, barging', same([TONES.lead, TONES.agent])),
    ]);
    expect(heardTones(agentBarge)).toEqual([TONES.lead, TONES.supervisor]);
    expect(heardTones(supervisorBarge)).toEqual([TONES.lead, TONES.agent]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const bargeTo = lead.now();

    const since = harness.events.length;
    harness.engine.hangup(call);
    const heard = await lead.recording();
    // What the lead heard, phase by phase (margins for a switch to reach everyone).
    expect(
      heardTones(stretch(heard, 'lead, whisper', whisperFrom + 0.5, listenFrom - MARGIN_S)),
    ).toEqual([TONES.agent]);
    expect(
      heardTones(stretch(heard, 'lead, listen', listenFrom + 0.5, bargeFrom - MARGIN_S)),
    ).toEqual([TONES.agent]);
    expect(heardTones(stretch(heard, 'lead, barge', bargeFrom + 0.5, bargeTo - MARGIN_S))).toEqual([
      TONES.agent,
      TONES.supervisor,
    ]);

    // The call's mixed recording (from the lead's answer on) holds both parties, and the
    // supervisor only once barging: a whisper is never recorded.
    const ready = await harness.waitFor(
      'recording.ready',
      (e) => e.callSid === call,
      10_000,
      since,
    );
    expect(ready.path).toBe(join(harness.dataDir, 'recordings', `${call}.wav`));
    const wav = await readWavFile(ready.path);
    const recording = toneLevels(wav, PROBES);
    measured.push({ what: `call recording (${ready.seconds} s)`, levels: recording });
    expect(heardTones(recording)).toEqual([TONES.lead, TONES.agent, TONES.supervisor]);
    expect(
      heardTones(stretch(wav, 'call recording, whisper', whisperFrom + 0.5, listenFrom - MARGIN_S)),
    ).toEqual([TONES.lead, TONES.agent]);
    expect(
      heardTones(stretch(wav, 'call recording, barge', bargeFrom + 0.5, bargeTo - MARGIN_S)),
    ).toEqual([TONES.lead, TONES.agent, TONES.supervisor]);
  });

  it('hold: the lead hears hold music and not the agent, the agent does not hear the lead; unhold restores', async () => {
    const call = 'CAhold';
    await joinCall(call, agent);
    const lead = await dialLead(call);
    expect(heardTones(await listenUntil(agent, 'agent, before hold', same([TONES.lead])))).toEqual([
      TONES.lead,
    ]);
    const beforeHold = lead.now();

    harness.engine.hold(call);
    const holdFrom = lead.now();
    expect(heardTones(await listenUntil(agent, 'agent, on hold', same([])))).toEqual([]);
    expect(heardTones(await listen(agent, 'agent, on hold (again)'))).toEqual([]);

    harness.engine.unhold(call);
    const holdTo = lead.now();
    expect(heardTones(await listenUntil(agent, 'agent, after unhold', same([TONES.lead])))).toEqual(
      [TONES.lead],
    );
    const afterTo = lead.now();

    harness.engine.hangup(call);
    const heard = await lead.recording();
    expect(heardTones(stretch(heard, 'lead, before hold', 0.5, beforeHold - MARGIN_S))).toEqual([
      TONES.agent,
    ]);
    // On hold the lead hears the music (its notes, 523–784 Hz, 100 ms window by window) and
    // not the agent.
    const musicShare = holdMusicShare(between(heard.samples, holdFrom + 0.5, holdTo - MARGIN_S));
    console.log(
      `lead, on hold: hold music in ${(musicShare * 100).toFixed(0)} % of 100 ms windows`,
    );
    expect(musicShare).toBeGreaterThan(0.8);
    expect(
      heardTones(stretch(heard, 'lead, on hold', holdFrom + 0.5, holdTo - MARGIN_S)),
    ).not.toContain(TONES.agent);
    expect(
      heardTones(stretch(heard, 'lead, after unhold', holdTo + 0.5, afterTo - MARGIN_S)),
    ).toEqual([TONES.agent]);
  });

  it('conference: the agent, a second agent and the lead all hear each other', async () => {
    const call = 'CAconference';
    await joinCall(call, agent);
    const lead = await dialLead(call);
    await listenUntil(agent, 'agent, lead only (conference call)', same([TONES.lead]));
    await joinCall(call, second, 'conference');
    const conferenceFrom = lead.now();
    const [agentHears, secondHears] = await Promise.all([
      listenUntil(agent, 'agent, conference', same([TONES.lead, TONES.second])),
      listenUntil(second, 'second agent, conference', same([TONES.lead, TONES.agent])),
    ]);
    expect(heardTones(agentHears)).toEqual([TONES.lead, TONES.second]);
    expect(heardTones(secondHears)).toEqual([TONES.lead, TONES.agent]);
    const conferenceTo = lead.now();

    harness.engine.hangup(call);
    const heard = await lead.recording();
    expect(
      heardTones(stretch(heard, 'lead, conference', conferenceFrom + 0.5, conferenceTo - MARGIN_S)),
    ).toEqual([TONES.second, TONES.agent]);
  });
});
