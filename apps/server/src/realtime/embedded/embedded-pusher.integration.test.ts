/**
 * The embedded Pusher-protocol endpoint against the unmodified clients: pusher-js 8 in Node
 * subscribing, and the `pusher` library triggering through the HTTP events API, on the real
 * HTTP server of the test app listening on a port.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import Pusher from 'pusher';
import PusherJs from 'pusher-js';
import type { Channel, Options } from 'pusher-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { userChannelOf } from '../channels';
import { signChannel } from '../pusher-auth';
import { PUSHER_BATCH_MAX, PusherRealtime } from '../realtime-publisher';
import { login, startTestApp, TEST_PUSHER, type TestApp } from '../../test-support/test-app';
import { waitUntil } from '../../test-support/wait-until';
import { EmbeddedPusher } from './embedded-pusher';
import { PUSHER_ERRORS } from './errors';
import { pusherEventsRoutes } from './events-api';

let test: TestApp;
let endpoint: EmbeddedPusher;
let port: number;
let clients: PusherJs[] = [];

beforeAll(async () => {
  test = await startTestApp();
  endpoint = new EmbeddedPusher({ credentials: TEST_PUSHER });
  await test.app.register(pusherEventsRoutes({ credentials: TEST_PUSHER, endpoint }));
  test.app.server.on('upgrade', (request, socket, head) => {
    if (!endpoint.handleUpgrade(request, socket, head)) socket.destroy();
  });
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  port = (test.app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await endpoint.close();
  await test.close();
});

afterEach(async () => {
  for (const client of clients) client.disconnect();
  clients = [];
  await waitUntil(() => (endpoint.connectionCount === 0 ? true : undefined), 'every socket closed');
});

/** pusher-js's channel authorization option. */
type Authorizer = NonNullable<Options['channelAuthorization']>;

/** Signs with the configured secret, as `/api/v1/pusher/auth` does. */
const signWithSecret = (member?: {
  user_id: string;
  user_info: Record<string, unknown>;
}): Authorizer => ({
  customHandler: ({ socketId, channelName }, callback) =>
    callback(null, signChannel(TEST_PUSHER, socketId, channelName, member)),
});

/** Answers every subscription with a signature made without the secret. */
const forged: Authorizer = {
  customHandler: (_params, callback) =>
    callback(null, { auth: `${TEST_PUSHER.key}:${'0'.repeat(64)}` }),
};

/** A pusher-js client as the console configures it for the embedded endpoint. */
function connect(channelAuthorization: Authorizer = signWithSecret(), key = TEST_PUSHER.key) {
  const client = new PusherJs(key, {
    cluster: TEST_PUSHER.cluster,
    wsHost: '127.0.0.1',
    wsPort: port,
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization,
  });
  clients.push(client);
  return client;
}

const connected = (client: PusherJs) =>
  waitUntil(
    () => (client.connection.state === 'connected' ? client.connection.socket_id : undefined),
    'pusher-js to connect',
  );

/** Subscribes and resolves with the outcome: `succeeded` or the subscription error's data. */
function subscribe(client: PusherJs, name: string): Promise<{ channel: Channel; error?: unknown }> {
  const channel = client.subscribe(name);
  return new Promise((resolve) => {
    channel.bind('pusher:subscription_succeeded', () => resolve({ channel }));
    channel.bind('pusher:subscription_error', (error: unknown) => resolve({ channel, error }));
  });
}

/** Records the events a channel receives. */
function record(channel: Channel, event: string): unknown[] {
  const seen: unknown[] = [];
  channel.bind(event, (data: unknown) => seen.push(data));
  return seen;
}

const publisher = (secret = TEST_PUSHER.secret) =>
  new Pusher({
    appId: TEST_PUSHER.appId,
    key: TEST_PUSHER.key,
    secret,
    host: '127.0.0.1',
    port: String(port),
    useTLS: false,
  });

