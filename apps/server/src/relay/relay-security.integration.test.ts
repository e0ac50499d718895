/**
 * A follower is no proxy (`docs/security.md`, the relay): two instances started as `npm start`
 * starts them (child processes) on one PostgreSQL database, A leading the media and B following
 * it, and a canary HTTP server on loopback that counts every connection made to it.
 *
 * - Raw HTTP/1.1 requests to B aimed at the canary (absolute-form targets, network-path
 *   references, backslashes, `%2e%2e`) on the relayed routes (GET, POST, PUT) and on a `/signal`
 *   upgrade get 400 and never reach the canary.
 * - A request aimed at a closed port leaves B serving: a lead posted through B right after is
 *   201, and B never passed over its leader.
 * - A request that claims to be relayed without a signature that holds (another secret, a
 *   replay, another epoch) is refused by the leader and changes nothing; what B relays holds.
 * - `/signal` upgrades relayed through B are counted once, by B, under each browser's address:
 *   the leader neither counts them again nor lumps them under B's address.
 * - The `media_leader` row pointed at the canary (a database write an attacker made): B does not
 *   relay there (INSTANCE_URLS lists A only) and relays to A again once the row names A.
 *
 * Needs PostgreSQL (`DATABASE_URL`); CI runs it in its second pass of the server tests.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { leads } from '../db/schema';
import { DEMO_API_KEY } from '../db/demo-logins';
import { ChildLeadline } from '../test-support/child-leadline';
import { requestJson } from '../test-support/http-json';
import { HttpSession } from '../test-support/http-session';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { waitUntil } from '../test-support/wait-until';
import { RELAY_HEADER, RelaySigner } from './relay-signature';

const TOKEN_SECRET = 'relay-security-token-secret-0123456789abcdef';
const TEST_TIMEOUT_MS = 300_000;
/** Socket upgrades per address per minute, on both instances. */
const SOCKETS_PER_MINUTE = 3;

let dataDir: string;
let database: PersistedDatabase;
let db: Database | undefined;
let a: ChildLeadline | undefined;
let b: ChildLeadline | undefined;
let canary: Server;
let canaryPort: number;
/** Connections the canary accepted. */
let reached = 0;

/** Sends `head` (a raw HTTP/1.1 request head) to `url`'s port; resolves with the status line. */
function raw(url: string, head: string): Promise<{ status: number; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (status === undefined) return reject(new Error(`no answer: ${JSON.stringify(answer)}`));
      resolve({ status: Number(status), answer });
    });
    socket.write(head);
  });
}

const requestHead = (method: string, target: string, host: string, body = '') =>
  [
    `${method} ${target} HTTP/1.1`,
    `Host: ${host}`,
    'Connection: close',
    `Authorization: Bearer ${DEMO_API_KEY}`,
    ...(body
      ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]
      : []),
    '',
    body,
  ].join('\r\n');

const upgradeHead = (target: string, host: string, forwardedFor?: string) =>
  [
    `GET ${target} HTTP/1.1`,
    `Host: ${host}`,
    ...(forwardedFor ? [`X-Forwarded-For: ${forwardedFor}`] : []),
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    '',
    '',
  ].join('\r\n');

const leadCount = async () => (await db!.db.select({ n: count() }).from(leads))[0]!.n;

beforeAll(async () => {
  if (!process.env.DATABASE_URL) return;
  canary = createServer((_request, response) => response.end('canary'));
  canary.on('connection', () => reached++);
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryPort = (canary.address() as AddressInfo).port;
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-relay-security-'));
  database = await createPersistedDatabase(dataDir);
  const shared = {
    ...database.env,
    TOKEN_SECRET,
    PUSHER_SECRET: 'relay-security-pusher-0123',
    RATE_LIMIT_SOCKETS_PER_MINUTE: String(SOCKETS_PER_MINUTE),
  };
  a = await ChildLeadline.start({ dataDir: join(dataDir, 'a'), env: shared });
  await waitUntil(async () => {
    const health = await requestJson<{ media?: { role: string } }>('GET', `${a!.url}/healthz`);
    return health.body.media?.role === 'leader' ? true : undefined;
  }, 'A to lead the media');
  // B relays to A only: INSTANCE_URLS lists A's URL and nothing else (no loopback at large).
  b = await ChildLeadline.start({
    dataDir: join(dataDir, 'b'),
    // Behind one proxy (the balancer): the browser's address is its X-Forwarded-For.
    env: { ...shared, INSTANCE_URLS: a.url, TRUST_PROXY: '1' },
  });
  db = await database.open();
}, 400_000);

