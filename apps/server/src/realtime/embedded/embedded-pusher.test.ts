import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedPusher } from './embedded-pusher';

const endpoint = new EmbeddedPusher({ credentials: { key: 'k', secret: 'secret-0123456789' } });
afterAll(() => endpoint.close());

const upgrade = (url: string) =>
  endpoint.handleUpgrade(
    { url, headers: {}, method: 'GET' } as IncomingMessage,
    new Duplex({ read: () => undefined, write: (_c, _e, done) => done() }),
    Buffer.alloc(0),
  );

describe('EmbeddedPusher.handleUpgrade', () => {
  it.each(['/signal', '/', '/application/k', 'http://[bad', '/apps/k/events'])(
    'leaves %s to the other handlers',
    (url) => expect(upgrade(url)).toBe(false),
  );

  it.each(['/app/k?protocol=7', '/app/%E0%A4%A', '/app/'])('takes %s', (url) =>
    expect(upgrade(url)).toBe(true),
  );
});
