/**
 * The engine's phone parties on the fake media engine: caller IDs passed down, participant ids
 * returned and carried by every `phone.*` event, one phone party hung up, and the sandbox
 * network's call log. The real media engine runs the same in `voice-engine-phones.integration`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from './testing/fake-clock';
import { FakeMediaEngine } from './testing/fake-media-engine';
import { PStreamTestClient } from './testing/pstream-test-client';
import { VoiceEngine, type TelephonyEvent } from './voice-engine';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const at = (ms: number): string => new Date(T0 + ms).toISOString();

/** How long a test waits for a frame or a media command before it fails. */
const WAIT_MS = 3_000;

let clock: FakeClock;
let media: FakeMediaEngine;
let engine: VoiceEngine;
let events: TelephonyEvent[];

beforeEach(() => {
  clock = new FakeClock(T0);
  media = new FakeMediaEngine();
  events = [];
  engine = new VoiceEngine({
    clock,
    media,
    verifyToken: (token) =>
      Promise.resolve({ ok: true, identity: token, expiresAt: Math.floor(T0 / 1000) + 3600 }),
    authorizeOutgoing: (_identity, params) =>
      Promise.resolve({ callSid: 'CAout', dial: params.To ?? '', from: '+15550142010' }),
  });
  engine.subscribe((event) => events.push(event));
});

afterEach(async () => {
  await engine.close();
});

const phoneEvents = (): TelephonyEvent[] => events.filter((e) => e.type.startsWith('phone.'));

describe('dial and addCaller', () => {
  it('dial passes the caller ID down and returns the new phone party’s id, a fresh one each time', () => {
    const first = engine.dial('CA1', '+15550100042', { from: '+15550142000' });
    const second = engine.dial('CA1', '+15550101234');
    expect(first).toMatch(/^CA1\.phone\.\d+$/);
    expect(second).toMatch(/^CA1\.phone\.\d+$/);
    expect(second).not.toBe(first);
    expect(media.ops('dial')).toEqual([
      ['CA1', first, '+15550100042', { from: '+15550142000' }],
      ['CA1', second, '+15550101234'],
    ]);
  });

  it('addCaller returns the caller’s participant id', () => {
    const caller = engine.addCaller('CA2', '+15550100777', '+15550142000');
    expect(caller).toMatch(/^CA2\.caller\.\d+$/);
    expect(media.ops('addCaller')).toEqual([['CA2', caller, '+15550100777', '+15550142000']]);
  });

  it('every phone.* event names the phone party it is about', () => {
    const lead = engine.dial('CA1', '+15550100042');
    const second = engine.dial('CA1', '+15550199001');
    const roomId = 'CA1';
    media.emit({ type: 'party.ringing', participantId: lead, roomId });
    media.emit({ type: 'party.answered', participantId: lead, roomId });
    media.emit({ type: 'party.unanswered', participantId: second, roomId, reason: 'busy' });
    media.emit({ type: 'party.dtmf', participantId: lead, roomId, digits: '42' });
    media.emit({ type: 'party.hangup', participantId: lead, roomId });
    media.emit({
      type: 'party.recorded',
      participantId: lead,
      roomId,
      path: '/data/sandbox/CA1_phone_1.wav',
      seconds: 3,
    });
    expect(phoneEvents()).toEqual<TelephonyEvent[]>([
      { type: 'phone.ringing', callSid: 'CA1', participantId: lead },
      { type: 'phone.answered', callSid: 'CA1', participantId: lead },
      { type: 'phone.unanswered', callSid: 'CA1', participantId: second, reason: 'busy' },
      { type: 'phone.dtmf', callSid: 'CA1', participantId: lead, digits: '42' },
      { type: 'phone.left', callSid: 'CA1', participantId: lead },
      {
        type: 'phone.recorded',
        callSid: 'CA1',
        participantId: lead,
        path: '/data/sandbox/CA1_phone_1.wav',
        seconds: 3,
      },
    ]);
    // A busy second number leaves the call as it was.
    expect(media.ops('closeRoom')).toEqual([]);
  });
});

