/**
 * The server side of the keep-alive (spec section 9: activity timeout 120 s, pong timeout
 * 30 s) on a manual clock: after the activity timeout the server pings; any frame back keeps
 * the socket, silence for the pong timeout closes it with 4201.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ManualClock } from '../../test-support/manual-clock';
import { TEST_PUSHER } from '../../test-support/test-app';
import { waitUntil } from '../../test-support/wait-until';
import { ACTIVITY_TIMEOUT_S, PONG_TIMEOUT_MS } from './constants';
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

async function open() {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${TEST_PUSHER.key}`);
  const events: string[] = [];
  let closeCode: number | undefined;
  ws.on('message', (data: Buffer) =>
    events.push((JSON.parse(data.toString()) as { event: string }).event),
  );
  ws.on('close', (code) => (closeCode = code));
  await waitUntil(() => (events.length > 0 ? true : undefined), 'connection_established');
  return { ws, events, closed: () => closeCode };
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
