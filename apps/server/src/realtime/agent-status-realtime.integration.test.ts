/**
 * Agent status, live, on the real engine: a teammate's realtime client (pusher-js 8 in Node,
 * built from the `realtime` block of GET /api/v1/user, subscribed through the real channel
 * auth route) receives every change of an agent's status as it happens: online (the softphone
 * registers), Away and Available (their choice), on a call (a lead answered), wrap-up (hung
 * up), available again (Done), offline (the softphone's socket closes).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PresenceStatus } from '@leadline/contracts';
import { AgentClient } from '../test-support/agent-client';
import { HttpSession } from '../test-support/http-session';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { openRealtimeClient, type RealtimeClient } from '../test-support/realtime-client';

const LEAD_NUMBER = '+15550100042';

let product: RealLeadline;
let observer: RealtimeClient | undefined;

beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterAll(async () => {
  observer?.close();
  await product?.close();
});

it('gives pusher-js the options of the spec and of the embedded endpoint', async () => {
  const supervisor = await HttpSession.login(product.url, 'supervisor@example.com');
  observer = await openRealtimeClient(supervisor);
  const { port, hostname } = new URL(product.url);
  expect(observer.settings).toEqual({
    key: product.config.pusher.key,
    options: {
      cluster: 'us2',
      forceTLS: false,
      wsHost: hostname,
      wsPort: Number(port),
      wssPort: Number(port),
      enabledTransports: ['ws', 'wss'],
      disableStats: true,
      channelAuthorization: {
        endpoint: '/api/v1/pusher/auth',
        transport: 'ajax',
        headers: { 'X-CSRF-TOKEN': supervisor.csrf },
      },
      // Spec section 9: activity 120 s, pong 30 s, unavailable 10 s.
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
    },
    channels: {
      user: `presence-user-${supervisor.userId}`,
      account: 'private-account-1',
    },
  });
  // The presence channel holds this one client.
  expect(observer.presenceCount).toBe(1);
});

it("tells a teammate each change of an agent's status as it happens", async () => {
  const client = observer!;
  const changes: PresenceStatus[] = [];
  const expectNext = async (agentId: number, status: PresenceStatus) => {
    const seen = await client.nextStatus((e) => e.user_id === agentId && e.status === status);
    changes.push(seen.status);
  };

  const agent = await AgentClient.login(product, 'agent1@example.com');
  await expectNext(agent.userId, 'available');
  const me = await agent.api<{ user: { status: string } }>('GET', '/api/v1/user');
  expect(me.body.user.status).toBe('available');

  expect((await agent.api('PUT', '/api/v1/user/status', { status: 'away' })).status).toBe(200);
  await expectNext(agent.userId, 'away');
  expect((await agent.api('PUT', '/api/v1/user/status', { status: 'available' })).status).toBe(200);
  await expectNext(agent.userId, 'available');

  const posted = await product.postLead({ fname: 'Ona', lname: 'Call', phone_number: LEAD_NUMBER });
  expect(posted.status).toBe(201);
  const invite = await agent.nextInvite();
  await agent.accept(invite);
  await expectNext(agent.userId, 'on_call');
  await agent.hangup();
  await expectNext(agent.userId, 'wrap_up');
  expect((await agent.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);
  await expectNext(agent.userId, 'available');

  await agent.close();
  await expectNext(agent.userId, 'offline');

  // Each change once, in order: nothing published twice or out of order for this agent.
  const ofAgent = client.statuses.filter((e) => e.user_id === agent.userId).map((e) => e.status);
  expect(ofAgent).toEqual(changes);
  expect(changes).toEqual([
    'available',
    'away',
    'available',
    'on_call',
    'wrap_up',
    'available',
    'offline',
  ]);
}, 120_000);

it('refuses channels of another user or account at the auth route', async () => {
  const agent = await HttpSession.login(product.url, 'agent2@example.com');
  const auth = (channel: string) =>
    fetch(`${product.url}/api/v1/pusher/auth`, {
      method: 'POST',
      headers: {
        cookie: agent.cookie,
        'x-csrf-token': agent.csrf,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ socket_id: '1.2', channel_name: channel }),
    });
  expect((await auth(`presence-user-${agent.userId}`)).status).toBe(200);
  expect((await auth('private-account-1')).status).toBe(200);
  const other = await auth('private-account-2');
  expect(other.status).toBe(403);
  expect(await other.json()).toEqual({
    success: false,
    error: `You may subscribe only to your own channels, presence-user-${agent.userId} and private-account-1.`,
  });
  expect((await auth(`presence-user-${agent.userId + 1}`)).status).toBe(403);
});
