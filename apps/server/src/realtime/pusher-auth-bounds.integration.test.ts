/**
 * `POST /api/v1/pusher/auth` grants are bounded (issue 36 item 6). Only the user's own two
 * channels are signed (an older rule, checked again here). A login may ask 30 times a minute,
 * counted in the database: the 31st is 429 with `Retry-After` and its sentence, changes nothing,
 * and another login is counted apart; the minute over, it may ask again (injected clock). And a
 * login keeps at most 8 realtime sockets let in: on the real product, a 9th socket authorised
 * closes the login's oldest (4009 and its reason) while the 8 newest stay; the login's logout
 * closes those.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { DEMO_PASSWORD } from '../db/seed';
import { MAX_REALTIME_SOCKETS_PER_LOGIN } from '../auth/socket-access';
import { installChangeCounter } from '../test-support/change-counter';
import { HttpSession } from '../test-support/http-session';
import { ManualClock } from '../test-support/manual-clock';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { login, startTestApp, type Agent, type TestApp } from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';
import { accountChannelOf, userChannelOf } from './channels';
import { PUSHER_AUTH_PER_MINUTE } from './pusher-routes';

describe('the per-login limit', () => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock();
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const auth = (agent: Agent, socketId: string, channel = userChannelOf(agent.userId)) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/pusher/auth',
      headers: {
        cookie: agent.cookie,
        'x-csrf-token': agent.csrf,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ socket_id: socketId, channel_name: channel }).toString(),
    });

  it('signs only the user’s own channels', async () => {
    const agent = await login(t.app, 'agent2@example.com');
    const other = await auth(agent, '1.1', userChannelOf(agent.userId + 1));
    expect(other.statusCode).toBe(403);
    expect(other.json()).toEqual({
      success: false,
      error: `You may subscribe only to your own channels, ${userChannelOf(agent.userId)} and ${accountChannelOf(agent.accountId)}.`,
    });
    expect((await auth(agent, '1.1', accountChannelOf(agent.accountId))).statusCode).toBe(200);
  });

  it('refuses the 31st grant of a minute with 429, Retry-After and the sentence; another login goes on; the minute over, it may ask again', async () => {
    const rowChanges = await installChangeCounter(t.database.db);
    const agent = await login(t.app);
    const sameUserElsewhere = await login(t.app);
    for (let i = 0; i < PUSHER_AUTH_PER_MINUTE; i++) {
      expect((await auth(agent, `10.${i}`)).statusCode).toBe(200);
    }
    const before = await rowChanges();
    const refused = await auth(agent, '10.99');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual({
      success: false,
      error: 'Too many realtime channel authorisations for this login. Try again in 60 seconds.',
    });
    expect(await rowChanges()).toBe(before);
    expect((await auth(sameUserElsewhere, '11.1')).statusCode).toBe(200);
    clock.advance(59_999);
    expect((await auth(agent, '10.100')).statusCode).toBe(429);
    clock.advance(1);
    expect((await auth(agent, '10.101')).statusCode).toBe(200);
  });
});

describe('the sockets a login keeps', () => {
  let product: RealLeadline;
  beforeAll(async () => {
    product = await startRealLeadline();
  }, 120_000);
  afterAll(() => product?.close(), 60_000);

  /** A raw Pusher-protocol socket, subscribed to the user's presence channel through the login. */
  async function realtimeSocket(session: HttpSession) {
    const port = new URL(product.url).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${product.config.pusher.key}?protocol=7`);
    const frames: Array<{ event: string; data?: unknown; channel?: string }> = [];
    let close: { code: number; reason: string } | undefined;
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as never));
    ws.on('close', (code, reason) => (close = { code, reason: reason.toString() }));
    const established = await waitUntil(
      () => frames.find((f) => f.event === 'pusher:connection_established'),
      'connection_established',
    );
    const socketId = (JSON.parse(established.data as string) as { socket_id: string }).socket_id;
    const channel = userChannelOf(session.userId);
    const signed = await fetch(`${product.url}/api/v1/pusher/auth`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ socket_id: socketId, channel_name: channel }),
    });
    expect(signed.status).toBe(200);
    const { auth, channel_data } = (await signed.json()) as { auth: string; channel_data: string };
    ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth, channel_data } }));
    await waitUntil(
      () => frames.find((f) => f.event === 'pusher_internal:subscription_succeeded'),
      `the subscription of socket ${socketId}`,
    );
    return { ws, closed: () => close };
  }

  it('withdraws the oldest socket past 8 with 4009 and the reason; the 8 newest stay until the logout', async () => {
    const session = await HttpSession.login(product.url, 'agent1@example.com', DEMO_PASSWORD);
    const sockets = [];
    for (let i = 0; i < MAX_REALTIME_SOCKETS_PER_LOGIN; i++) {
      sockets.push(await realtimeSocket(session));
    }
    expect(MAX_REALTIME_SOCKETS_PER_LOGIN).toBe(8);
    const ninth = await realtimeSocket(session);
    expect(await waitUntil(sockets[0]!.closed, 'the oldest socket to close')).toEqual({
      code: 4009,
      reason: 'Closed: this login opened more realtime connections than it may keep.',
    });
    const kept = [...sockets.slice(1), ninth];
    expect(kept.every((socket) => socket.ws.readyState === WebSocket.OPEN)).toBe(true);
    expect(product.leadline.realtime.connectionCount).toBe(8);
    const out = await session.api('POST', '/api/v1/user/logout');
    expect(out.status).toBe(200);
    for (const socket of kept) {
      expect((await waitUntil(socket.closed, 'a kept socket to close at logout')).code).toBe(4009);
    }
  });
});