describe('embedded Pusher endpoint with pusher-js', () => {
  it('connects with a socket id and the activity timeout', async () => {
    const client = connect();
    expect(await connected(client)).toMatch(/^\d+\.\d+$/);
  });

  it('refuses an unknown app key with 4001', async () => {
    const client = connect(signWithSecret(), 'unknown-key');
    const errors: unknown[] = [];
    client.connection.bind('error', (error: unknown) => errors.push(error));
    await waitUntil(
      () =>
        client.connection.state === 'failed' || client.connection.state === 'disconnected'
          ? true
          : undefined,
      'pusher-js to give up',
    );
    expect(JSON.stringify(errors)).toContain(String(PUSHER_ERRORS.appNotFound.code));
  });

  it('delivers pusher.trigger to a public channel subscriber, and refuses a bad signature', async () => {
    const client = connect();
    const { channel, error } = await subscribe(client, 'account-1');
    expect(error).toBeUndefined();
    const seen = record(channel, 'status');
    await publisher().trigger('account-1', 'status', { user: 7, status: 'away' });
    await waitUntil(() => (seen.length > 0 ? true : undefined), 'the triggered event');
    expect(seen).toEqual([{ user: 7, status: 'away' }]);

    await expect(
      publisher('wrong-secret-0123456789').trigger('account-1', 'status', { x: 1 }),
    ).rejects.toMatchObject({ status: 401 });
    await publisher().triggerBatch([{ channel: 'account-1', name: 'status', data: { n: 2 } }]);
    await waitUntil(() => (seen.length === 2 ? true : undefined), 'the batch event');
    expect(seen[1]).toEqual({ n: 2 });
  });

  it('PusherRealtime sends what was published while a request was under way together, ten at most a request, in order', async () => {
    const client = connect();
    const { channel } = await subscribe(client, 'account-1');
    const seen = record(channel, 'n');
    const posts: string[] = [];
    const count = (request: IncomingMessage) => {
      if (request.method === 'POST' && request.url?.startsWith('/apps/'))
        posts.push(new URL(request.url, 'http://host').pathname);
    };
    const errors: unknown[] = [];
    const realtime = new PusherRealtime(
      {
        appId: TEST_PUSHER.appId,
        key: TEST_PUSHER.key,
        secret: TEST_PUSHER.secret,
        host: '127.0.0.1',
        port: String(port),
        useTLS: false,
      },
      (error) => errors.push(error),
    );
    test.app.server.on('request', count);
    try {
      await Promise.all(
        Array.from({ length: 25 }, (_, n) => realtime.publish('account-1', 'n', { n })),
      );
      await realtime.idle();
      await waitUntil(() => (seen.length === 25 ? true : undefined), 'the 25 events');
    } finally {
      test.app.server.off('request', count);
    }
    expect(errors).toEqual([]);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, n) => ({ n })));
    // The first went alone (nothing was under way); the 24 published meanwhile in 10, 10, 4.
    const events = `/apps/${TEST_PUSHER.appId}/events`;
    const batch = `/apps/${TEST_PUSHER.appId}/batch_events`;
    expect(PUSHER_BATCH_MAX).toBe(10);
    expect(posts).toEqual([events, batch, batch, batch]);
  });

  it('subscribes a private channel with a valid signature and refuses a forged one', async () => {
    const good = connect();
    expect((await subscribe(good, 'private-account-1')).error).toBeUndefined();
    const bad = connect(forged);
    const { error } = await subscribe(bad, 'private-account-1');
    expect(error).toMatchObject({ status: 401, code: PUSHER_ERRORS.unauthorized.code });
  });

  it('authorises the presence channel through POST /api/v1/pusher/auth', async () => {
    const agent = await login(test.app);
    const viaApi = (): Authorizer => ({
      customHandler: ({ socketId, channelName }, callback) => {
        void fetch(`http://127.0.0.1:${port}/api/v1/pusher/auth`, {
          method: 'POST',
          headers: {
            cookie: agent.cookie,
            'x-csrf-token': agent.csrf,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ socket_id: socketId, channel_name: channelName }),
        }).then(async (res) =>
          res.ok
            ? callback(null, (await res.json()) as { auth: string })
            : callback(new Error(`auth ${res.status}`), null),
        );
      },
    });
    const client = connect(viaApi());
    const own = await subscribe(client, userChannelOf(agent.userId));
    expect(own.error).toBeUndefined();
    const members = own.channel as unknown as { members: { count: number; me: { id: string } } };
    expect(members.members.count).toBe(1);
    expect(members.members.me.id).toBe(String(agent.userId));
    // Another user's channel: the route refuses, so pusher-js reports the subscription error.
    expect((await subscribe(client, userChannelOf(agent.userId + 1000))).error).toBeDefined();
  });

  it('shows member_added and member_removed to another member, and refuses forged presence', async () => {
    const alice = connect(signWithSecret({ user_id: '1', user_info: { name: 'Alice' } }));
    const { channel } = await subscribe(alice, 'presence-team');
    const added = record(channel, 'pusher:member_added');
    const removed = record(channel, 'pusher:member_removed');
    const bob = connect(signWithSecret({ user_id: '2', user_info: { name: 'Bob' } }));
    const bobs = await subscribe(bob, 'presence-team');
    expect((bobs.channel as unknown as { members: { count: number } }).members.count).toBe(2);
    await waitUntil(() => (added.length > 0 ? true : undefined), 'member_added');
    expect(added).toEqual([{ id: '2', info: { name: 'Bob' } }]);

    expect((await subscribe(connect(forged), 'presence-team')).error).toBeDefined();

    bob.disconnect();
    await waitUntil(() => (removed.length > 0 ? true : undefined), 'member_removed');
    expect(removed).toEqual([{ id: '2', info: { name: 'Bob' } }]);
  });

  it('answers pusher:ping with pusher:pong', async () => {
    const client = connect();
    await connected(client);
    const events: string[] = [];
    client.connection.bind('message', (message: { event: string }) => events.push(message.event));
    client.connection.send_event('pusher:ping', {});
    await waitUntil(() => (events.includes('pusher:pong') ? true : undefined), 'pusher:pong');
  });

  it('refuses client events and keeps the socket', async () => {
    const client = connect();
    const { channel } = await subscribe(client, 'private-room');
    const errors: unknown[] = [];
    client.connection.bind('error', (error: unknown) => errors.push(error));
    channel.trigger('client-typing', { x: 1 });
    await waitUntil(() => (errors.length > 0 ? true : undefined), 'pusher:error');
    expect(JSON.stringify(errors)).toContain(String(PUSHER_ERRORS.clientEventRefused.code));
    expect(client.connection.state).toBe('connected');
  });

  it('reconnects and resubscribes after the socket is cut', async () => {
    const client = connect();
    const { channel } = await subscribe(client, 'account-2');
    const seen = record(channel, 'status');
    const firstId = await connected(client);
    expect(endpoint.disconnect(firstId)).toBe(true);
    const secondId = await waitUntil(
      () =>
        client.connection.state === 'connected' && client.connection.socket_id !== firstId
          ? client.connection.socket_id
          : undefined,
      'pusher-js to reconnect',
    );
    expect(secondId).toMatch(/^\d+\.\d+$/);
    // It resubscribes on its own; the event reaches it once it has.
    await waitUntil(async () => {
      await publisher().trigger('account-2', 'status', { after: 'reconnect' });
      return seen.length > 0 ? true : undefined;
    }, 'an event after the reconnect');
    expect(seen[0]).toEqual({ after: 'reconnect' });
  });
});