describe('hangupPhone', () => {
  it('takes one phone party out of the call, with no phone.left; its recording is still reported', () => {
    const lead = engine.dial('CA1', '+15550100042');
    const added = engine.dial('CA1', '+15550100043');
    for (const participantId of [lead, added])
      media.emit({ type: 'party.answered', participantId, roomId: 'CA1' });
    engine.hangupPhone('CA1', added);
    expect(media.ops('remove')).toEqual([[added]]);
    expect(media.ops('closeRoom')).toEqual([]);
    // The party's own hang-up raced the command: it is not news any more.
    media.emit({ type: 'party.hangup', participantId: added, roomId: 'CA1' });
    media.emit({
      type: 'party.recorded',
      participantId: added,
      roomId: 'CA1',
      path: '/data/sandbox/added.wav',
      seconds: 2,
    });
    expect(phoneEvents().slice(2)).toEqual<TelephonyEvent[]>([
      {
        type: 'phone.recorded',
        callSid: 'CA1',
        participantId: added,
        path: '/data/sandbox/added.wav',
        seconds: 2,
      },
    ]);
    // The other phone party goes on: its own hang-up is reported.
    media.emit({ type: 'party.hangup', participantId: lead, roomId: 'CA1' });
    expect(phoneEvents().at(-1)).toEqual({
      type: 'phone.left',
      callSid: 'CA1',
      participantId: lead,
    });
  });

  it('hangs up a ringing party too: it stops ringing and its late answer is not reported', () => {
    const ringing = engine.dial('CA1', '+15550100042');
    media.emit({ type: 'party.ringing', participantId: ringing, roomId: 'CA1' });
    clock.advance(300);
    engine.hangupPhone('CA1', ringing);
    media.emit({ type: 'party.answered', participantId: ringing, roomId: 'CA1' });
    expect(phoneEvents()).toEqual([
      { type: 'phone.ringing', callSid: 'CA1', participantId: ringing },
    ]);
    expect(engine.sandboxCalls()).toEqual([
      expect.objectContaining({ state: 'ended', answeredAt: null, endedAt: at(300) }),
    ]);
  });

  it('does nothing for a party of another call, one that has gone, or an unknown id', () => {
    const lead = engine.dial('CA1', '+15550100042');
    const busy = engine.dial('CA1', '+15550199001');
    media.emit({ type: 'party.unanswered', participantId: busy, roomId: 'CA1', reason: 'busy' });
    engine.hangupPhone('CA2', lead);
    engine.hangupPhone('CA1', busy);
    engine.hangupPhone('CA1', 'CA1.phone.999');
    engine.hangup('CA1');
    engine.hangupPhone('CA1', lead);
    expect(media.ops('remove')).toEqual([]);
  });
});

describe('the sandbox call log', () => {
  it('shows each call with its caller ID as the network saw it, oldest first', () => {
    const lead = engine.dial('CA1', '+15550100042', { from: '+15550142000' });
    clock.advance(100);
    const busy = engine.dial('CA1', '+15550199001', { from: '+15550142000' });
    clock.advance(100);
    const caller = engine.addCaller('CA2', '+15550100777', '+15550142010');
    media.emit({ type: 'party.ringing', participantId: lead, roomId: 'CA1' });
    media.emit({ type: 'party.unanswered', participantId: busy, roomId: 'CA1', reason: 'busy' });
    media.emit({ type: 'party.answered', participantId: caller, roomId: 'CA2' });
    clock.advance(800);
    media.emit({ type: 'party.answered', participantId: lead, roomId: 'CA1' });
    media.emit({ type: 'party.dtmf', participantId: lead, roomId: 'CA1', digits: '1' });
    media.emit({ type: 'party.dtmf', participantId: lead, roomId: 'CA1', digits: '2#' });
    clock.advance(5000);
    engine.hangup('CA1');
    expect(engine.sandboxCalls()).toEqual([
      {
        callSid: 'CA1',
        participantId: lead,
        direction: 'outbound',
        to: '+15550100042',
        from: '+15550142000',
        startedAt: at(0),
        state: 'ended',
        answeredAt: at(1000),
        endedAt: at(6000),
        digits: '12#',
      },
      {
        callSid: 'CA1',
        participantId: busy,
        direction: 'outbound',
        to: '+15550199001',
        from: '+15550142000',
        startedAt: at(100),
        state: 'busy',
        answeredAt: null,
        endedAt: at(200),
        digits: '',
      },
      {
        callSid: 'CA2',
        participantId: caller,
        direction: 'inbound',
        to: '+15550142010',
        from: '+15550100777',
        startedAt: at(200),
        state: 'answered',
        answeredAt: at(200),
        endedAt: null,
        digits: '',
      },
    ]);
  });

  it('a number dialled without a caller ID is logged with `from: null`; closing ends every call', async () => {
    const lead = engine.dial('CA1', '+15550100042');
    media.emit({ type: 'party.answered', participantId: lead, roomId: 'CA1' });
    clock.advance(2000);
    await engine.close();
    expect(engine.sandboxCalls()).toEqual([
      expect.objectContaining({
        participantId: lead,
        from: null,
        state: 'ended',
        endedAt: at(2000),
      }),
    ]);
  });
});

