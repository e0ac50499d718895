/**
 * The timers of a socket, on a manual clock. The keep-alive (spec section 9: activity timeout
 * 120 s, pong timeout 30 s): after the activity timeout the server pings; any frame back keeps
 * the socket, silence for the pong timeout closes it with 4201. The authentication deadline
 * (issue 36 item 6): a socket without an authorised subscription 30 s after it connected is
 * closed with 4101 and the reason; a public channel does not count.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ManualClock } from '../../test-support/manual-clock';
import { TEST_PUSHER } from '../../test-support/test-app';
import { waitUntil } from '../../test-support/wait-until';
import { accountChannelOf } from '../channels';
import { signChannel } from '../pusher-auth';
import { ACTIVITY_TIMEOUT_S, AUTH_DEADLINE_S, PONG_TIMEOUT_MS } from './constants';
import { EmbeddedPusher } from './embedded-pusher';
import { PUSHER_ERRORS } from './errors';

const clock = new ManualClock();
const endpoint = new EmbeddedPusher({ credentials: TEST_PUSHER, timers: clock });
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer();
  server.on('upgrade', (request, socket, head) => {
    if (!endpoint.handleUpgrade(request, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await endpoint.close();
  await new Promise((resolve) => server.close(resolve));
});

/** A socket; `authorised`: subscribed to an account channel with a valid signature. */
async function open(authorised = true) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${TEST_PUSHER.key}`);
  const events: string[] = [];
  const frames: Array<{ event: string; data?: unknown }> = [];
  let close: { code: number; reason: string } | undefined;
  ws.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as { event: string; data?: unknown };
    frames.push(frame);
    events.push(frame.event);
  });
  ws.on('close', (code, reason) => (close = { code, reason: reason.toString() }));
  await waitUntil(() => (events.length > 0 ? true : undefined), 'connection_established');
  const socketId = (
    JSON.parse(frames[0]!.data as string) as {
      socket_id: string;
    }
  ).socket_id;
  const subscribe = async (channel: string, auth?: string) => {
    ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth } }));
    await waitUntil(
      () =>
        events.includes('pusher_internal:subscription_succeeded') || events.includes('pusher:error')
          ? true
          : undefined,
      `the answer to subscribing to ${channel}`,
    );
  };
  if (authorised) {
    const channel = accountChannelOf(1);
    await subscribe(channel, signChannel(TEST_PUSHER, socketId, channel).auth);
  }
  return { ws, events, subscribe, closed: () => close?.code, close: () => close };
}

describe('keep-alive', () => {
  it('pings after the activity timeout and closes with 4201 without a reply', async () => {
    const { events, closed } = await open();
    clock.advance(ACTIVITY_TIMEOUT_S * 1000 - 1);
    expect(events).not.toContain('pusher:ping');
    clock.advance(1);
    await waitUntil(() => (events.includes('pusher:ping') ? true : undefined), 'pusher:ping');
    clock.advance(PONG_TIMEOUT_MS);
    expect(await waitUntil(closed, 'the close')).toBe(PUSHER_ERRORS.pongTimeout.code);
  });

  it('keeps the socket when the client answers the ping', async () => {
    const { ws, events, closed } = await open();
    clock.advance(ACTIVITY_TIMEOUT_S * 1000);
    await waitUntil(() => (events.includes('pusher:ping') ? true : undefined), 'pusher:ping');
    ws.send(JSON.stringify({ event: 'pusher:pong', data: {} }));
    // Frames are read in order: once the ping after it is answered, the pong has been read.
    ws.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
    await waitUntil(() => (events.includes('pusher:pong') ? true : undefined), 'pusher:pong');
    clock.advance(PONG_TIMEOUT_MS);
    expect(closed()).toBeUndefined();
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('the authentication deadline', () => {
  it('closes a socket without an authorised subscription after 30 s with 4101 and the reason', async () => {
    const { close, events } = await open(false);
    clock.advance(AUTH_DEADLINE_S * 1000 - 1);
    expect(close()).toBeUndefined();
    clock.advance(1);
    expect(await waitUntil(close, 'the close')).toEqual({
      code: 4101,
      reason: 'Not authorised: subscribe to a private or presence channel within 30 seconds.',
    });
    expect(PUSHER_ERRORS.authDeadline.code).toBe(4101);
    expect(events).toContain('pusher:error');
  });

  it('does not count a public channel or a forged signature', async () => {
    const { subscribe, close } = await open(false);
    await subscribe('public-news');
    await subscribe(accountChannelOf(1), `${TEST_PUSHER.key}:${'0'.repeat(64)}`);
    clock.advance(AUTH_DEADLINE_S * 1000);
    expect((await waitUntil(close, 'the close')).code).toBe(4101);
  });

  it('leaves a socket with an authorised subscription open', async () => {
    const { ws, closed } = await open(true);
    clock.advance(AUTH_DEADLINE_S * 1000);
    ws.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
    await new Promise((resolve) => ws.once('message', resolve));
    expect(closed()).toBeUndefined();
    ws.close();
  });
});
