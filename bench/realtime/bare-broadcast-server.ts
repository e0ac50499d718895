/**
 * The realtime bench's reference (`taskset -c 0 node --import tsx realtime/bare-broadcast-server.ts`):
 * the floor of "one event to every connected socket". A plain Node HTTP server with a `ws`
 * server on the same port (no compression, as the embedded endpoint). `POST /broadcast` with a
 * JSON body `{event, channel, data}` builds the frame once (a Pusher-shaped event frame, `data`
 * a JSON string, as the embedded endpoint sends it), then sends it to every connected socket and
 * answers `{sentAt, loopMs}`: the shared clock (`performance.timeOrigin + performance.now()`,
 * ms) read just before the first send, and how long the send loop took. `GET /clock` answers `{now}` on the same clock.
 *
 * Environment: `PORT` (0: any). Prints one JSON line `{"ready":true,"port":…}` when it listens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.PORT ?? 0);
const clients = new Set<WebSocket>();
const now = (): number => performance.timeOrigin + performance.now();

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/clock') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ now: now() }));
    return;
  }
  if (request.method !== 'POST' || request.url !== '/broadcast') {
    response.statusCode = 404;
    response.end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as {
      event: string;
      channel: string;
      data: unknown;
    };
    const sentAt = now();
    const frame = JSON.stringify({
      event: body.event,
      channel: body.channel,
      data: JSON.stringify(body.data),
    });
    for (const client of clients) client.send(frame);
    const loopMs = now() - sentAt;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ sentAt, loopMs, clients: clients.size }));
  });
});
const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on('upgrade', (request, socket, head) =>
  sockets.handleUpgrade(request, socket, head, (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
  }),
);
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
console.log(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }));
process.on('SIGTERM', () => process.exit(0));
