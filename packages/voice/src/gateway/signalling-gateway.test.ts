import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { encodeFrame } from '@leadline/contracts/signalling';
import { FakeMediaEngine } from '../testing/fake-media-engine';
import { VoiceEngine, type TelephonyEvent } from '../voice-engine';
import type { TokenCheck } from './client-session';

/** A client socket that collects frames and waits for them. */
class TestClient {
  readonly frames: Array<{ type: string; payload: Record<string, unknown> }> = [];
  readonly #waiters: Array<() => void> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text === '\n') return;
      this.frames.push(JSON.parse(text) as never);
      this.#waiters.splice(0).forEach((w) => w());
    });
  }
  static async connect(url: string): Promise<TestClient> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new TestClient(ws);
  }
  send(type: string, payload: unknown): void {
    this.ws.send(encodeFrame(type, payload));
  }
  async next(type: string): Promise<Record<string, unknown>> {
    for (;;) {
      const index = this.frames.findIndex((f) => f.type === type);
      if (index >= 0) return this.frames.splice(index, 1)[0]!.payload;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no '${type}' frame; got ${JSON.stringify(this.frames)}`)),
          2000,
        );
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const TOKENS: Record<string, TokenCheck> = {
  good: { ok: true, identity: '7', expiresAt: Math.floor(Date.now() / 1000) + 600 },
  other: { ok: true, identity: '8', expiresAt: Math.floor(Date.now() / 1000) + 600 },
  expired: { ok: false, reason: 'expired' },
};

let server: Server;
let media: FakeMediaEngine;
let engine: VoiceEngine;
let url: string;
let events: TelephonyEvent[];
const clients: TestClient[] = [];

beforeEach(async () => {
  media = new FakeMediaEngine();
  events = [];
  engine = new VoiceEngine({
    media,
    verifyToken: (token) => Promise.resolve(TOKENS[token] ?? { ok: false, reason: 'invalid' }),
    authorizeOutgoing: (_identity, params) =>
      Promise.resolve(
        params.To === '+15550199005'
          ? { error: { code: 31480, message: 'The number could not be reached.' } }
          : { callSid: 'CAout', dial: params.To ?? '' },
      ),
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
  const c = await TestClient.connect(url);
  clients.push(c);
  c.send('listen', { token, browserinfo: {}, reconnectTimeout: 0 });
  if (register) {
    await c.next('connected');
    c.send('register', { media: { audio: true } });
    await c.next('ready');
  }
  return c;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

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

  it('goes offline when the socket closes', async () => {
    const c = await client();
    c.ws.close();
    await settle();
    expect(engine.isOnline('7')).toBe(false);
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
    await settle();
    expect(events).toContainEqual({ type: 'agent.answered', callSid: 'CA1', identity: '7' });
    expect(media.ops('acceptAnswer')).toEqual([
      [String(inviteB.sdp).slice('v=0 offer '.length), 'v=0 answer-b'],
    ]);
    // The agent hangs up.
    b.send('hangup', { callsid: 'CA1' });
    await settle();
    expect(events).toContainEqual({
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
    await settle();
    expect(events).toContainEqual({ type: 'agent.rejected', callSid: 'CA3', identity: '7' });
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
    await settle();
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
    await settle();
    const [[room, participant, offer]] = media.ops('createAnswerLeg') as [[string, string, string]];
    expect([room, offer]).toEqual(['CAout', 'v=0 offer']);
    expect(media.ops('dial')).toEqual([
      ['CAout', expect.stringMatching(/^CAout\.phone\./), '+15550100042'],
    ]);
    const phone = (media.ops('dial')[0] as string[])[1]!;
    media.emit({ type: 'party.ringing', participantId: phone, roomId: 'CAout' });
    expect(await a.next('ringing')).toEqual({ callsid: 'CAout', sdp: `v=0 answer ${participant}` });
    media.emit({ type: 'party.answered', participantId: phone, roomId: 'CAout' });
    expect(await a.next('answer')).toEqual({ callsid: 'CAout', sdp: `v=0 answer ${participant}` });
    // The client hangs up with its temporary id; the gateway knows the call by both.
    a.send('hangup', { callsid: 'TJS1' });
    await settle();
    expect(events).toContainEqual({
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

  it('hangs up with 31486 when the dialled number is busy', async () => {
    const a = await client();
    a.send('invite', {
      callsid: 'TJS3',
      sdp: 'v=0 offer',
      twilio: { params: 'To=%2B15550199001' },
    });
    await settle();
    const phone = (media.ops('dial')[0] as string[])[1]!;
    media.emit({ type: 'party.unanswered', participantId: phone, roomId: 'CAout', reason: 'busy' });
    expect(await a.next('hangup')).toEqual({
      callsid: 'CAout',
      error: { code: 31486, message: 'The number is busy.' },
    });
  });
});
