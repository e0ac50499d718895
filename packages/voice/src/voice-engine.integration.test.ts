/**
 * The voice engine end to end with real parts: the worker media engine, the gateway on a real
 * HTTP server, PStream clients on real sockets and werift peers playing the browsers. Covers what
 * the SDK relies on: several clients in one room, ICE restarts (`reinvite`), signalling
 * reconnects with the call's token, and the media-interruption test hook.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readWavFile } from './dsp/wav';
import { WeriftBrowser } from './media/werift-browser';
import { WorkerMediaEngine } from './media/worker-media-engine';
import { between, tonesIn } from './testing/audio-checks';
import { listen as listenFor } from './testing/media-waits';
import { PStreamTestClient } from './testing/pstream-test-client';
import { VoiceEngine, type TelephonyEvent } from './voice-engine';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a test waits for audio, an event or a frame before it fails. */
const WAIT_MS = 15_000;

/** Waits until `browser` has heard `seconds` more audio (media-waits' `listen`), and returns it. */
const listen = (browser: WeriftBrowser, seconds: number) => listenFor(browser, seconds, WAIT_MS);

/**
 * Waits until an ICE restart of `browser` is through: its new ICE checks succeeded (it can send
 * again) and audio reaches it again.
 */
async function restarted(browser: WeriftBrowser): Promise<void> {
  await vi.waitFor(() => expect(browser.peer.iceConnectionState).toBe('connected'), {
    timeout: WAIT_MS,
    interval: 20,
  });
  await listen(browser, 0.5);
}

/** Waits until `browser` hears nothing new from one poll to the next. */
async function silenced(browser: WeriftBrowser): Promise<void> {
  const until = Date.now() + WAIT_MS;
  for (let heard = browser.heardSamples; ; heard = browser.heardSamples) {
    await sleep(50);
    if (browser.heardSamples === heard) return;
    if (Date.now() > until) throw new Error(`still hearing audio after ${WAIT_MS} ms`);
  }
}

