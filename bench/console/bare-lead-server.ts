/**
 * The incoming-lead bench's reference (`node --import tsx console/bare-lead-server.ts`): the
 * floor of "a lead is posted → the agent's page shows it". A plain Node HTTP server with a `ws`
 * server on the same port, serving one page at `/`: a few lines of plain DOM script (no React, no
 * bundle: the floor, not a framework) that opens a WebSocket to `/ws` and, on an `invite` frame,
 * replaces 'Waiting for lead...' with an `<h2>Incoming Lead!</h2>`; `window.__reset()` puts the
 * waiting text back. `POST /api/v1/leads` (a JSON body, as the product takes it) pushes one frame
 * shaped like the gateway's `invite` to every connected page, then answers 201. No database, no
 * routing, no call-user fetch, no React: Node's HTTP parsing, a JSON body, one WebSocket send,
 * the loopback, and one DOM insert.
 *
 * Environment: `PORT` (0: any). Prints one JSON line `{"ready":true,"port":…}` when it listens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>Bare lead page</title>
    <script type="module" src="/page.js"></script>
  </head>
  <body>
    <div id="app"><p>Waiting for lead...</p></div>
  </body>
</html>
`;

/** The page's script (a file of its own, so that its text is not in the page's `<body>`). */
const SCRIPT = `
const app = document.getElementById('app');
const waiting = () => {
  const p = document.createElement('p');
  p.textContent = 'Waiting for lead...';
  app.replaceChildren(p);
};
window.__reset = waiting;
window.__connected = false;
const socket = new WebSocket('ws://' + location.host + '/ws');
socket.addEventListener('open', () => (window.__connected = true));
socket.addEventListener('message', (event) => {
  const frame = JSON.parse(event.data);
  if (frame.type !== 'invite') return;
  const h2 = document.createElement('h2');
  h2.textContent = 'Incoming Lead!';
  app.replaceChildren(h2);
});
`;

const port = Number(process.env.PORT ?? 0);
const clients = new Set<WebSocket>();
let pushed = 0;

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(PAGE);
    return;
  }
  if (request.method === 'GET' && request.url === '/page.js') {
    response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
    response.end(SCRIPT);
    return;
  }
  if (request.method !== 'POST' || request.url !== '/api/v1/leads') {
    response.statusCode = 404;
    response.end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { phone_number: string };
    const callsid = `CA${String(++pushed).padStart(32, '0')}`;
    const frame = JSON.stringify({
      type: 'invite',
      version: '1.6',
      payload: { callsid, parameters: { CallSid: callsid, To: body.phone_number } },
    });
    for (const client of clients) client.send(frame);
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: true, call: { id: pushed, status: 'ringing' } }));
  });
});
const sockets = new WebSocketServer({ noServer: true });
server.on('upgrade', (request, socket, head) =>
  sockets.handleUpgrade(request, socket, head, (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
  }),
);
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
console.log(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }));
process.on('SIGTERM', () => process.exit(0));
