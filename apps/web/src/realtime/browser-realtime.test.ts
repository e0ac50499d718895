/**
 * The browser realtime port with the unmodified pusher-js client over real WebSockets, against a
 * small Pusher-protocol peer in this file (protocol 7 as pusher-js speaks it: connection
 * established, signed private and presence subscriptions, events, a cut socket). Run with both
 * builds of pusher-js: the web build the console's bundle ships (on jsdom's `WebSocket` and
 * `XMLHttpRequest`, the auth request cross-origin with CORS), and the Node build that a bare
 * `import 'pusher-js'` resolves to under Vitest. The server's own endpoint has its integration
 * tests in apps/server.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentStatusEvent, FloorChangedEvent, RealtimeSettings } from '@leadline/contracts';
import Pusher from 'pusher-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../platform/platform';
import { browserRealtime, type PusherClass } from './browser-realtime';
import type { RealtimeConnection, RealtimeConnectionState } from './realtime-port';

const KEY = 'test-key';
const SECRET = 'test-secret';
const CSRF = 'csrf-dana';

const sign = (text: string) => createHmac('sha256', SECRET).update(text).digest('hex');

interface PeerSocket {
  readonly socket: WebSocket;
  readonly socketId: string;
  readonly channels: Set<string>;
}

/** A Pusher-protocol peer: `/app/{key}` over WebSocket, and the channel auth endpoint. */
class PusherPeer {
  readonly sockets: PeerSocket[] = [];
  /** Every auth request: its CSRF header and channel. */
  readonly authRequests: { csrf: string | undefined; channel: string }[] = [];
  /** Subscriptions refused for a bad signature. */
  readonly refused: string[] = [];
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  #nextSocket = 1;

  constructor() {
    this.#http = createServer((request, response) => void this.#auth(request, response));
    this.#wss = new WebSocketServer({ server: this.#http, path: `/app/${KEY}` });
    this.#wss.on('connection', (socket) => this.#accept(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#http.listen(0, '127.0.0.1', resolve));
    return (this.#http.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }

  /** Publishes `event` on `channel` to every socket subscribed to it. */
  trigger(channel: string, event: string, data: unknown): void {
    for (const peer of this.sockets) {
      if (peer.channels.has(channel) && peer.socket.readyState === peer.socket.OPEN) {
        peer.socket.send(JSON.stringify({ event, channel, data: JSON.stringify(data) }));
      }
    }
  }

  /** Whether some open socket is subscribed to every one of `channels`. */
  subscribed(...channels: string[]): boolean {
    return this.sockets.some(
      (peer) =>
        peer.socket.readyState === peer.socket.OPEN && channels.every((c) => peer.channels.has(c)),
    );
  }

  get openSockets(): number {
    return this.sockets.filter((peer) => peer.socket.readyState === peer.socket.OPEN).length;
  }

  #accept(socket: WebSocket): void {
    const peer: PeerSocket = { socket, socketId: `${this.#nextSocket++}.42`, channels: new Set() };
    this.sockets.push(peer);
    socket.on('message', (raw) => {
      const bytes = Array.isArray(raw)
        ? Buffer.concat(raw)
        : raw instanceof ArrayBuffer
          ? Buffer.from(raw)
          : raw;
      this.#onFrame(peer, bytes.toString('utf8'));
    });
    socket.send(
      JSON.stringify({
        event: 'pusher:connection_established',
        data: JSON.stringify({ socket_id: peer.socketId, activity_timeout: 120 }),
      }),
    );
  }

  #onFrame(peer: PeerSocket, raw: string): void {
    const frame = JSON.parse(raw) as { event: string; data?: Record<string, string> };
    if (frame.event === 'pusher:ping') {
      peer.socket.send(JSON.stringify({ event: 'pusher:pong', data: '{}' }));
      return;
    }
    if (frame.event !== 'pusher:subscribe' || !frame.data) return;
    const { channel = '', auth = '', channel_data: channelData } = frame.data;
    const signed = [peer.socketId, channel, channelData].filter((p) => p !== undefined).join(':');
    if (auth !== `${KEY}:${sign(signed)}`) {
      this.refused.push(channel);
      peer.socket.send(
        JSON.stringify({
          event: 'pusher:subscription_error',
          channel,
          data: JSON.stringify({ type: 'AuthError', error: 'Invalid signature', status: 401 }),
        }),
      );
      return;
    }
    peer.channels.add(channel);
    const data = channel.startsWith('presence-')
      ? { presence: { ids: ['7'], hash: { '7': {} }, count: 1 } }
      : {};
    peer.socket.send(
      JSON.stringify({
        event: 'pusher_internal:subscription_succeeded',
        channel,
        data: JSON.stringify(data),
      }),
    );
  }

