import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../testing/fake-clock';
import { FakeMediaEngine } from '../testing/fake-media-engine';
import { PStreamTestClient } from '../testing/pstream-test-client';
import { VoiceEngine, type TelephonyEvent } from '../voice-engine';
import type { TokenCheck } from './client-session';
import { AUTH_DEADLINE_CLOSE, AUTH_DEADLINE_MS } from './gateway-constants';

/** The gateway's test client under its old name here. */
class TestClient extends PStreamTestClient {}

const TOKENS: Record<string, TokenCheck> = {
  good: { ok: true, identity: '7', expiresAt: Math.floor(Date.now() / 1000) + 600 },
  other: { ok: true, identity: '8', expiresAt: Math.floor(Date.now() / 1000) + 600 },
  expired: { ok: false, reason: 'expired' },
  // Identity 7 signed in twice (two browsers): two login sessions.
  'login-1': {
    ok: true,
    identity: '7',
    expiresAt: Math.floor(Date.now() / 1000) + 600,
    session: 'L1',
  },
  'login-2': {
    ok: true,
    identity: '7',
    expiresAt: Math.floor(Date.now() / 1000) + 600,
    session: 'L2',
  },
};

let server: Server;
let clock: FakeClock;
let media: FakeMediaEngine;
let engine: VoiceEngine;
let url: string;
let events: TelephonyEvent[];
const clients: TestClient[] = [];
/** The connect params of every outgoing call the owner was asked about. */
let authorized: Array<Record<string, string>>;
/** The owner answers an outgoing call once this resolves. */
let authorizeGate: Promise<void>;

/**
 * The grace period of the engine under test. Its timers run on `clock`, which only the test moves;
 * shorter than the heartbeat interval, so moving past it fires no heartbeat.
 */
const GRACE_MS = 400;

/** How long a test waits for a frame, an event or a media command before it fails. */
const WAIT_MS = 3_000;