describe('a call placed by a client', () => {
  let server: Server;
  let socket: PStreamTestClient;

  beforeEach(async () => {
    server = createServer();
    server.on('upgrade', (request, s, head) => engine.handleUpgrade(request, s, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/signal`;
    socket = await PStreamTestClient.connect(url, WAIT_MS);
    await socket.login('agent-7');
  });

  afterEach(async () => {
    socket.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('dials its number from the caller ID the owner chose; only that party drives the client', async () => {
    socket.send('invite', {
      callsid: 'TJSout',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    await vi.waitFor(() => expect(media.ops('dial')).toHaveLength(1), { timeout: WAIT_MS });
    const [[room, dialled, number, options]] = media.ops('dial') as [
      [string, string, string, unknown],
    ];
    expect([room, number, options]).toEqual(['CAout', '+15550100042', { from: '+15550142010' }]);
    expect(engine.sandboxCalls()).toEqual([
      expect.objectContaining({ participantId: dialled, to: '+15550100042', from: '+15550142010' }),
    ]);
    expect(events).toContainEqual({
      type: 'outgoing.placed',
      callSid: 'CAout',
      identity: 'agent-7',
      to: '+15550100042',
      participantId: dialled,
    });
    media.emit({ type: 'party.ringing', participantId: dialled, roomId: 'CAout' });
    await socket.next('ringing');
    media.emit({ type: 'party.answered', participantId: dialled, roomId: 'CAout' });
    await socket.next('answer');
    // A second number dialled into the same call is busy: the client's call goes on.
    const added = engine.dial('CAout', '+15550199001');
    media.emit({ type: 'party.unanswered', participantId: added, roomId: 'CAout', reason: 'busy' });
    expect(media.ops('closeRoom')).toEqual([]);
    expect(phoneEvents().at(-1)).toEqual({
      type: 'phone.unanswered',
      callSid: 'CAout',
      participantId: added,
      reason: 'busy',
    });
    // The number the client dialled hangs up by itself: reported; the owner decides what follows.
    media.emit({ type: 'party.hangup', participantId: dialled, roomId: 'CAout' });
    expect(phoneEvents().at(-1)).toEqual({
      type: 'phone.left',
      callSid: 'CAout',
      participantId: dialled,
    });
    engine.hangup('CAout');
    // The first `hangup` the client gets is this one (a busy second number sent none).
    expect(await socket.next('hangup')).toEqual({ callsid: 'CAout' });
    expect(socket.frames.filter((frame) => frame.type === 'hangup')).toEqual([]);
  });

  it('the number the client dialled being busy ends the client’s call with 31486', async () => {
    socket.send('invite', {
      callsid: 'TJSbusy',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550199001' },
    });
    await vi.waitFor(() => expect(media.ops('dial')).toHaveLength(1), { timeout: WAIT_MS });
    const dialled = (media.ops('dial')[0] as string[])[1]!;
    media.emit({
      type: 'party.unanswered',
      participantId: dialled,
      roomId: 'CAout',
      reason: 'busy',
    });
    // It never rang: the client knows the call only by its temporary id.
    expect(await socket.next('hangup')).toEqual({
      callsid: 'TJSbusy',
      error: { code: 31486, message: 'The number is busy.' },
    });
    expect(engine.sandboxCalls()).toEqual([expect.objectContaining({ state: 'busy' })]);
  });
});
