/**
 * The realtime bench's load process (run.ts pins it to core 1, the server to core 0): `CLIENTS`
 * realtime clients of one kind, each timestamping the events it receives on the shared clock
 * (`performance.timeOrigin + performance.now()`, ms, the same in every process).
 *
 * - `MODE=pusher`: unmodified pusher-js 8 clients against the product's embedded endpoint
 *   (`WS_PORT`, key `PUSHER_KEY`), configured as the console configures them for it
 *   (`enabledTransports: ['ws']`, the spec's timeouts). Client n (1…`CLIENTS`) subscribes to its
 *   own presence channel `presence-user-<n>` (member `{user_id: "<n>"}`) and to
 *   `ACCOUNT_CHANNEL`; subscriptions are signed with `PUSHER_SECRET` in the client's
 *   `channelAuthorization.customHandler` (the HMAC `POST /api/v1/pusher/auth` would return).
 *   A receipt is the `agent-status` callback bound on the account channel.
 * - `MODE=bare`: bare `ws` clients of bare-broadcast-server.ts (`WS_PORT`); a receipt is the
 *   socket's `message` listener, after parsing the frame and its `data` as pusher-js does.
 *
 * Once every client is connected and subscribed it serves a control API on 127.0.0.1 and
 * prints `{"ready":true,"port":…}`:
 * `GET /clock` → `{now}`; `POST /expect {seq, userId, status}`: from now on each client's first
 * `agent-status` event of that user and status is change `seq`'s receipt; `GET /wait?seq=`
 * answers `{received}` once every client has change `seq` (or after `WAIT_MS`);
 * `GET /result` answers every receipt (`receipts[seq][client]`, ms, `null` when missing), how
 * late this process's event loop ran while the changes were measured, and its longest and total
 * garbage-collection pause meanwhile.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import PusherJs from 'pusher-js';
import { WebSocket } from 'ws';
import { channelSignature } from '../../apps/server/src/realtime/pusher-auth';

const mode = process.env.MODE === 'bare' ? 'bare' : 'pusher';
const clientCount = Number(process.env.CLIENTS ?? 1000);
const wsPort = Number(process.env.WS_PORT);
const key = process.env.PUSHER_KEY ?? 'leadline-key';
const secret = process.env.PUSHER_SECRET ?? '';
const accountChannel = process.env.ACCOUNT_CHANNEL ?? 'private-account-1';
/** Sockets opened at a time while connecting. */
const CONNECT_CONCURRENCY = Number(process.env.CONNECT_CONCURRENCY ?? 50);
/** Longest wait for every client to get one change. */
const WAIT_MS = 10_000;
/** Longest wait for every client to connect and subscribe. */
const SUBSCRIBE_WAIT_MS = 120_000;
const EVENT = 'agent-status';

const now = (): number => performance.timeOrigin + performance.now();

/** An `agent-status` event's data. */
interface StatusData {
  user_id: number;
  status: string;
}

/** The change the clients wait for. */
let expected: { seq: number; userId: number; status: string } | null = null;
/** receipts[seq][client]: when client got change seq. */
const receipts: Array<Array<number | null>> = [];
/** Clients that got change seq. */
const counts: number[] = [];
const waiters = new Map<number, Array<() => void>>();

function received(client: number, data: StatusData, at: number): void {
  const want = expected;
  if (!want || data.user_id !== want.userId || data.status !== want.status) return;
  const row = receipts[want.seq]!;
  if (row[client] !== null) return;
  row[client] = at;
  counts[want.seq] = (counts[want.seq] ?? 0) + 1;
  if (counts[want.seq] === clientCount) for (const done of waiters.get(want.seq) ?? []) done();
}

/** Runs `open(i)` for every client, `CONNECT_CONCURRENCY` at a time. */
async function openAll(open: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECT_CONCURRENCY }, async () => {
      for (let i = next++; i < clientCount; i = next++) await open(i);
    }),
  );
}