  /** `POST /api/v1/pusher/auth` as the server signs it (CORS: jsdom's page is another origin). */
  async #auth(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('Access-Control-Allow-Origin', request.headers.origin ?? '*');
    response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-CSRF-TOKEN');
    response.setHeader('Access-Control-Allow-Methods', 'POST');
    if (request.method === 'OPTIONS') {
      response.writeHead(204).end();
      return;
    }
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const form = new URLSearchParams(body);
    const socketId = form.get('socket_id') ?? '';
    const channel = form.get('channel_name') ?? '';
    const csrf = request.headers['x-csrf-token'];
    this.authRequests.push({ csrf: typeof csrf === 'string' ? csrf : undefined, channel });
    const forge = channel === 'private-account-forged';
    const answer: { auth: string; channel_data?: string } = channel.startsWith('presence-')
      ? (() => {
          const channelData = JSON.stringify({ user_id: '7', user_info: {} });
          return {
            auth: `${KEY}:${sign(`${socketId}:${channel}:${channelData}`)}`,
            channel_data: channelData,
          };
        })()
      : { auth: `${KEY}:${forge ? sign('not-this') : sign(`${socketId}:${channel}`)}` };
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
  }
}

function settingsFor(port: number, account = 'private-account-100'): RealtimeSettings {
  return {
    key: KEY,
    options: {
      cluster: 'us2',
      forceTLS: false,
      wsHost: '127.0.0.1',
      wsPort: port,
      wssPort: port,
      enabledTransports: ['ws'],
      disableStats: true,
      channelAuthorization: {
        endpoint: `http://127.0.0.1:${port}/api/v1/pusher/auth`,
        transport: 'ajax',
        headers: { 'X-CSRF-TOKEN': CSRF },
      },
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
    },
    channels: { user: 'presence-user-7', account },
  };
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

const STATUS_EVENT: AgentStatusEvent = {
  user_id: 12,
  status: 'away',
  is_available: false,
  at: '2026-01-06T09:00:00.000Z',
};

const FLOOR_EVENT: FloorChangedEvent = {
  call_id: 41,
  reason: 'queued',
  at: '2026-01-06T09:00:01.000Z',
};

/** The web build, as Vite's `browser` field resolves `pusher-js` for the console's bundle. */
const WEB_BUILD: string = 'pusher-js/dist/web/pusher.js';
const loadWebBuild = async (): Promise<PusherClass> => {
  // A path the package has no types for: a `string` keeps TypeScript from looking for them.
  const module = (await import(/* @vite-ignore */ WEB_BUILD)) as {
    default: PusherClass;
  };
  return module.default;
};
const loadNodeBuild = (): Promise<PusherClass> => Promise.resolve(Pusher);

describe.each([
  ['web build, jsdom WebSocket and XHR', loadWebBuild],
  ['Node build', loadNodeBuild],
])('browserRealtime with the real pusher-js (%s)', (_build, load) => {
  let peer: PusherPeer;
  let connection: RealtimeConnection | null = null;

  afterEach(async () => {
    connection?.close();
    connection = null;
    await peer.close();
  });

  async function connect(account?: string) {
    peer = new PusherPeer();
    const port = await peer.listen();
    const log = recordingLog();
    const events: AgentStatusEvent[] = [];
    const floorEvents: FloorChangedEvent[] = [];
    const states: RealtimeConnectionState[] = [];
    let subscriptions = 0;
    connection = browserRealtime(log, load).connect(settingsFor(port, account), {
      agentStatus: (event) => events.push(event),
      floorChanged: (event) => floorEvents.push(event),
      subscribed: () => (subscriptions += 1),
    });
    connection.onStateChange((state) => states.push(state));
    return { log, events, floorEvents, states, connection, subscriptions: () => subscriptions };
  }

  it('connects, joins the presence and account channels with signed auth, and hears agent-status', async () => {
    const { log, events, states, connection, subscriptions } = await connect();
    await vi.waitFor(() => expect(connection.state).toBe('connected'));
    await vi.waitFor(() =>
      expect(peer.subscribed('presence-user-7', 'private-account-100')).toBe(true),
    );
    expect(states).toContain('connected');
    expect(peer.authRequests).toEqual(
      expect.arrayContaining([
        { csrf: CSRF, channel: 'presence-user-7' },
        { csrf: CSRF, channel: 'private-account-100' },
      ]),
    );
    await vi.waitFor(() =>
      expect(log.lines).toContain('info Realtime: subscribed to presence-user-7'),
    );
    // The account channel's subscription is told (the feed reads again what it missed).
    await vi.waitFor(() => expect(subscriptions()).toBe(1));

    peer.trigger('private-account-100', 'agent-status', STATUS_EVENT);
    await vi.waitFor(() => expect(events).toEqual([STATUS_EVENT]));
  });

  it('hears floor-changed, a reason it does not know too, and drops a malformed one', async () => {
    const { log, floorEvents } = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    const later = { ...FLOOR_EVENT, reason: 'transferred' };
    peer.trigger('private-account-100', 'floor-changed', { call_id: '41', reason: 'queued' });
    peer.trigger('private-account-100', 'floor-changed', FLOOR_EVENT);
    peer.trigger('private-account-100', 'floor-changed', later);
    await vi.waitFor(() => expect(floorEvents).toEqual([FLOOR_EVENT, later]));
    expect(log.lines.filter((l) => l.includes('malformed floor-changed'))).toHaveLength(1);
  });

  it('drops a malformed agent-status and events of other names', async () => {
    const { log, events, connection } = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    expect(connection.state).toBe('connected');
    peer.trigger('private-account-100', 'agent-status', { user_id: '12', status: 'away' });
    peer.trigger('private-account-100', 'agent-moved', STATUS_EVENT);
    peer.trigger('private-account-100', 'agent-status', { ...STATUS_EVENT, status: 'asleep' });
    peer.trigger('private-account-100', 'agent-status', STATUS_EVENT);
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(log.lines.filter((l) => l.includes('malformed agent-status'))).toHaveLength(2);
  });

  it('logs a refused subscription', async () => {
    const { log } = await connect('private-account-forged');
    await vi.waitFor(() => expect(peer.refused).toEqual(['private-account-forged']));
    await vi.waitFor(() =>
      expect(
        log.lines.some((l) =>
          l.startsWith('error Realtime: subscribing to private-account-forged failed'),
        ),
      ).toBe(true),
    );
  });

  it('reports a lost connection and the reconnection', async () => {
    const { states, connection } = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    // 4200–4299: pusher-js reconnects at once.
    peer.sockets[0]!.socket.close(4200, 'go away');
    await vi.waitFor(() =>
      expect(states.lastIndexOf('connecting')).toBeGreaterThan(states.indexOf('connected')),
    );
    await vi.waitFor(() => expect(connection.state).toBe('connected'));
    await vi.waitFor(() => expect(peer.sockets.length).toBe(2));
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
  });

  it('closes the socket on close(), and then calls nothing', async () => {
    const { events, states, connection } = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    connection.close();
    await vi.waitFor(() => expect(peer.openSockets).toBe(0));
    const seen = states.length;
    peer.trigger('private-account-100', 'agent-status', STATUS_EVENT);
    expect(events).toEqual([]);
    expect(states).toHaveLength(seen);
  });

  it('never connects when closed while pusher-js was loading', async () => {
    peer = new PusherPeer();
    const port = await peer.listen();
    let constructed = 0;
    const Loaded = await load();
    class CountingPusher extends Loaded {
      constructor(...args: ConstructorParameters<PusherClass>) {
        super(...args);
        constructed += 1;
      }
    }
    let release: (pusher: PusherClass) => void = () => {};
    const loaded = new Promise<PusherClass>((resolve) => (release = resolve));
    const closed = browserRealtime(recordingLog(), () => loaded).connect(settingsFor(port), {
      agentStatus: () => {},
      floorChanged: () => {},
      subscribed: () => {},
    });
    closed.close();
    release(CountingPusher);
    await loaded;
    await Promise.resolve();
    expect(constructed).toBe(0);
    expect(closed.state).toBe('initialized');
    expect(peer.sockets).toEqual([]);
  });

  it('reports failed when pusher-js cannot be loaded', async () => {
    peer = new PusherPeer();
    const log = recordingLog();
    const failing = browserRealtime(log, () => Promise.reject(new Error('chunk missing')));
    connection = failing.connect(settingsFor(1), {
      agentStatus: () => {},
      floorChanged: () => {},
      subscribed: () => {},
    });
    await vi.waitFor(() => expect(connection?.state).toBe('failed'));
    expect(log.lines).toContain('error Loading the realtime client failed: chunk missing');
  });
});

/**
 * Spec §9, realtime client: "retry 1 s, transport cache 30 min, timeline limit 50". pusher-js
 * holds these itself (no option sets them) and the console runs it unmodified, so these pin
 * them: a pusher-js update that changes one fails here. The web build (the one the console
 * ships) on jsdom, whose `localStorage` holds pusher-js's transport cache.
 */
describe('the realtime client’s retry, transport cache and timeline (spec §9)', () => {
  /** Spec §9's values. */
  const RETRY_S = 1;
  const TRANSPORT_CACHE_MS = 30 * 60 * 1000;
  const TIMELINE_LIMIT = 50;
  const CACHE_KEY = 'pusherTransportNonTLS';

  /** The pusher-js client the port built, with the parts these tests read. */
  type Client = InstanceType<PusherClass> & {
    timeline: { events: unknown[]; info(event: object): void };
  };

  let peer: PusherPeer;
  let connection: RealtimeConnection | null = null;

  afterEach(async () => {
    connection?.close();
    connection = null;
    await peer.close();
    localStorage.removeItem(CACHE_KEY);
  });

  /** Connects the port with the web build; resolves with the client it made. */
  async function connect(): Promise<Client> {
    peer = new PusherPeer();
    const port = await peer.listen();
    const Loaded = await loadWebBuild();
    const clients: Client[] = [];
    class RecordingPusher extends Loaded {
      constructor(...args: ConstructorParameters<PusherClass>) {
        super(...args);
        clients.push(this);
      }
    }
    connection = browserRealtime(recordingLog(), () => Promise.resolve(RecordingPusher)).connect(
      settingsFor(port),
      { agentStatus: () => {}, floorChanged: () => {}, subscribed: () => {} },
    );
    await vi.waitFor(() => expect(clients).toHaveLength(1));
    return clients[0]!;
  }

  it(`retries ${RETRY_S} s after the socket is cut`, async () => {
    const client = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    const retries: number[] = [];
    client.connection.bind('connecting_in', (seconds: number) => retries.push(seconds));
    peer.sockets[0]!.socket.terminate();
    await vi.waitFor(() => expect(retries).toEqual([RETRY_S]));
    // A deadline, not a timing: the reconnection comes once the retry is due.
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true), {
      timeout: 10_000,
    });
    expect(peer.sockets).toHaveLength(2);
  });

  /** Whether the client's connection attempt used the cached transport (its timeline says). */
  const usedCache = (client: Client) =>
    client.timeline.events.some((event) => (event as { cached?: boolean }).cached === true);

  it('caches the transport that connected, and uses a cache younger than 30 min', async () => {
    localStorage.setItem(
      CACHE_KEY,
      JSON.stringify({
        timestamp: Date.now() - TRANSPORT_CACHE_MS + 60_000,
        transport: 'ws',
        latency: 5,
        cacheSkipCount: 0,
      }),
    );
    const client = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    expect(usedCache(client)).toBe(true);
    const stored = JSON.parse(localStorage.getItem(CACHE_KEY) ?? '{}') as { transport?: string };
    expect(stored.transport).toBe('ws');
  });

  it('ignores a cache older than 30 min', async () => {
    localStorage.setItem(
      CACHE_KEY,
      JSON.stringify({
        timestamp: Date.now() - TRANSPORT_CACHE_MS - 60_000,
        transport: 'ws',
        latency: 5,
        cacheSkipCount: 0,
      }),
    );
    const client = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    expect(usedCache(client)).toBe(false);
  });

  it(`keeps at most ${TIMELINE_LIMIT} timeline events, the latest`, async () => {
    const client = await connect();
    await vi.waitFor(() => expect(peer.subscribed('private-account-100')).toBe(true));
    for (let i = 0; i < TIMELINE_LIMIT + 10; i++) client.timeline.info({ probe: i });
    expect(client.timeline.events).toHaveLength(TIMELINE_LIMIT);
    expect(client.timeline.events.at(-1)).toMatchObject({ probe: TIMELINE_LIMIT + 9 });
  });
});
