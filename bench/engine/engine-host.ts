/**
 * The engine alone, as the bench runs it (`taskset -c 0 node --import tsx engine-host.ts`): the
 * VoiceEngine with its WorkerMediaEngine and signalling gateway on an HTTP server, no database.
 * Clients authenticate with any token (the token is the identity) and place outgoing calls: each
 * call is a room with the client's leg and a virtual lead dialled at `To`, as in the product.
 *
 * Environment: `PORT` (0: any), `DATA_DIR` (recordings and sandbox files), `WORKERS` (media
 * worker threads), `THREAD_NICE` (their nice value, `none` to leave it; default the engine's). Prints one JSON line `{"ready":true,"port":…}` when it listens; `GET /stats`
 * answers with each media worker's loop statistics since the previous call. `GET
 * /ring?room=<sid>&a=<identity>&b=<identity>` rings two registered clients into one room (a call
 * between two WebRTC legs, for bench/capacity); it answers `{"ringing":<devices rung>}`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { VoiceEngine, WorkerMediaEngine } from '@leadline/voice';

const port = Number(process.env.PORT ?? 0);
const dataDir = process.env.DATA_DIR ?? join(process.cwd(), 'data', 'bench');
const workers = process.env.WORKERS ? Number(process.env.WORKERS) : undefined;
/** `THREAD_NICE`: the media threads' nice value (`none`: leave them); default the engine's. */
const threadNice =
  process.env.THREAD_NICE === undefined
    ? undefined
    : process.env.THREAD_NICE === 'none'
      ? null
      : Number(process.env.THREAD_NICE);

const media = new WorkerMediaEngine({
  iceAddresses: ['127.0.0.1'],
  sandboxDir: join(dataDir, 'sandbox'),
  recordingsDir: join(dataDir, 'recordings'),
  ...(workers === undefined ? {} : { workers }),
  ...(threadNice === undefined ? {} : { threadNice }),
  logger: {
    warn: (m) => console.error(`[warn] ${m}`),
    error: (m) => console.error(`[error] ${m}`),
  },
});
const engine = new VoiceEngine({
  media,
  verifyToken: (token) =>
    Promise.resolve({
      ok: true,
      identity: token,
      expiresAt: Math.floor(Date.now() / 1000) + 86_400,
    }),
  authorizeOutgoing: (_identity, params) =>
    Promise.resolve({ callSid: `CA${randomBytes(16).toString('hex')}`, dial: params.To ?? '' }),
});
// As the server's flows do: when the agent leaves, the call ends.
engine.subscribe((event) => {
  if (event.type === 'agent.left') engine.hangup(event.callSid);
});
await engine.start();

const server = createServer((request, response) => {
  if (request.url?.startsWith('/ring?')) {
    const query = new URL(request.url, 'http://host').searchParams;
    const room = query.get('room') ?? '';
    Promise.all(
      [query.get('a'), query.get('b')].map((identity) =>
        engine.ringAgent(room, identity ?? '', {}, { role: 'agent' }),
      ),
    ).then(
      (rung) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ ringing: rung[0]! + rung[1]! }));
      },
      (error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      },
    );
    return;
  }
  if (request.url === '/stats') {
    media.stats().then(
      (stats) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(stats));
      },
      (error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      },
    );
    return;
  }
  response.statusCode = 404;
  response.end();
});
server.on('upgrade', (request, socket, head) => engine.handleUpgrade(request, socket, head));
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
console.log(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }));

const stop = (): void => {
  server.close();
  engine.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
