/**
 * Calls with more than one phone party, for real: the worker media engine, the gateway on a real
 * HTTP server, PStream clients on real sockets and werift peers playing the agents' browsers
 * (each sending 1000 Hz). Covers caller IDs, the phone parties' ids in the engine's events,
 * hanging up one phone party while the call goes on, a busy number added to a live call, and
 * the sandbox network's call log. Tests wait for events and amounts of audio, never for time.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SANDBOX_NUMBERS, SANDBOX_TONE_HZ } from './constants';
import { safeFileName } from './media/media-core';
import { WeriftBrowser } from './media/werift-browser';
import { WorkerMediaEngine } from './media/worker-media-engine';
import type { SandboxCall } from './pstn/sandbox-call-log';
import type { PartyRecord } from './pstn/virtual-party';
import { soundsLikeSpeech, tonesIn } from './testing/audio-checks';
import { listen as listenFor } from './testing/media-waits';
import { PStreamTestClient } from './testing/pstream-test-client';
import { VoiceEngine, type TelephonyEvent } from './voice-engine';

/** How long a test waits for audio, an event or a frame before it fails. */
const WAIT_MS = 15_000;

/** The agent's chosen caller ID (the demo account's main line). */
const CALLER_ID = '+15550142000';
/** A test lead: answers and plays a steady 440 Hz tone (docs/sandbox-numbers.md). */
const TONE_LEAD = '+15550100042';
/** Another test lead with the same tone. */
const OTHER_TONE_LEAD = '+15550100043';
/** A lead who talks: answers and plays the sandbox voice clip. */
const TALKING_LEAD = '+15550101234';

/** Waits until `browser` has heard `seconds` more audio (media-waits' `listen`), and returns it. */
const listen = (browser: WeriftBrowser, seconds: number) => listenFor(browser, seconds, WAIT_MS);

/** Matches a time as the call log writes it (ISO 8601, UTC). */
const anIsoTime: unknown = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

type PhoneEvent = Extract<TelephonyEvent, { type: `phone.${string}` }>;

