/**
 * The routing bench's reference (`taskset -c 0 node --import tsx routing/bare-push-server.ts`):
 * the floor of "HTTP in, WebSocket frame out". A plain Node HTTP server with a `ws` server on
 * the same port; each `POST /push` (a JSON body with `phone_number`) pushes one frame shaped
 * like the gateway's `invite` to the next connected client, round robin, then answers 201. No
 * database, no routing, no media: what is left is Node's HTTP parsing, a JSON body, one
 * WebSocket send and the loopback both ways.
 *
 * Environment: `PORT` (0: any). Prints one JSON line `{"ready":true,"port":…}` when it listens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.PORT ?? 0);
const clients: WebSocket[] = [];
let next = 0;
let pushed = 0;

const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/push') {
    response.statusCode = 404;
    response.end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { phone_number: string };
    const client = clients[next++ % clients.length];
    if (!client) {
      response.statusCode = 503;
      response.end();
      return;
    }
    const callsid = `CA${String(++pushed).padStart(32, '0')}`;
    client.send(
      JSON.stringify({
        type: 'invite',
        version: '1.6',
        payload: { callsid, parameters: { CallSid: callsid, To: body.phone_number } },
      }),
    );
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: true, call: { status: 'ringing' } }));
  });
});
const sockets = new WebSocketServer({ noServer: true });
server.on('upgrade', (request, socket, head) =>
  sockets.handleUpgrade(request, socket, head, (ws) => {
    clients.push(ws);
    ws.on('close', () => clients.splice(clients.indexOf(ws), 1));
  }),
);
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
console.log(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }));
process.on('SIGTERM', () => process.exit(0));