afterAll(async () => {
  await db?.close();
  for (const product of [b, a]) {
    await product?.stop();
    await product?.dispose();
  }
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  await new Promise((resolve) => canary?.close(resolve));
}, 180_000);

describe.runIf(process.env.DATABASE_URL)('a follower and its leader', () => {
  it(
    'refuses every target aimed elsewhere with 400, on the relayed routes and a /signal upgrade, and the canary is never reached',
    async () => {
      const host = new URL(b!.url).host;
      const elsewhere = `http://127.0.0.1:${canaryPort}`;
      const body = JSON.stringify({ fname: 'Ca', lname: 'Nary', phone_number: '+15550100042' });
      const targets: Array<[string, string, string?]> = [
        ['GET', `${elsewhere}/api/v1/teams`],
        ['GET', `${elsewhere}/api/v1/callusers/1`],
        ['GET', `${elsewhere}/api/v1/callusers/..\\..\\..\\latest\\meta-data\\`],
        ['POST', `${elsewhere}/api/v1/leads`, body],
        ['POST', `${elsewhere}/api/v1/calls/1/transfer`, '{"user_id":2,"call_user_id":1}'],
        ['PUT', `${elsewhere}/api/v1/calls/1/hold`, '{}'],
        ['GET', `//127.0.0.1:${canaryPort}/api/v1/teams`],
        ['GET', '/api/v1/callusers/..\\..\\..\\x'],
        ['GET', '/api/v1/callusers/%2e%2e/%2e%2e/%2e%2e/x'],
        ['POST', '/api/v1/calls/%2E%2E/%2E%2E/x/transfer', '{}'],
        ['PUT', '/api/v1/calls/1\\..\\..\\..\\x/hold', '{}'],
        ['GET', '/api/v1/calls/../../../x/recording'],
      ];
      const leadsBefore = await leadCount();
      for (const [method, target, payload] of targets) {
        const answer = await raw(b!.url, requestHead(method, target, host, payload));
        expect({ method, target, status: answer.status }).toEqual({ method, target, status: 400 });
      }
      for (const target of [
        `${elsewhere}/signal`,
        `//127.0.0.1:${canaryPort}/signal`,
        '/signal/..\\..\\x',
        '/signal/%2e%2e/x',
      ]) {
        const answer = await raw(b!.url, upgradeHead(target, host));
        expect({ target, status: answer.status }).toEqual({ target, status: 400 });
      }
      expect(reached).toBe(0);
      expect(await leadCount()).toBe(leadsBefore);
      // The same routes in origin-form are relayed to A as ever.
      const teams = await raw(b!.url, requestHead('GET', '/api/v1/teams', host));
      expect(teams.status).toBe(401);
      const lead = await raw(b!.url, requestHead('POST', '/api/v1/leads', host, body));
      expect(lead.status).toBe(201);
      expect(await leadCount()).toBe(leadsBefore + 1);
      expect(reached).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a request aimed at a closed port leaves the follower serving: a lead posted right after is 201',
    async () => {
      const host = new URL(b!.url).host;
      const aimed = await raw(b!.url, requestHead('GET', 'http://127.0.0.1:1/api/v1/teams', host));
      expect(aimed.status).toBe(400);
      const sentAt = performance.now();
      const posted = await b!.postLead({
        fname: 'Right',
        lname: 'After',
        phone_number: '+15550100044',
      });
      console.info(
        `a lead through the follower after it: ${(performance.now() - sentAt).toFixed(0)} ms`,
      );
      expect(posted.status).toBe(201);
      // B never took its leader for gone.
      expect(b!.output()).not.toMatch(/could not be reached/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the leader refuses a request that says it was relayed without a signature that holds, and changes nothing',
    async () => {
      const leadsBefore = await leadCount();
      const body = { fname: 'Forged', lname: 'Relay', phone_number: '+15550100045' };
      const epoch = (await requestJson<{ media: { epoch: number } }>('GET', `${a!.url}/healthz`))
        .body.media.epoch;
      const post = (header: string) =>
        requestJson(
          'POST',
          `${a!.url}/api/v1/leads`,
          {
            authorization: `Bearer ${DEMO_API_KEY}`,
            [RELAY_HEADER]: header,
          },
          body,
        );
      const wire = { method: 'POST', target: '/api/v1/leads', body: JSON.stringify(body) };
      const claims = { client: '203.0.113.9', counted: true, epoch };
      const forged = new RelaySigner('not-the-instances-secret-0123456789abcdef');
      expect((await post(forged.sign(claims, wire, Date.now()))).status).toBe(401);
      expect((await post('v1.1.2.1.AAAA.AAAAAAAAAAAAAAAAAAAAAA.x.y')).status).toBe(401);
      const signer = new RelaySigner(TOKEN_SECRET);
      expect(
        (await post(signer.sign({ ...claims, epoch: epoch + 1 }, wire, Date.now()))).status,
      ).toBe(421);
      expect(await leadCount()).toBe(leadsBefore);
      // With the instances' secret, for this leader, once: it holds.
      const header = signer.sign(claims, wire, Date.now());
      expect((await post(header)).status).toBe(201);
      expect((await post(header)).status).toBe(401);
      expect(await leadCount()).toBe(leadsBefore + 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'counts /signal upgrades relayed through the follower once, under each browser’s address',
    async () => {
      const host = new URL(b!.url).host;
      // More browsers than one address may open sockets a minute: the leader lets them all in.
      for (let i = 0; i < SOCKETS_PER_MINUTE + 2; i++) {
        const answer = await raw(b!.url, upgradeHead('/signal', host, `198.51.100.${10 + i}`));
        expect({ i, status: answer.status }).toEqual({ i, status: 101 });
      }
      // One browser past its budget is refused by the follower, which counted it.
      for (let i = 0; i < SOCKETS_PER_MINUTE; i++) {
        expect((await raw(b!.url, upgradeHead('/signal', host, '198.51.100.50'))).status).toBe(101);
      }
      const refused = await raw(b!.url, upgradeHead('/signal', host, '198.51.100.50'));
      expect(refused.status).toBe(429);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'does not relay to a leader URL INSTANCE_URLS does not allow, whatever the row says',
    async () => {
      const agent = await HttpSession.login(b!.url, 'agent2@example.com');
      const away = () => agent.api('PUT', '/api/v1/user/status', { status: 'away' });
      expect((await away()).status).toBe(200);
      const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await admin.connect();
      try {
        const [{ url }] = (await admin.query<{ url: string }>('select url from media_leader'))
          .rows as [{ url: string }];
        expect(url).toBe(a!.url);
        // Someone who can write one row points the install at the canary.
        await admin.query('update media_leader set url = $1', [`http://127.0.0.1:${canaryPort}`]);
        await waitUntil(
          () => (/which INSTANCE_URLS does not allow/.test(b!.output()) ? true : undefined),
          'B to refuse the canary as its leader',
        );
        const waiting = away();
        await admin.query('update media_leader set url = $1', [url]);
        expect((await waiting).status).toBe(200);
        expect(reached).toBe(0);
      } finally {
        await admin.query('update media_leader set url = $1', [a!.url]).catch(() => undefined);
        await admin.end();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
