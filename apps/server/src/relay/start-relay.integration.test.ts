/**
 * A relaying instance as the product starts it (`startRelay`), against the rules every instance
 * keeps (`docs/security.md`): the API's documentation needs a session in production there too,
 * and a follower, which no instance relays to, refuses any relay header on requests and socket
 * upgrades alike.
 *
 * Needs PostgreSQL (`DATABASE_URL`: a relay shares the install's server); CI runs it in its
 * second pass of the server tests.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { OPERATOR_PASSWORD, seedOperatorAccount } from '../test-support/operator-account';
import { requestJson } from '../test-support/http-json';
import { HttpSession } from '../test-support/http-session';
import { openSharedTestDatabase, type SharedTestDatabase } from '../test-support/test-database';
import { staticMediaTarget } from './media-target';
import { RELAY_HEADER, RelaySigner } from './relay-signature';
import { startRelay, type RelayInstance } from './start-relay';

const SECRETS = {
  TOKEN_SECRET: 'start-relay-token-secret-0123456789abcdef',
  PUSHER_SECRET: 'start-relay-pusher-secret-0123',
};

let database: SharedTestDatabase | undefined;
const relays: RelayInstance[] = [];

/** Starts a relay to a media instance that never answers, in `mode`. */
async function relayIn(mode: 'embedded' | 'production'): Promise<RelayInstance> {
  const relay = await startRelay(
    loadConfig({
      ...SECRETS,
      LEADLINE_MODE: mode,
      DATABASE_URL: database!.url!,
      PORT: '0',
      LOG_LEVEL: 'silent',
      LEADLINE_API_KEY: 'start-relay-intake-key-0123456789abcdef',
      WEB_DIST_DIR: '/nonexistent',
    }),
    {
      target: async () => ({ ...staticMediaTarget('http://127.0.0.1:9'), close: () => undefined }),
    },
  );
  relays.push(relay);
  return relay;
}

beforeAll(async () => {
  if (!process.env.DATABASE_URL) return;
  database = await openSharedTestDatabase(1);
  await seedOperatorAccount(database.databases[0]!.db, {
    callerNumber: '+15550142999',
    agents: ['agent@operator.example'],
  });
}, 60_000);

afterAll(async () => {
  for (const relay of relays) await relay.close();
  await database?.close();
}, 60_000);

describe.runIf(process.env.DATABASE_URL)('a relaying instance', () => {
  it('serves the API document to signed-in users only in production, to anyone in embedded mode', async () => {
    const production = await relayIn('production');
    for (const path of ['/api/docs', '/api/docs/openapi.json']) {
      expect((await requestJson('GET', `${production.url}${path}`)).status).toBe(401);
    }
    const embedded = await relayIn('embedded');
    expect((await requestJson('GET', `${embedded.url}/api/docs/openapi.json`)).status).toBe(200);
    // (A production login: its cookie is the `__Host-` one.)
    const user = await HttpSession.login(
      production.url,
      'agent@operator.example',
      OPERATOR_PASSWORD,
    );
    const signedIn = await requestJson('GET', `${production.url}/api/docs/openapi.json`, {
      cookie: user.cookie,
    });
    expect(signedIn.status).toBe(200);
  });

  it('refuses a relay header, even one signed with the instances’ secret: nobody relays to a follower', async () => {
    const relay = await relayIn('embedded');
    const header = new RelaySigner(SECRETS.TOKEN_SECRET).sign(
      { client: '203.0.113.5', counted: true, epoch: null },
      { method: 'GET', target: '/api/v1/login/options', body: '' },
      Date.now(),
    );
    const res = await requestJson('GET', `${relay.url}/api/v1/login/options`, {
      [RELAY_HEADER]: header,
    });
    expect(res.status).toBe(401);
    const { port } = new URL(relay.url);
    const upgrade = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(answer));
      socket.write(
        [
          'GET /signal HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Connection: Upgrade',
          'Upgrade: websocket',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          `${RELAY_HEADER}: ${header}`,
          '',
          '',
        ].join('\r\n'),
      );
    });
    expect(upgrade).toMatch(/^HTTP\/1\.1 401 /);
  });
});