describe('HTTP events API refusals', () => {
  it.each([
    ['no channel', { name: 'e', data: '{}' }, 400],
    ['a bad socket_id', { name: 'e', data: '{}', channels: ['a'], socket_id: 'x' }, 400],
    ['data over 10 KiB', { name: 'e', data: 'x'.repeat(11 * 1024), channels: ['a'] }, 413],
  ])('answers %s with %i', async (_what, body, status) => {
    // The library serialises `body` itself (lib/requests.js); its typings say string.
    const post = publisher().post({ path: '/events', body: body as unknown as string });
    await expect(post).rejects.toMatchObject({ status });
  });

  it('answers another app id with 404', async () => {
    const other = new Pusher({
      appId: 'other',
      key: TEST_PUSHER.key,
      secret: TEST_PUSHER.secret,
      host: '127.0.0.1',
      port: String(port),
      useTLS: false,
    });
    await expect(other.trigger('a', 'e', {})).rejects.toMatchObject({ status: 404 });
  });
});

describe('embedded Pusher endpoint with raw frames', () => {
  async function raw(): Promise<{ ws: WebSocket; frames: { event: string; data: unknown }[] }> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${TEST_PUSHER.key}?protocol=7`);
    const frames: { event: string; data: unknown }[] = [];
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as never));
    await waitUntil(() => (frames.length > 0 ? true : undefined), 'connection_established');
    return { ws, frames };
  }

  it.each([
    ['not JSON', 'hello', PUSHER_ERRORS.invalidFrame.code],
    ['no event', '{"data":{}}', PUSHER_ERRORS.invalidFrame.code],
    ['an unknown event', '{"event":"pusher:nope","data":{}}', PUSHER_ERRORS.unknownEvent.code],
    ['a bad channel', '{"event":"pusher:subscribe","data":{"channel":"a b"}}', 4304],
    ['presence without data', '{"event":"pusher:subscribe","data":{"channel":"presence-x"}}', 4009],
  ])('answers %s with pusher:error %s and keeps the socket', async (_what, frame, code) => {
    const { ws, frames } = await raw();
    ws.send(frame);
    const error = await waitUntil(
      () => frames.find((f) => f.event === 'pusher:error'),
      'pusher:error',
    );
    expect(error.data).toMatchObject({ code });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('closes a frame over the size limit with 1009', async () => {
    const { ws } = await raw();
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send('x'.repeat(64 * 1024));
    expect(await closed).toBe(1009);
  });

  it('survives 5,000 malformed and random frames while another client still gets events', async () => {
    const listener = connect();
    const { channel } = await subscribe(listener, 'account-fuzz');
    const seen = record(channel, 'status');
    const { ws, frames } = await raw();
    const channelName = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('account-fuzz', 'private-a', 'presence-a', ''),
    );
    const frame = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.json({ maxDepth: 3 }),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      fc
        .record({
          event: fc.oneof(
            fc.constantFrom(
              'pusher:subscribe',
              'pusher:unsubscribe',
              'pusher:ping',
              'pusher:pong',
              'client-x',
              'pusher:error',
            ),
            fc.string({ maxLength: 30 }),
          ),
          channel: fc.option(channelName),
          data: fc.jsonValue({ maxDepth: 3 }),
        })
        .map((value) => JSON.stringify(value)),
      fc
        .record(
          {
            channel: channelName,
            auth: fc.oneof(fc.string(), fc.constant(`${TEST_PUSHER.key}:${'a'.repeat(64)}`)),
            channel_data: fc.oneof(fc.string(), fc.json({ maxDepth: 2 })),
          },
          { requiredKeys: ['channel'] },
        )
        .map((data) => JSON.stringify({ event: 'pusher:subscribe', data })),
    );
    for (const sample of fc.sample(frame, { numRuns: 5000, seed: 18 })) ws.send(sample);
    // Frames are handled in order: once this subscription succeeds, every one before was read.
    ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: 'fuzz-done-18' } }));
    await waitUntil(
      () =>
        frames.some(
          (f) =>
            f.event === 'pusher_internal:subscription_succeeded' &&
            (f as { channel?: string }).channel === 'fuzz-done-18',
        )
          ? true
          : undefined,
      'the fuzzed socket to read every frame',
    );
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(frames.filter((f) => f.event === 'pusher:error').length).toBeGreaterThan(0);

    await publisher().trigger('account-fuzz', 'status', { still: 'here' });
    await waitUntil(() => (seen.length > 0 ? true : undefined), 'the listener to get the event');
    expect(seen).toEqual([{ still: 'here' }]);
    ws.close();
  });
});
