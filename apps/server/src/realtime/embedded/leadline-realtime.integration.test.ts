/**
 * The endpoint as the product wires it (`startLeadline`): pusher-js connects to `/app/{key}`
 * on the product's own port and the `pusher` library's trigger reaches it.
 */
import Pusher from 'pusher';
import PusherJs from 'pusher-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRealLeadline, type RealLeadline } from '../../test-support/real-engine';
import { waitUntil } from '../../test-support/wait-until';

const SECRET = 'realtime-test-secret-0123456789';
let product: RealLeadline;

beforeAll(async () => {
  product = await startRealLeadline({ env: { PUSHER_SECRET: SECRET } });
}, 180_000);
afterAll(() => product?.close());

it('carries a pusher.trigger to a pusher-js subscriber on the product port', async () => {
  const { key, appId, cluster } = product.config.pusher;
  const port = new URL(product.url).port;
  const client = new PusherJs(key, {
    cluster,
    wsHost: '127.0.0.1',
    wsPort: Number(port),
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
  });
  try {
    const channel = client.subscribe('account-1');
    const seen: unknown[] = [];
    channel.bind('status', (data: unknown) => seen.push(data));
    await new Promise((resolve) => channel.bind('pusher:subscription_succeeded', resolve));
    const publisher = new Pusher({
      appId,
      key,
      secret: SECRET,
      host: '127.0.0.1',
      port,
      useTLS: false,
    });
    await publisher.trigger('account-1', 'status', { live: true });
    await waitUntil(() => (seen.length > 0 ? true : undefined), 'the event');
    expect(seen).toEqual([{ live: true }]);
  } finally {
    client.disconnect();
  }
});