/** Rejects after `ms` with `what`. */
const deadline = (ms: number, what: string): Promise<never> =>
  new Promise((_, fail) =>
    setTimeout(() => fail(new Error(`${what} within ${ms} ms`)), ms).unref(),
  );

/** Opens pusher-js client i (presence-user-<i+1>) and resolves once both channels subscribed. */
function openPusher(i: number): Promise<void> {
  const member = JSON.stringify({ user_id: String(i + 1) });
  const client = new PusherJs(key, {
    cluster: 'us2',
    wsHost: '127.0.0.1',
    wsPort,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    activityTimeout: 120_000,
    pongTimeout: 30_000,
    unavailableTimeout: 10_000,
    channelAuthorization: {
      customHandler: ({ socketId, channelName }, callback) => {
        const presence = channelName.startsWith('presence-');
        const signature = channelSignature(
          secret,
          socketId,
          channelName,
          presence ? member : undefined,
        );
        callback(
          null,
          presence
            ? { auth: `${key}:${signature}`, channel_data: member }
            : { auth: `${key}:${signature}` },
        );
      },
    },
  });
  const subscribed = (name: string) =>
    new Promise<void>((resolve, fail) => {
      const channel = client.subscribe(name);
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (error: unknown) =>
        fail(new Error(`${name}: ${JSON.stringify(error)}`)),
      );
      if (name === accountChannel) {
        channel.bind(EVENT, (data: StatusData) => received(i, data, now()));
      }
    });
  return Promise.all([subscribed(`presence-user-${i + 1}`), subscribed(accountChannel)]).then(
    () => undefined,
  );
}

/** Opens bare client i and resolves once it is open. */
function openBare(i: number): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/`, { perMessageDeflate: false });
  ws.on('message', (raw: Buffer) => {
    const frame = JSON.parse(raw.toString()) as { event: string; data: string };
    if (frame.event !== EVENT) return;
    const data = JSON.parse(frame.data) as StatusData;
    received(i, data, now());
  });
  return new Promise((resolve, fail) => {
    ws.once('open', () => resolve());
    ws.once('error', fail);
  });
}

await Promise.race([
  openAll(mode === 'pusher' ? openPusher : openBare),
  deadline(SUBSCRIBE_WAIT_MS, `${clientCount} clients did not all subscribe`),
]);

const loop = monitorEventLoopDelay({ resolution: 1 });
/** Garbage-collection pauses of this process once the changes began (ms). */
const gcPausesMs: number[] = [];
const gc = new PerformanceObserver((list) => {
  if (expected) for (const entry of list.getEntries()) gcPausesMs.push(entry.duration);
});
gc.observe({ entryTypes: ['gc'] });

const json = (response: ServerResponse, body: unknown): void => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const control = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/clock') return json(response, { now: now() });
  if (url.pathname === '/result') {
    loop.disable();
    return json(response, {
      receipts,
      loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      gcMs: {
        max: Math.max(0, ...gcPausesMs),
        total: gcPausesMs.reduce((sum, ms) => sum + ms, 0),
      },
    });
  }
  if (url.pathname === '/wait') {
    const seq = Number(url.searchParams.get('seq'));
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      json(response, { received: counts[seq] ?? 0 });
    };
    if ((counts[seq] ?? 0) === clientCount) return answer();
    setTimeout(answer, WAIT_MS);
    const list = waiters.get(seq) ?? [];
    list.push(answer);
    waiters.set(seq, list);
    return;
  }
  if (url.pathname === '/expect' && request.method === 'POST') {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const next = JSON.parse(Buffer.concat(chunks).toString()) as {
        seq: number;
        userId: number;
        status: string;
      };
      receipts[next.seq] = new Array<number | null>(clientCount).fill(null);
      counts[next.seq] = 0;
      expected = next;
      loop.enable();
      json(response, { ok: true });
    });
    return;
  }
  response.statusCode = 404;
  response.end();
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
console.log(
  JSON.stringify({
    ready: true,
    port: (control.address() as AddressInfo).port,
    clients: clientCount,
  }),
);
process.on('SIGTERM', () => process.exit(0));
