/**
 * A stop while a request is being served (issue 38: with Twilio, callbacks reach every instance
 * all the time, so a SIGTERM nearly always finds one under way). The request is answered, with
 * `Connection: close`, and the server's close does not wait for the keep-alive connection it came
 * on (Node's close lets go only of connections idle when it starts; Fastify keeps the others
 * for 72 s).
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_PASSWORD } from './db/seed';
import { startTestApp, type TestApp } from './test-support/test-app';
import { waitUntil } from './test-support/wait-until';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  t.flows.stop();
  await t.flows.idle();
  await t.database.close();
});

it('answers a request under way with Connection: close and lets the connection go', async () => {
  const { port } = t.app.server.address() as AddressInfo;
  const dispatched = new Promise<void>((resolve) => t.app.server.once('request', () => resolve()));
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const body = JSON.stringify({ email: 'agent1@example.com', password: DEMO_PASSWORD });
  // A keep-alive request whose body is still on its way when the stop begins.
  socket.write(
    'POST /api/v1/user/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 5)}`,
  );
  await dispatched;

  const closed = t.app.close();
  await waitUntil(
    () => (t.app.server.listening ? undefined : true),
    'the server to stop listening',
  );
  socket.write(body.slice(5));

  await ended;
  expect(received).toMatch(/^HTTP\/1\.1 200 /);
  expect(received).toMatch(/\r\nconnection: close\r\n/i);
  await closed;
});