describe('VoiceEngine with real media, sockets and peers', () => {
  let dir: string;
  let server: Server;
  let media: WorkerMediaEngine;
  let engine: VoiceEngine;
  let url: string;
  const events: TelephonyEvent[] = [];
  const peers: WeriftBrowser[] = [];
  const sockets: PStreamTestClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-voice-engine-'));
    media = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dir, 'sandbox'),
      recordingsDir: join(dir, 'recordings'),
      answerDelayMs: 200,
    });
    engine = new VoiceEngine({
      media,
      // The token is the identity.
      verifyToken: (token) =>
        Promise.resolve({ ok: true, identity: token, expiresAt: Date.now() / 1000 + 3600 }),
      authorizeOutgoing: () =>
        Promise.resolve({ error: { code: 31404, message: 'No outgoing calls here.' } }),
      reconnectGraceMs: 10_000,
    });
    engine.subscribe((event) => events.push(event));
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

  /** Rings `identity` into `room` in `role`, answers with a werift peer playing `toneHz`. */
  async function joinCall(
    socket: PStreamTestClient,
    room: string,
    identity: string,
    toneHz: number,
    role?: 'agent' | 'whisper' | 'listen' | 'barge' | 'conference',
  ): Promise<{ peer: WeriftBrowser; invite: Record<string, unknown> }> {
    const peer = new WeriftBrowser({ toneHz });
    peers.push(peer);
    expect(await engine.ringAgent(room, identity, {}, role ? { role } : {})).toBe(1);
    const invite = await socket.next('invite');
    socket.send('answer', { callsid: invite.callsid, sdp: await peer.answer(String(invite.sdp)) });
    await peer.connected();
    return { peer, invite };
  }

  async function leadHeard(room: string): Promise<{ samples: Int16Array; seconds: number }> {
    const until = Date.now() + 10_000;
    for (;;) {
      const recorded = events.find(
        (event): event is Extract<TelephonyEvent, { type: 'phone.recorded' }> =>
          event.type === 'phone.recorded' && event.callSid === room,
      );
      if (recorded) {
        return { samples: (await readWavFile(recorded.path)).samples, seconds: recorded.seconds };
      }
      if (Date.now() > until) throw new Error(`no recording of the lead of ${room}`);
      await sleep(50);
    }
  }

  it('several clients in one room, each in its role: a whisper is heard by the agent only', async () => {
    const agentSocket = await device('agent-a');
    const supervisorSocket = await device('supervisor-a');
    const agent = await joinCall(agentSocket, 'CAroles', 'agent-a', 1000);
    engine.dial('CAroles', '+15550100042');
    expect(tonesIn(await listen(agent.peer, 1), [440], 0.5)).toEqual([440]);
    const supervisor = await joinCall(supervisorSocket, 'CAroles', 'supervisor-a', 1500, 'whisper');
    expect(supervisor.invite.callsid).not.toBe('CAroles');
    // Time passes: the supervisor's audio flows into the mix for a moment before it is judged.
    await sleep(500);
    expect(tonesIn(await listen(agent.peer, 1.5), [440, 1500], 0.1)).toEqual([440, 1500]);
    expect(tonesIn(await listen(supervisor.peer, 1.5), [440, 1000], 0.1)).toEqual([440, 1000]);
    engine.setRole('CAroles', 'supervisor-a', 'barge');
    // Time passes: the lead hears the barge for 1.5 s before the call ends.
    await sleep(1500);
    engine.hangup('CAroles');
    const lead = await leadHeard('CAroles');
    // Whispering (before the last 1.5 s), the lead heard only the agent; barging, both.
    expect(tonesIn(between(lead.samples, 0.2, lead.seconds - 2), [1000, 1500], 0.05)).toEqual([
      1000,
    ]);
    expect(
      tonesIn(between(lead.samples, lead.seconds - 1, lead.seconds), [1000, 1500], 0.1),
    ).toEqual([1000, 1500]);
    const ready = events.find(
      (event) => event.type === 'recording.ready' && event.callSid === 'CAroles',
    );
    expect(ready).toMatchObject({ path: join(dir, 'recordings', 'CAroles.wav') });
  }, 60_000);

  it('reinvite (ICE restart) is answered with the new SDP and audio goes on', async () => {
    const socket = await device('agent-b');
    const { peer, invite } = await joinCall(socket, 'CAreinvite', 'agent-b', 1000);
    engine.dial('CAreinvite', '+15550100042');
    expect(tonesIn(await listen(peer, 1), [440], 0.5)).toEqual([440]);
    socket.send('reinvite', { callsid: invite.callsid, sdp: await peer.restartIce() });
    const answer = await socket.next('answer');
    expect(answer).toMatchObject({ callsid: invite.callsid, reconnect: invite.reconnect });
    await peer.acceptAnswer(String(answer.sdp));
    await restarted(peer);
    expect(tonesIn(await listen(peer, 1), [440], 0.5)).toEqual([440]);
    engine.hangup('CAreinvite');
  }, 60_000);

  it('a dropped socket keeps the call; a new socket reconnects with the token, media untouched', async () => {
    const first = await device('agent-c');
    const { peer, invite } = await joinCall(first, 'CAreconnect', 'agent-c', 1000);
    engine.dial('CAreconnect', '+15550100042');
    await listen(peer, 0.5);
    first.close();
    // Media does not depend on the socket: the lead still plays while nobody is connected.
    expect(tonesIn(await listen(peer, 1), [440], 0.5)).toEqual([440]);
    const second = await device('agent-c');
    // The official SDK re-sends the SDP it has (no ICE restart): nothing to renegotiate.
    second.send('invite', {
      callsid: invite.callsid,
      sdp: peer.currentSdp,
      reconnect: invite.reconnect,
      twilio: {},
    });
    const answer = await second.next('answer');
    expect(answer.callsid).toBe(invite.callsid);
    expect(typeof answer.reconnect).toBe('string');
    expect(answer.reconnect).not.toBe(invite.reconnect);
    expect(tonesIn(await listen(peer, 1), [440], 0.5)).toEqual([440]);
    expect(events.filter((e) => e.type === 'agent.left' && e.callSid === 'CAreconnect')).toEqual(
      [],
    );
    // The call now belongs to the new socket.
    second.send('hangup', { callsid: invite.callsid });
    await vi.waitFor(
      () =>
        expect(events).toContainEqual({
          type: 'agent.left',
          callSid: 'CAreconnect',
          identity: 'agent-c',
          reason: 'hangup',
        }),
      { timeout: WAIT_MS },
    );
    engine.hangup('CAreconnect');
  }, 60_000);

  it('media cut off (test hook): ICE restarts during the cut fail, the leg waits, a later one brings audio back', async () => {
    const first = await device('agent-d');
    const { peer, invite } = await joinCall(first, 'CAcut', 'agent-d', 1000);
    engine.dial('CAcut', '+15550100042');
    await listen(peer, 0.5);
    const cutMs = 4000;
    expect(engine.interruptMedia('CAcut', 'agent-d', cutMs)).toBe(true);
    first.close();
    // The cut has begun once the media worker has handled it (a round trip to it proves that)
    // and the packets it sent before have been heard; it ends `cutMs` after it began.
    await media.stats();
    const cutOverAt = performance.now() + cutMs;
    await silenced(peer);
    const heardBefore = peer.heardSamples;
    await sleep(1000);
    expect(peer.heardSamples - heardBefore).toBe(0);
    // The SDK reconnects its socket with an ICE restart: signalling works, media is still cut.
    const second = await device('agent-d');
    second.send('invite', {
      callsid: invite.callsid,
      sdp: await peer.restartIce(),
      reconnect: invite.reconnect,
      twilio: {},
    });
    const answer = await second.next('answer');
    await peer.acceptAnswer(String(answer.sdp));
    // The cut ends; the SDK's next ICE restart (its back-off retry) connects.
    await sleep(Math.max(0, cutOverAt - performance.now()));
    second.send('reinvite', { callsid: invite.callsid, sdp: await peer.restartIce() });
    await peer.acceptAnswer(String((await second.next('answer')).sdp));
    await restarted(peer);
    expect(tonesIn(await listen(peer, 1), [440], 0.5)).toEqual([440]);
    expect(events.some((e) => e.type === 'agent.left' && e.callSid === 'CAcut')).toBe(false);
    engine.hangup('CAcut');
  }, 60_000);
});
