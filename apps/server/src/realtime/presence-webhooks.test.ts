/**
 * Hosted Pusher's presence webhooks as Pusher posts them: a JSON body signed with HMAC-SHA256 of
 * the app secret over the raw body (hex, `X-Pusher-Signature`) and the app key (`X-Pusher-Key`),
 * per Pusher's webhook documentation (the signature is computed here with node:crypto, not with
 * the code under test). Signed member events reach the listener; a forged, unsigned or foreign
 * key's post is 401 and reaches nothing.
 */
import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PUSHER_WEBHOOK_PATH, presenceWebhookRoutes } from './presence-webhooks';

const credentials = {
  appId: '42',
  key: 'app-key',
  secret: 'app-secret-0123456789',
  cluster: 'us2',
};
let app: FastifyInstance;
let heard: string[];

beforeAll(async () => {
  app = Fastify();
  await app.register(
    presenceWebhookRoutes({
      credentials,
      onPresence: (channel, userId, present) => heard.push(`${channel} ${userId} ${present}`),
    }),
  );
});
afterAll(() => app.close());
beforeEach(() => {
  heard = [];
});

const body = JSON.stringify({
  time_ms: 1_764_000_000_000,
  events: [
    { name: 'member_added', channel: 'presence-user-7', user_id: '7' },
    { name: 'channel_occupied', channel: 'presence-user-7' },
    { name: 'member_removed', channel: 'presence-user-9', user_id: '9' },
  ],
});

const post = (headers: Record<string, string>, payload = body) =>
  app.inject({
    method: 'POST',
    url: PUSHER_WEBHOOK_PATH,
    headers: { 'content-type': 'application/json', ...headers },
    payload,
  });

const signature = (payload: string, secret = credentials.secret) =>
  createHmac('sha256', secret).update(payload).digest('hex');

describe('Pusher presence webhooks', () => {
  it('hand signed member_added and member_removed to the listener, in order', async () => {
    const res = await post({
      'x-pusher-key': credentials.key,
      'x-pusher-signature': signature(body),
    });
    expect(res.statusCode).toBe(200);
    expect(heard).toEqual(['presence-user-7 7 true', 'presence-user-9 9 false']);
  });

  it.each([
    [
      'a forged signature',
      { 'x-pusher-key': 'app-key', 'x-pusher-signature': signature(body, 'other-secret') },
    ],
    ['no signature', { 'x-pusher-key': 'app-key' }],
    ['another app’s key', { 'x-pusher-key': 'other-key', 'x-pusher-signature': signature(body) }],
  ])('refuse %s with 401 and change nothing', async (_name, headers) => {
    const res = await post(headers);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid Pusher webhook signature.' });
    expect(heard).toEqual([]);
  });

  it('refuse a body changed after signing', async () => {
    const res = await post(
      { 'x-pusher-key': credentials.key, 'x-pusher-signature': signature(body) },
      body.replace('"7"', '"8"'),
    );
    expect(res.statusCode).toBe(401);
    expect(heard).toEqual([]);
  });
});