beforeEach(async () => {
  // The gateway's timers (grace periods, heartbeats, token expiry) run on a manual clock; it
  // starts at the real time because the tokens' expiry is real.
  clock = new FakeClock(Date.now());
  media = new FakeMediaEngine();
  events = [];
  authorized = [];
  authorizeGate = Promise.resolve();
  engine = new VoiceEngine({
    clock,
    reconnectGraceMs: GRACE_MS,
    media,
    verifyToken: (token) => Promise.resolve(TOKENS[token] ?? { ok: false, reason: 'invalid' }),
    authorizeOutgoing: async (_identity, params) => {
      authorized.push(params);
      await authorizeGate;
      return params.To === '+15550199005'
        ? { error: { code: 31480, message: 'The number could not be reached.' } }
        : { callSid: 'CAout', dial: params.To ?? '' };
    },
  });
  engine.subscribe((e) => events.push(e));
  server = createServer();
  server.on('upgrade', (req, socket, head) => engine.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/signal`;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.close();
  await engine.close();
  await new Promise((resolve) => server.close(resolve));
});

async function client(token = 'good', register = true): Promise<TestClient> {
  const c = await TestClient.connect(url, WAIT_MS);
  clients.push(c);
  c.send('listen', { token, browserinfo: {}, reconnectTimeout: 0 });
  if (register) {
    await c.next('connected');
    c.send('register', { media: { audio: true } });
    await c.next('ready');
  }
  return c;
}

/** Retries `assertion` until it passes; fails with its last error after {@link WAIT_MS}. */
const eventually = (assertion: () => void): Promise<void> =>
  vi.waitFor(assertion, { timeout: WAIT_MS, interval: 5 });

/** Waits until the engine has reported `event`. */
const reported = (event: TelephonyEvent): Promise<void> =>
  eventually(() => expect(events).toContainEqual(event));

/** Waits until the media engine has been given `count` commands of kind `op`. */
const commanded = (op: string, count = 1): Promise<void> =>
  eventually(() => expect(media.ops(op)).toHaveLength(count));

/**
 * A round trip on a registered client's socket (it registers again, which changes nothing):
 * every frame the gateway sent it before has arrived.
 */
async function roundTrip(c: TestClient): Promise<void> {
  c.send('register', { media: { audio: true } });
  await c.next('ready');
}

/**
 * Waits until the gateway has handled the loss of the identity's only registered socket (the
 * identity is offline): it handles a closed socket in one step, so what the loss does to the
 * socket's calls has been done too.
 */
const socketGone = (identity = '7'): Promise<void> =>
  eventually(() => expect(engine.isOnline(identity)).toBe(false));

/** Matches a reconnect token (opaque, URL-safe). */
const anyToken: unknown = expect.stringMatching(/^[\w-]{20,}$/);

describe('listen and register', () => {
  it('answers listen with connected {identity, ttl} and register with ready; the identity is online', async () => {
    const c = await client('good', false);
    const connected = await c.next('connected');
    expect(connected).toMatchObject({ region: 'local', token: { identity: '7' } });
    expect((connected.token as { ttl: number }).ttl).toBeGreaterThan(590);
    c.send('register', { media: { audio: true } });
    await c.next('ready');
    expect(engine.isOnline('7')).toBe(true);
    expect(events).toContainEqual({ type: 'device.online', identity: '7' });
    c.send('register', { media: { audio: false } });
    await c.next('offline');
    expect(engine.isOnline('7')).toBe(false);
    expect(events).toContainEqual({ type: 'device.offline', identity: '7' });
  });

  // A closed tab is a device gone: the product must not keep ringing (or listing online) an
  // agent whose only socket closed. It once did: the session lost its identity first.
  it('reports device.offline when the only registered socket of an identity closes', async () => {
    const first = await client('good');
    const second = await client('good');
    const offline = () => events.filter((e) => e.type === 'device.offline');
    // Two sockets of one identity close: one device.offline, once the last is gone.
    first.close();
    second.close();
    await socketGone();
    expect(offline()).toEqual([{ type: 'device.offline', identity: '7' }]);
  });

  it('refuses a bad token with 31204 and an expired one with 31205', async () => {
    const bad = await client('nope', false);
    expect(await bad.next('error')).toEqual({
      error: { code: 31204, message: 'Invalid Access Token' },
    });
    bad.send('register', { media: { audio: true } });
    expect(await bad.next('error')).toMatchObject({ error: { code: 31204 } });
    const expired = await client('expired', false);
    expect(await expired.next('error')).toEqual({
      error: { code: 31205, message: 'JWT Token Expired' },
    });
  });

  it('answers malformed frames with a 31100 error and stays up', async () => {
    const c = await client();
    c.ws.send('{not json');
    expect(await c.next('error')).toEqual({
      error: { code: 31100, message: 'Malformed message: not JSON.' },
    });
    c.send('answer', { callsid: 'CA1' });
    expect((await c.next('error')).error).toMatchObject({ code: 31100 });
    c.ws.send(JSON.stringify({ type: 'register', version: '1.5', payload: {} }));
    const versionError = (await c.next('error')).error as { code: number; message: string };
    expect(versionError.code).toBe(31100);
    expect(versionError.message).toContain('1.6');
    c.send('register', { media: { audio: true } });
    await c.next('ready');
  });

  it('withdraws the sockets of an ended login at once: its call ends without the grace, the other login keeps its socket', async () => {
    const ended = await client('login-1');
    const kept = await client('login-2');
    expect(engine.signallingClients()).toEqual(
      expect.arrayContaining([
        { identity: '7', session: 'L1' },
        { identity: '7', session: 'L2' },
      ]),
    );
    await engine.ringAgent('CA9', '7', {});
    await ended.next('invite');
    await kept.next('invite');
    ended.send('answer', { callsid: 'CA9', sdp: 'v=0 a' });
    await reported({ type: 'agent.answered', callSid: 'CA9', identity: '7' });
    const socketClosed = new Promise((resolve) => ended.ws.once('close', resolve));

    expect(engine.revokeSignalling((c) => c.session === 'L1')).toBe(1);

    expect(await ended.next('hangup')).toEqual({
      callsid: 'CA9',
      error: { code: 31204, message: 'Signed out: this session has ended.' },
    });
    expect(await ended.next('error')).toEqual({
      error: { code: 31204, message: 'Signed out: this session has ended.' },
    });
    await socketClosed;
    // No clock moved: the call did not wait for a reconnect.
    await reported({ type: 'agent.left', callSid: 'CA9', identity: '7', reason: 'disconnected' });
    expect(engine.signallingClients()).toEqual([{ identity: '7', session: 'L2' }]);
    expect(engine.isOnline('7')).toBe(true);
    await roundTrip(kept);
    // Nothing to withdraw: nothing closes.
    expect(engine.revokeSignalling((c) => c.session === 'L1')).toBe(0);
  });

  it('goes offline when the socket closes', async () => {
    const c = await client();
    c.ws.close();
    await eventually(() => expect(engine.isOnline('7')).toBe(false));
  });
});

describe('the authentication deadline', () => {
  /** Resolves with the close code and reason the gateway closed `c` with. */
  const closedWith = (c: TestClient) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      c.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );

  it('closes a socket that sent no valid listen within 10 s with 4401 and the reason; a millisecond short of it, it stays', async () => {
    const c = await TestClient.connect(url, WAIT_MS);
    clients.push(c);
    const closed = closedWith(c);
    // A bad token does not count.
    c.send('listen', { token: 'nope', browserinfo: {}, reconnectTimeout: 0 });
    expect((await c.next('error')).error).toMatchObject({ code: 31204 });
    clock.advance(AUTH_DEADLINE_MS - 1);
    c.send('register', { media: { audio: true } });
    expect((await c.next('error')).error).toMatchObject({ code: 31204 });
    clock.advance(1);
    expect(await closed).toEqual({
      code: 4401,
      reason: 'Not authenticated: send listen with a valid access token within 10 seconds.',
    });
    expect(AUTH_DEADLINE_CLOSE.code).toBe(4401);
    await eventually(() => expect(engine.signallingStats().sessions).toBe(0));
  });

  it('leaves an authenticated socket open', async () => {
    const c = await client('good');
    clock.advance(AUTH_DEADLINE_MS + 1);
    await roundTrip(c);
    expect(engine.isOnline('7')).toBe(true);
  });

  it('runs again when the token expires: a new listen within 10 s keeps the socket', async () => {
    TOKENS.short = { ok: true, identity: '7', expiresAt: Math.floor(clock.now() / 1000) + 5 };
    const renewed = await client('short');
    const lapsed = await client('short');
    const closed = closedWith(lapsed);
    clock.advance(TOKENS.short.expiresAt * 1000 - clock.now());
    expect(await renewed.next('error')).toEqual({
      error: { code: 31205, message: 'JWT Token Expired' },
    });
    expect((await lapsed.next('error')).error).toMatchObject({ code: 31205 });
    renewed.send('listen', { token: 'good', browserinfo: {}, reconnectTimeout: 0 });
    await renewed.next('connected');
    clock.advance(AUTH_DEADLINE_MS - 1);
    expect(lapsed.ws.readyState).toBe(lapsed.ws.OPEN);
    clock.advance(1);
    expect((await closed).code).toBe(4401);
    await roundTrip(renewed);
  });
});

describe('incoming calls', () => {
  it('invites every registered device of the identity; the first answer wins, the others are cancelled', async () => {
    const a = await client();
    const b = await client();
    const rung = await engine.ringAgent('CA1', '7', { From: 'client:5', To: '+15550100042' });
    expect(rung).toBe(2);
    const inviteA = await a.next('invite');
    const inviteB = await b.next('invite');
    expect(inviteA).toMatchObject({
      callsid: 'CA1',
      parameters: { From: 'client:5', To: '+15550100042', CallSid: 'CA1' },
    });
    expect(inviteA.sdp).toMatch(/^v=0 offer CA1\./);
    b.send('answer', { callsid: 'CA1', sdp: 'v=0 answer-b' });
    expect(await a.next('cancel')).toEqual({ callsid: 'CA1' });
    await reported({ type: 'agent.answered', callSid: 'CA1', identity: '7' });
    expect(media.ops('acceptAnswer')).toEqual([
      [String(inviteB.sdp).slice('v=0 offer '.length), 'v=0 answer-b'],
    ]);
    // The agent hangs up.
    b.send('hangup', { callsid: 'CA1' });
    await reported({
      type: 'agent.left',
      callSid: 'CA1',
      identity: '7',
      reason: 'hangup',
    });
  });

  it('rings nobody for an offline identity', async () => {
    expect(await engine.ringAgent('CA2', '99', {})).toBe(0);
  });

  it('reports a rejection and a cancel', async () => {
    const a = await client();
    await engine.ringAgent('CA3', '7', {});
    await a.next('invite');
    a.send('reject', { callsid: 'CA3' });
    await reported({ type: 'agent.rejected', callSid: 'CA3', identity: '7' });
    await engine.ringAgent('CA4', '7', {});
    await a.next('invite');
    engine.cancelRing('CA4');
    expect(await a.next('cancel')).toEqual({ callsid: 'CA4' });
  });

  it("keeps other identities' calls out of reach", async () => {
    const a = await client();
    const intruder = await client('other');
    await engine.ringAgent('CA5', '7', {});
    await a.next('invite');
    intruder.send('answer', { callsid: 'CA5', sdp: 'v=0 x' });
    expect(await intruder.next('error')).toMatchObject({ callsid: 'CA5', error: { code: 31404 } });
  });

  it('hangs up the client when the call ends on the network side, with the error if any', async () => {
    const a = await client();
    await engine.ringAgent('CA6', '7', {});
    await a.next('invite');
    a.send('answer', { callsid: 'CA6', sdp: 'v=0 a' });
    await reported({ type: 'agent.answered', callSid: 'CA6', identity: '7' });
    engine.hangup('CA6', { code: 31486, message: 'busy' });
    expect(await a.next('hangup')).toEqual({
      callsid: 'CA6',
      error: { code: 31486, message: 'busy' },
    });
    expect(media.ops('closeRoom')).toContainEqual(['CA6']);
  });
});

describe('outgoing calls', () => {
  it('authorises, creates the answer leg, dials, and sends ringing then answer with the SDP', async () => {
    const a = await client();
    a.send('invite', {
      callsid: 'TJS1',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    await commanded('dial');
    const [[room, participant, offer]] = media.ops('createAnswerLeg') as [[string, string, string]];
    expect([room, offer]).toEqual(['CAout', 'v=0 offer']);
    expect(media.ops('dial')).toEqual([
      ['CAout', expect.stringMatching(/^CAout\.phone\./), '+15550100042'],
    ]);
    const phone = (media.ops('dial')[0] as string[])[1]!;
    media.emit({ type: 'party.ringing', participantId: phone, roomId: 'CAout' });
    expect(await a.next('ringing')).toEqual({ callsid: 'CAout', sdp: `v=0 answer ${participant}` });
    media.emit({ type: 'party.answered', participantId: phone, roomId: 'CAout' });
    expect(await a.next('answer')).toEqual({
      callsid: 'CAout',
      sdp: `v=0 answer ${participant}`,
      reconnect: anyToken,
    });
    // The client hangs up with its temporary id; the gateway knows the call by both.
    a.send('hangup', { callsid: 'TJS1' });
    await reported({
      type: 'agent.left',
      callSid: 'CAout',
      identity: '7',
      reason: 'hangup',
    });
  });

  it('hangs up with the refusal when the call is not allowed', async () => {
    const a = await client();
    a.send('invite', {
      callsid: 'TJS2',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550199005' },
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS2',
      error: { code: 31480, message: 'The number could not be reached.' },
    });
  });

  /**
   * Places an outgoing call from `c` to `to` (`invite` with the temporary id `callsid`) and waits
   * until its number is dialled; returns the dialled phone party.
   */
  async function placeCall(c: TestClient, callsid: string, to: string): Promise<string> {
    c.send('invite', {
      callsid,
      sdp: 'v=0 offer',
      twilio: { params: new URLSearchParams({ To: to }).toString() },
    });
    await commanded('dial');
    return (media.ops('dial')[0] as string[])[1]!;
  }

  // The client has been given no sid yet (no `ringing`, no `answer`): it knows the call only by
  // its temporary id, and both SDKs ignore a hangup naming anything else (the call would stay
  // "Dialing..." forever).
  it('hangs up with 31486 when the dialled number is busy, naming the call by its temporary id', async () => {
    const a = await client();
    const phone = await placeCall(a, 'TJS3', '+15550199001');
    media.emit({ type: 'party.unanswered', participantId: phone, roomId: 'CAout', reason: 'busy' });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS3',
      error: { code: 31486, message: 'The number is busy.' },
    });
    expect(a.frames.map((frame) => frame.type)).not.toContain('ringing');
    expect(media.ops('closeRoom')).toEqual([['CAout']]);
    // The call is over for the gateway too: the client's own hangup of it changes nothing.
    a.send('hangup', { callsid: 'TJS3' });
    await roundTrip(a);
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
  });

  it('hangs up with 31480 when the dialled number is invalid, naming the call by its temporary id', async () => {
    const a = await client();
    // Outside the sandbox: the network fails it at once, as an invalid number.
    const phone = await placeCall(a, 'TJS4', '+442071234567');
    media.emit({
      type: 'party.unanswered',
      participantId: phone,
      roomId: 'CAout',
      reason: 'failed',
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS4',
      error: { code: 31480, message: 'The number could not be reached.' },
    });
  });

  it('hangs up with 31408 and the sid that ringing gave when the dialled number does not answer', async () => {
    const a = await client();
    const phone = await placeCall(a, 'TJS5', '+15550199002');
    media.emit({ type: 'party.ringing', participantId: phone, roomId: 'CAout' });
    expect(await a.next('ringing')).toMatchObject({ callsid: 'CAout' });
    // The number rings out (30 s, in the media engine) without an answer.
    media.emit({
      type: 'party.unanswered',
      participantId: phone,
      roomId: 'CAout',
      reason: 'no-answer',
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'CAout',
      error: { code: 31408, message: 'The number did not answer.' },
    });
  });

  it("hangs up with 31003 and the temporary id when the caller's leg fails before the call rings", async () => {
    const a = await client();
    await placeCall(a, 'TJS6', '+15550100042');
    const [[, participant]] = media.ops('createAnswerLeg') as [[string, string]];
    media.emit({
      type: 'leg.failed',
      participantId: participant,
      roomId: 'CAout',
      reason: 'ICE failed',
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS6',
      error: { code: 31003, message: 'Media connection failed: ICE failed' },
    });
    await reported({ type: 'agent.left', callSid: 'CAout', identity: '7', reason: 'failed' });
  });

  // Found by the signalling fuzz (apps/server/src/api-matrix/signalling-fuzz.integration.test.ts):
  // the owner had recorded a call for the invite, and nothing ever ended it.
  it('ends the call the invite was authorised for (agent.left failed) when its offer is unusable', async () => {
    media.createAnswerLegError = new Error('Invalid SDP');
    const a = await client();
    a.send('invite', {
      callsid: 'TJS7',
      sdp: 'not an offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS7',
      error: { code: 31000, message: 'Error processing the offer: Invalid SDP' },
    });
    await reported({ type: 'agent.left', callSid: 'CAout', identity: '7', reason: 'failed' });
    expect(media.ops('dial')).toEqual([]);
    // The owner ends the call: nothing of it is kept.
    engine.hangup('CAout');
    expect(engine.signallingStats()).toEqual({ ...NOTHING, sessions: 1 });
  });

  it('ends the call the invite was authorised for (agent.left disconnected) when its socket closed meanwhile', async () => {
    let release = (): void => undefined;
    authorizeGate = new Promise((resolve) => (release = resolve));
    const a = await client();
    a.send('invite', {
      callsid: 'TJS8',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    await eventually(() => expect(authorized).toHaveLength(1));
    a.close();
    await socketGone();
    release();
    await reported({
      type: 'agent.left',
      callSid: 'CAout',
      identity: '7',
      reason: 'disconnected',
    });
    expect(media.ops('createAnswerLeg')).toEqual([]);
    expect(media.ops('dial')).toEqual([]);
  });

  it('refuses a temporary id that already names a call without asking the owner', async () => {
    const b = await client('other');
    await placeCall(b, 'TJS9', '+15550100042');
    const a = await client();
    a.send('invite', {
      callsid: 'TJS9',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100043' },
    });
    expect(await a.next('hangup')).toEqual({
      callsid: 'TJS9',
      error: { code: 31100, message: 'This call is already in progress.' },
    });
    expect(authorized).toEqual([{ To: '+15550100042' }]);
  });
});

/** The engine's signalling bookkeeping when it keeps nothing. */
const NOTHING = {
  sessions: 0,
  calls: 0,
  rooms: 0,
  roomSids: 0,
  participants: 0,
  tokens: 0,
  pendingOutgoing: 0,
};

describe('bookkeeping', () => {
  it('counts sockets, calls, rooms, legs and tokens, and keeps nothing once they are gone', async () => {
    expect(engine.signallingStats()).toEqual(NOTHING);
    const a = await client();
    await joinCall(a, 'CA1', '7');
    expect(engine.signallingStats()).toEqual({
      sessions: 1,
      calls: 1,
      rooms: 1,
      roomSids: 1,
      participants: 1,
      tokens: 1,
      pendingOutgoing: 0,
    });
    engine.hangup('CA1');
    a.close();
    await eventually(() => expect(engine.signallingStats()).toEqual(NOTHING));
  });
});

const WIRE_SID = /^CA[0-9a-f]{32}$/;

/**
 * Rings `identity` into the room, answers on `c`, waits until the engine reports the answer, and
 * returns the invite it got.
 */
async function joinCall(
  c: TestClient,
  room: string,
  identity: string,
  role?: 'agent' | 'conference' | 'listen' | 'whisper' | 'barge',
): Promise<Record<string, unknown>> {
  expect(await engine.ringAgent(room, identity, {}, role ? { role } : {})).toBe(1);
  const invite = await c.next('invite');
  c.send('answer', { callsid: invite.callsid, sdp: `v=0 answer ${identity}` });
  await reported({ type: 'agent.answered', callSid: room, identity });
  return invite;
}

const participantOf = (invite: Record<string, unknown>): string =>
  String(invite.sdp).slice('v=0 offer '.length);

describe('several clients in one room', () => {
  it('gives the first leg the room sid and later legs fresh sids; events name the room', async () => {
    const agent = await client('good');
    const supervisor = await client('other');
    const first = await joinCall(agent, 'CAroom', '7');
    const second = await joinCall(supervisor, 'CAroom', '8', 'whisper');
    expect(first.callsid).toBe('CAroom');
    expect(first.parameters).toMatchObject({ CallSid: 'CAroom' });
    expect(second.callsid).toMatch(WIRE_SID);
    expect(second.callsid).not.toBe('CAroom');
    expect(second.parameters).toMatchObject({ CallSid: second.callsid });
    expect(media.ops('createOfferLeg')).toEqual([
      ['CAroom', participantOf(first), 'agent'],
      ['CAroom', participantOf(second), 'whisper'],
    ]);
    expect(events.filter((e) => e.type === 'agent.answered')).toEqual([
      { type: 'agent.answered', callSid: 'CAroom', identity: '7' },
      { type: 'agent.answered', callSid: 'CAroom', identity: '8' },
    ]);
    // The supervisor hangs up: only its leg leaves, reported for the room.
    supervisor.send('hangup', { callsid: second.callsid });
    await reported({
      type: 'agent.left',
      callSid: 'CAroom',
      identity: '8',
      reason: 'hangup',
    });
    expect(media.ops('remove')).toEqual([[participantOf(second)]]);
    expect(media.ops('closeRoom')).toEqual([]);
    // The same identity cannot be rung twice into one room while it is there.
    expect(await engine.ringAgent('CAroom', '7', {})).toBe(0);
  });

  it('setRole changes the media role of the leg (and of legs still ringing)', async () => {
    const agent = await client('good');
    const supervisor = await client('other');
    await joinCall(agent, 'CAroles', '7');
    const whisper = await joinCall(supervisor, 'CAroles', '8', 'whisper');
    engine.setRole('CAroles', '8', 'barge');
    expect(media.ops('setRole')).toEqual([[participantOf(whisper), 'barge']]);
    const third = await client('good');
    await engine.ringAgent('CAother', '7', {}, { role: 'listen' });
    const ringing = await third.next('invite');
    await agent.next('invite');
    engine.setRole('CAother', '7', 'whisper');
    expect(media.ops('setRole')).toHaveLength(3);
    expect(media.ops('setRole')).toContainEqual([participantOf(ringing), 'whisper']);
    // Nobody there: nothing happens.
    engine.setRole('CAnone', '7', 'barge');
    expect(media.ops('setRole')).toHaveLength(3);
  });

  it('removeAgent hangs up one client (cancel while ringing) without agent.left; the room stays', async () => {
    const agent = await client('good');
    const supervisor = await client('other');
    await joinCall(agent, 'CAtransfer', '7');
    const listening = await joinCall(supervisor, 'CAtransfer', '8', 'listen');
    engine.removeAgent('CAtransfer', '8');
    expect(await supervisor.next('hangup')).toEqual({ callsid: listening.callsid });
    expect(media.ops('remove')).toEqual([[participantOf(listening)]]);
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
    await engine.ringAgent('CAtransfer', '8', {});
    const invite = await supervisor.next('invite');
    engine.removeAgent('CAtransfer', '8');
    expect(await supervisor.next('cancel')).toEqual({ callsid: invite.callsid });
    expect(media.ops('closeRoom')).toEqual([]);
  });

  it("cancelRing withdraws one identity's invite, or every invite of the call", async () => {
    const seven = await client('good');
    const eight = await client('other');
    await engine.ringAgent('CAring', '7', {});
    await engine.ringAgent('CAring', '8', {});
    const toSeven = await seven.next('invite');
    const toEight = await eight.next('invite');
    engine.cancelRing('CAring', '8');
    expect(await eight.next('cancel')).toEqual({ callsid: toEight.callsid });
    await roundTrip(seven);
    expect(seven.frames.filter((f) => f.type === 'cancel')).toEqual([]);
    engine.cancelRing('CAring');
    expect(await seven.next('cancel')).toEqual({ callsid: toSeven.callsid });
  });

  it('hangup ends the room for every client: hangup to legs, cancel to invites', async () => {
    const seven = await client('good');
    const eight = await client('other');
    const leg = await joinCall(seven, 'CAend', '7');
    await engine.ringAgent('CAend', '8', {});
    const invite = await eight.next('invite');
    engine.hangup('CAend');
    expect(await seven.next('hangup')).toEqual({ callsid: leg.callsid });
    expect(await eight.next('cancel')).toEqual({ callsid: invite.callsid });
    expect(media.ops('closeRoom')).toEqual([['CAend']]);
    // The room sid is free again for a new call of that sid.
    expect(await engine.ringAgent('CAend', '7', {})).toBe(1);
    expect((await seven.next('invite')).callsid).toBe('CAend');
  });
});

describe('ICE restart (reinvite)', () => {
  it('applies the offer to the leg and answers with the engine SDP and the reconnect token', async () => {
    const c = await client();
    const invite = await joinCall(c, 'CAice', '7');
    c.send('reinvite', { callsid: 'CAice', sdp: 'v=0 restart' });
    expect(await c.next('answer')).toEqual({
      callsid: 'CAice',
      sdp: `v=0 reanswer ${participantOf(invite)}`,
      reconnect: invite.reconnect,
    });
    expect(media.ops('renegotiate')).toEqual([[participantOf(invite), 'v=0 restart']]);
  });

  it('answers an offer the engine cannot use with a 31000 error and keeps the call', async () => {
    const c = await client();
    await joinCall(c, 'CAbad', '7');
    media.renegotiateError = new Error('no PCMU');
    c.send('reinvite', { callsid: 'CAbad', sdp: 'v=0 opus only' });
    expect(await c.next('error')).toEqual({
      callsid: 'CAbad',
      error: { code: 31000, message: 'Error processing the offer: no PCMU' },
    });
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
  });

  it('refuses a reinvite for a call that is not in progress', async () => {
    const c = await client();
    await engine.ringAgent('CAearly', '7', {});
    await c.next('invite');
    c.send('reinvite', { callsid: 'CAearly', sdp: 'v=0 restart' });
    expect((await c.next('error')).error).toMatchObject({ code: 31100 });
  });
});

describe('signalling reconnect', () => {
  it('keeps a live call when its socket drops; a new socket with the token takes it over', async () => {
    const first = await client();
    const invite = await joinCall(first, 'CArec', '7');
    expect(invite.reconnect).toMatch(/^[\w-]{20,}$/);
    first.ws.close();
    await socketGone();
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
    expect(media.ops('remove')).toEqual([]);

    const second = await client('good', false);
    await second.next('connected');
    second.send('invite', {
      callsid: 'CArec',
      sdp: 'v=0 same offer',
      reconnect: invite.reconnect,
      twilio: {},
    });
    const answer = await second.next('answer');
    expect(answer).toEqual({
      callsid: 'CArec',
      sdp: `v=0 reanswer ${participantOf(invite)}`,
      reconnect: anyToken,
    });
    expect(answer.reconnect).not.toBe(invite.reconnect);
    expect(media.ops('renegotiate')).toEqual([[participantOf(invite), 'v=0 same offer']]);
    // The call lives on the new socket, well past the grace period.
    clock.advance(2 * GRACE_MS);
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
    second.send('hangup', { callsid: 'CArec' });
    await reported({
      type: 'agent.left',
      callSid: 'CArec',
      identity: '7',
      reason: 'hangup',
    });
    // The old token is spent.
    const third = await client('good', false);
    await third.next('connected');
    third.send('invite', { callsid: 'CArec', sdp: 'v=0', reconnect: invite.reconnect, twilio: {} });
    expect(await third.next('hangup')).toEqual({
      callsid: 'CArec',
      error: { code: 31404, message: 'This call can no longer be reconnected.' },
    });
  });

  it('refuses unknown tokens, tokens of another identity and tokens for another call with 31404', async () => {
    const owner = await client();
    const invite = await joinCall(owner, 'CAmine', '7');
    owner.ws.close();
    await socketGone();
    const refusal = {
      error: { code: 31404, message: 'This call can no longer be reconnected.' },
    };
    const stranger = await client('other', false);
    await stranger.next('connected');
    stranger.send('invite', {
      callsid: 'CAmine',
      sdp: 'v=0',
      reconnect: invite.reconnect,
      twilio: {},
    });
    expect(await stranger.next('hangup')).toEqual({ callsid: 'CAmine', ...refusal });
    const same = await client('good', false);
    await same.next('connected');
    same.send('invite', { callsid: 'CAmine', sdp: 'v=0', reconnect: 'made-up-token', twilio: {} });
    expect(await same.next('hangup')).toEqual({ callsid: 'CAmine', ...refusal });
    same.send('invite', { callsid: 'CAelse', sdp: 'v=0', reconnect: invite.reconnect, twilio: {} });
    expect(await same.next('hangup')).toEqual({ callsid: 'CAelse', ...refusal });
    expect(media.ops('renegotiate')).toEqual([]);
  });

  it('ends the call (agent.left disconnected) when nobody reconnects within the grace period', async () => {
    const c = await client();
    const invite = await joinCall(c, 'CAgone', '7');
    c.ws.close();
    await socketGone();
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
    // The grace period runs from the socket's loss: a millisecond short of it the call waits…
    clock.advance(GRACE_MS - 1);
    expect(events.some((e) => e.type === 'agent.left')).toBe(false);
    expect(media.ops('remove')).toEqual([]);
    // …and at its end the call is over.
    clock.advance(1);
    expect(events).toContainEqual({
      type: 'agent.left',
      callSid: 'CAgone',
      identity: '7',
      reason: 'disconnected',
    });
    expect(media.ops('remove')).toEqual([[participantOf(invite)]]);
    const late = await client('good', false);
    await late.next('connected');
    late.send('invite', { callsid: 'CAgone', sdp: 'v=0', reconnect: invite.reconnect, twilio: {} });
    expect((await late.next('hangup')).error).toMatchObject({ code: 31404 });
  });

  it('an outgoing call carries its token in answer and can be reconnected by its temporary id', async () => {
    const a = await client();
    a.send('invite', {
      callsid: 'TJS9',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    await commanded('dial');
    const phone = (media.ops('dial')[0] as string[])[1]!;
    media.emit({ type: 'party.answered', participantId: phone, roomId: 'CAout' });
    const answer = await a.next('answer');
    a.ws.close();
    await socketGone();
    const b = await client('good', false);
    await b.next('connected');
    b.send('invite', {
      callsid: 'TJS9',
      sdp: 'v=0 offer',
      reconnect: answer.reconnect,
      twilio: {},
    });
    expect(await b.next('answer')).toMatchObject({ callsid: 'TJS9' });
  });

  it('a call still ringing or dialling when its socket drops ends at once', async () => {
    const a = await client();
    a.send('invite', {
      callsid: 'TJS8',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550100042' },
    });
    // The call is placed: its number is being dialled.
    await commanded('dial');
    a.ws.close();
    await reported({
      type: 'agent.left',
      callSid: 'CAout',
      identity: '7',
      reason: 'disconnected',
    });
  });

  it('a reconnecting call can be hung up from a new socket of the same identity', async () => {
    const c = await client();
    await joinCall(c, 'CAbye', '7');
    c.ws.close();
    await socketGone();
    const d = await client();
    d.send('hangup', { callsid: 'CAbye' });
    await reported({
      type: 'agent.left',
      callSid: 'CAbye',
      identity: '7',
      reason: 'hangup',
    });
  });
});

describe('the network side', () => {
  it('forwards signalled digits to the lead, holds and unholds, adds callers, interrupts media', async () => {
    const c = await client();
    const invite = await joinCall(c, 'CAnet', '7');
    c.send('dtmf', { callsid: 'CAnet', dtmf: '5#' });
    await reported({
      type: 'dtmf',
      callSid: 'CAnet',
      source: 'agent',
      digits: '5#',
    });
    expect(media.ops('sendDigits')).toEqual([['CAnet', '5#']]);
    engine.hold('CAnet');
    engine.unhold('CAnet');
    expect(media.ops('setHold')).toEqual([
      ['CAnet', true],
      ['CAnet', false],
    ]);
    engine.addCaller('CAin', '+15550101234', '+15557654321');
    expect(media.ops('addCaller')).toEqual([
      ['CAin', expect.stringMatching(/^CAin\.caller\./), '+15550101234', '+15557654321'],
    ]);
    expect(engine.interruptMedia('CAnet', '7', 5000)).toBe(true);
    expect(engine.interruptMedia('CAnet', '8', 5000)).toBe(false);
    expect(media.ops('interruptMedia')).toEqual([[participantOf(invite), 5000]]);
  });

  it('reports what the media engine says about the lead and the recording, by call', () => {
    media.emit({ type: 'party.dtmf', participantId: 'CAx.phone.1', roomId: 'CAx', digits: '42' });
    media.emit({
      type: 'recording.ready',
      roomId: 'CAx',
      path: '/data/recordings/CAx.wav',
      seconds: 12.5,
    });
    expect(events).toEqual([
      { type: 'phone.dtmf', callSid: 'CAx', participantId: 'CAx.phone.1', digits: '42' },
      { type: 'recording.ready', callSid: 'CAx', path: '/data/recordings/CAx.wav', seconds: 12.5 },
    ]);
  });
});