describe('VoiceEngine phone parties with real media, sockets and peers', () => {
  let dir: string;
  let server: Server;
  let engine: VoiceEngine;
  let url: string;
  const events: TelephonyEvent[] = [];
  /** The phone party's state in the call log when each of its events was reported. */
  const loggedAt = new Map<string, Array<[TelephonyEvent['type'], SandboxCall['state']]>>();
  const peers: WeriftBrowser[] = [];
  const sockets: PStreamTestClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-voice-phones-'));
    engine = new VoiceEngine({
      media: new WorkerMediaEngine({
        iceAddresses: ['127.0.0.1'],
        sandboxDir: join(dir, 'sandbox'),
        recordingsDir: join(dir, 'recordings'),
        answerDelayMs: 200,
      }),
      // The token is the identity.
      verifyToken: (token) =>
        Promise.resolve({ ok: true, identity: token, expiresAt: Date.now() / 1000 + 3600 }),
      authorizeOutgoing: (_identity, params) =>
        Promise.resolve({ callSid: 'CAplaced', dial: params.To ?? '', from: CALLER_ID }),
    });
    engine.subscribe((event) => {
      events.push(event);
      if (!event.type.startsWith('phone.') || !('participantId' in event)) return;
      const logged = engine.sandboxCalls().find((c) => c.participantId === event.participantId);
      const seen = loggedAt.get(event.participantId) ?? [];
      if (logged) seen.push([event.type, logged.state]);
      loggedAt.set(event.participantId, seen);
    });
    await engine.start();
    server = createServer();
    server.on('upgrade', (request, socket, head) => engine.handleUpgrade(request, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/signal`;
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await Promise.all(peers.map((peer) => peer.close()));
    await engine.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  async function device(identity: string): Promise<PStreamTestClient> {
    const socket = await PStreamTestClient.connect(url, WAIT_MS);
    sockets.push(socket);
    await socket.login(identity);
    return socket;
  }

  /** Rings a new agent into `room` and answers with a werift peer playing 1000 Hz. */
  async function agentIn(
    room: string,
    identity: string,
  ): Promise<{ socket: PStreamTestClient; peer: WeriftBrowser }> {
    const socket = await device(identity);
    const peer = new WeriftBrowser({ toneHz: 1000 });
    peers.push(peer);
    expect(await engine.ringAgent(room, identity, {})).toBe(1);
    const invite = await socket.next('invite');
    socket.send('answer', { callsid: invite.callsid, sdp: await peer.answer(String(invite.sdp)) });
    await peer.connected();
    return { socket, peer };
  }

  /** Waits for the phone party's event of `type`, and returns it. */
  async function phoneEvent<T extends PhoneEvent['type']>(
    type: T,
    participantId: string,
  ): Promise<Extract<PhoneEvent, { type: T }>> {
    const find = () =>
      events.find(
        (event): event is Extract<PhoneEvent, { type: T }> =>
          event.type === type && event.participantId === participantId,
      );
    await vi.waitFor(() => expect(find()).toBeDefined(), { timeout: WAIT_MS, interval: 20 });
    return find()!;
  }

  const logged = (participantId: string): SandboxCall | undefined =>
    engine.sandboxCalls().find((call) => call.participantId === participantId);

  const ofParty = (participantId: string): TelephonyEvent[] =>
    events.filter((event) => 'participantId' in event && event.participantId === participantId);

  it('dials from the caller ID: the log shows it ringing, answered, then ended; the ids match', async () => {
    const { peer } = await agentIn('CAcallerid', 'agent-a');
    const phone = engine.dial('CAcallerid', TONE_LEAD, { from: CALLER_ID });
    expect(phone).toMatch(/^CAcallerid\.phone\.\d+$/);
    expect(logged(phone)).toEqual({
      callSid: 'CAcallerid',
      participantId: phone,
      direction: 'outbound',
      to: TONE_LEAD,
      from: CALLER_ID,
      startedAt: anIsoTime,
      state: 'ringing',
      answeredAt: null,
      endedAt: null,
      digits: '',
    });
    await phoneEvent('phone.answered', phone);
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.5)).toEqual([SANDBOX_TONE_HZ]);
    // The lead receives a key press of the agent.
    await peer.pressDigit('7');
    await phoneEvent('phone.dtmf', phone);
    engine.hangup('CAcallerid');
    const recorded = await phoneEvent('phone.recorded', phone);
    expect(recorded).toMatchObject({ callSid: 'CAcallerid', participantId: phone });

    expect(ofParty(phone).map((event) => event.type)).toEqual([
      'phone.ringing',
      'phone.answered',
      'phone.dtmf',
      'phone.recorded',
    ]);
    expect(loggedAt.get(phone)?.slice(0, 2)).toEqual([
      ['phone.ringing', 'ringing'],
      ['phone.answered', 'answered'],
    ]);
    const call = logged(phone)!;
    expect(call).toMatchObject({ from: CALLER_ID, state: 'ended', digits: '7' });
    const [startedAt, answeredAt, endedAt] = [call.startedAt, call.answeredAt, call.endedAt].map(
      (iso) => Date.parse(iso ?? ''),
    );
    expect(startedAt).toBeLessThanOrEqual(answeredAt!);
    expect(answeredAt).toBeLessThanOrEqual(endedAt!);
    // The virtual party wrote its caller ID in its sandbox record too.
    const recordPath = join(dir, 'sandbox', safeFileName(phone, 'json'));
    const record = await vi.waitFor(
      async () => JSON.parse(await readFile(recordPath, 'utf8')) as PartyRecord,
      { timeout: WAIT_MS },
    );
    expect(record).toMatchObject({
      participantId: phone,
      direction: 'outbound',
      number: TONE_LEAD,
      from: CALLER_ID,
      digits: '7',
    });
  }, 60_000);

  it('two phone parties; one hung up: the agent still hears the other, and no phone.left for it', async () => {
    const { peer, socket } = await agentIn('CAtwo', 'agent-b');
    const tone = engine.dial('CAtwo', TONE_LEAD, { from: CALLER_ID });
    const talker = engine.dial('CAtwo', TALKING_LEAD, { from: CALLER_ID });
    await phoneEvent('phone.answered', tone);
    await phoneEvent('phone.answered', talker);
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.3)).toEqual([SANDBOX_TONE_HZ]);

    engine.hangupPhone('CAtwo', tone);
    // It has left the room once what it heard is written.
    const recorded = await phoneEvent('phone.recorded', tone);
    expect(recorded.seconds).toBeGreaterThan(0.5);
    // What was on its way to the agent before it left has arrived; then the talking lead alone.
    await listen(peer, 0.3);
    const after = await listen(peer, 2.5);
    expect(tonesIn(after, [SANDBOX_TONE_HZ], 0.1)).toEqual([]);
    expect(soundsLikeSpeech(after)).toBe(true);

    expect(ofParty(tone).map((event) => event.type)).toEqual([
      'phone.ringing',
      'phone.answered',
      'phone.recorded',
    ]);
    expect(events.filter((event) => event.type === 'phone.left')).toEqual([]);
    expect(logged(tone)).toMatchObject({ state: 'ended', from: CALLER_ID });
    expect(logged(talker)).toMatchObject({ state: 'answered', endedAt: null });
    // The agent's call went on: nothing ended it.
    expect(socket.frames.map((frame) => frame.type)).not.toContain('hangup');
    engine.hangup('CAtwo');
    await phoneEvent('phone.recorded', talker);
    expect(logged(talker)).toMatchObject({ state: 'ended' });
  }, 60_000);

  it('a busy number added to a live call: phone.unanswered for it, and the lead on the line keeps talking', async () => {
    const { peer, socket } = await agentIn('CAbusy', 'agent-c');
    const lead = engine.dial('CAbusy', TONE_LEAD);
    await phoneEvent('phone.answered', lead);
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.5)).toEqual([SANDBOX_TONE_HZ]);

    const busy = engine.dial('CAbusy', SANDBOX_NUMBERS.busy, { from: CALLER_ID });
    expect(await phoneEvent('phone.unanswered', busy)).toEqual({
      type: 'phone.unanswered',
      callSid: 'CAbusy',
      participantId: busy,
      reason: 'busy',
    });
    expect(logged(busy)).toMatchObject({
      direction: 'outbound',
      to: SANDBOX_NUMBERS.busy,
      from: CALLER_ID,
      state: 'busy',
      answeredAt: null,
      endedAt: anIsoTime,
    });
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.5)).toEqual([SANDBOX_TONE_HZ]);
    expect(logged(lead)).toMatchObject({ state: 'answered', from: null });
    expect(socket.frames.map((frame) => frame.type)).not.toContain('hangup');
    engine.hangup('CAbusy');
  }, 60_000);

  it('a call the agent places dials from the caller ID its owner chose; a busy added number does not end it', async () => {
    const socket = await device('agent-d');
    const peer = new WeriftBrowser({ toneHz: 1000 });
    peers.push(peer);
    socket.send('invite', {
      callsid: 'TJSplaced',
      sdp: await peer.createOffer(),
      twilio: { params: `To=${encodeURIComponent(OTHER_TONE_LEAD)}` },
    });
    const answer = await socket.next('answer');
    await peer.acceptAnswer(String(answer.sdp));
    await peer.connected();
    const placed = engine.sandboxCalls().find((call) => call.callSid === 'CAplaced');
    expect(placed).toMatchObject({
      direction: 'outbound',
      to: OTHER_TONE_LEAD,
      from: CALLER_ID,
      state: 'answered',
    });
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.5)).toEqual([SANDBOX_TONE_HZ]);

    const busy = engine.dial('CAplaced', SANDBOX_NUMBERS.busy);
    await phoneEvent('phone.unanswered', busy);
    // The client's call goes on, with the lead it dialled.
    expect(tonesIn(await listen(peer, 1), [SANDBOX_TONE_HZ], 0.5)).toEqual([SANDBOX_TONE_HZ]);
    expect(socket.frames.map((frame) => frame.type)).not.toContain('hangup');
    engine.hangup('CAplaced');
    expect(await socket.next('hangup')).toEqual({ callsid: answer.callsid });
  }, 60_000);
});
