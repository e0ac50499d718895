/**
 * The anonymous routes' rate limit (issue 36 item 6): what anyone may reach without a login is
 * counted per client address in the database, refused past its group's limit with 429,
 * `Retry-After` and a sentence, and the refusal changes nothing. Routes that need a login are not
 * counted. The counts are shared (two instances on one database count the same hits) and a
 * minute's window restarts. Socket upgrades are counted before any WebSocket is made.
 *
 * On PGlite, and on PostgreSQL with `DATABASE_URL` (scripts/test.mjs POSTGRES_PASS: src/http).
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { SSO_CALLBACK_PATH, SSO_LOGIN_PATH } from '@leadline/contracts';
import { loginThrottle, leads, rateLimitHits } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { installChangeCounter } from '../test-support/change-counter';
import { ManualClock } from '../test-support/manual-clock';
import {
  startTestApp,
  TEST_API_KEY,
  TEST_TOKEN_SECRET,
  type TestApp,
} from '../test-support/test-app';
import {
  RELAY_HEADER,
  RELAY_REFUSED_HEADER,
  RelaySigner,
  type RelayClaims,
} from '../relay/relay-signature';
import {
  anonymousGroupOf,
  clientAddressOf,
  SocketRateLimit,
  type TrustProxy,
} from './anonymous-rate-limit';
import { routeUpgrades } from './instance-http';
import { RateLimitHits } from './rate-limit-hits';

const LIMITS = { 'sign-in': 3, intake: 2, webhooks: 5, sockets: 2 };

let t: TestApp;
let clock: ManualClock;
let rowChanges: () => Promise<number>;

beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock, rateLimits: LIMITS });
  rowChanges = await installChangeCounter(t.database.db);
});
afterAll(() => t.close());

const login = (remoteAddress: string, password = 'wrong password') =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/user/login',
    remoteAddress,
    payload: { email: 'agent1@example.com', password },
  });

const postLead = (remoteAddress: string, phone: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    remoteAddress,
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
    payload: { fname: 'Rate', lname: 'Limit', phone_number: phone },
  });

const rows = async (table: typeof loginThrottle | typeof leads) =>
  (await t.database.db.select({ n: count() }).from(table))[0]!.n;

const REFUSED_A_MINUTE = {
  success: false,
  error: 'Too many requests from your address. Try again in 60 seconds.',
};

describe('sign-in', () => {
  it('refuses the address past its limit with 429, Retry-After and the sentence, changing nothing; other addresses go on', async () => {
    for (let i = 0; i < LIMITS['sign-in']; i++) {
      expect((await login('203.0.113.7')).statusCode).toBe(401);
    }
    const changesBefore = await rowChanges();
    const throttleRows = await rows(loginThrottle);
    const refused = await login('203.0.113.7', DEMO_PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual(REFUSED_A_MINUTE);
    // The whole group: the login view's options and single sign-on's start and callback too.
    for (const url of ['/api/v1/login/options', SSO_LOGIN_PATH, `${SSO_CALLBACK_PATH}?code=x`]) {
      const other = await t.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.7' });
      expect(other.statusCode, url).toBe(429);
      expect(other.json(), url).toEqual(REFUSED_A_MINUTE);
    }
    expect(await rowChanges()).toBe(changesBefore);
    expect(await rows(loginThrottle)).toBe(throttleRows);
    // Another address is counted apart: agent1 signs in from there.
    expect((await login('203.0.113.8', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  it('starts again when the minute is over', async () => {
    expect((await login('203.0.113.7', DEMO_PASSWORD)).statusCode).toBe(429);
    clock.advance(30_000);
    const half = await login('203.0.113.7', DEMO_PASSWORD);
    expect(half.headers['retry-after']).toBe('30');
    expect(half.json()).toEqual({
      success: false,
      error: 'Too many requests from your address. Try again in 30 seconds.',
    });
    clock.advance(30_000);
    expect((await login('203.0.113.7', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < LIMITS['sign-in']; i++) {
      expect((await login(`2001:db8:1:2::${i + 1}`)).statusCode).toBe(401);
    }
    expect((await login('2001:db8:1:2:ffff:ffff:ffff:ffff')).statusCode).toBe(429);
    expect((await login('2001:db8:1:3::1')).statusCode).toBe(401);
  });
});

describe('lead intake by API key', () => {
  it('refuses the address past its limit, with a valid key too, and creates no lead', async () => {
    expect((await postLead('198.51.100.1', '+15550100001')).statusCode).toBe(201);
    // A wrong key counts as much as a right one.
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/leads',
      remoteAddress: '198.51.100.1',
      headers: { authorization: 'Bearer not-a-key' },
      payload: {},
    });
    expect(wrong.statusCode).toBe(401);
    const leadsBefore = await rows(leads);
    const refused = await postLead('198.51.100.1', '+15550100002');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual(REFUSED_A_MINUTE);
    expect(await rows(leads)).toBe(leadsBefore);
    expect((await postLead('198.51.100.2', '+15550100003')).statusCode).toBe(201);
  });
});

describe('a request another instance relayed', () => {
  const signer = new RelaySigner(TEST_TOKEN_SECRET);
  const leadTo = (phone: string) => ({ fname: 'Relayed', lname: 'Lead', phone_number: phone });
  /** The relay header for a lead of `phone`, as a relaying instance would sign it. */
  const signed = (
    phone: string,
    claims: Partial<RelayClaims> = {},
    options: { by?: RelaySigner; at?: number; target?: string; body?: string } = {},
  ) =>
    (options.by ?? signer).sign(
      { client: '198.51.100.99', counted: true, epoch: null, ...claims },
      {
        method: 'POST',
        target: options.target ?? '/api/v1/leads',
        body: options.body ?? JSON.stringify(leadTo(phone)),
      },
      options.at ?? Date.now(),
    );
  const relayed = (remoteAddress: string, phone: string, header: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/leads',
      remoteAddress,
      headers: { authorization: `Bearer ${TEST_API_KEY}`, [RELAY_HEADER]: header },
      payload: leadTo(phone),
    });
  /** Each case from an address of its own. */
  let nextAddress = 30;

  it('is not counted again when the relaying instance counted it (its signature says so)', async () => {
    for (let i = 0; i < LIMITS.intake + 2; i++) {
      const phone = `+1555010020${i}`;
      expect((await relayed('198.51.100.20', phone, signed(phone))).statusCode).toBe(201);
    }
  });

  it('is counted under the browser’s address the relaying instance vouches for, not the relaying instance’s', async () => {
    const browser = `198.51.100.${nextAddress++}`;
    const relayAddresses = ['10.0.0.5', '10.0.0.6', '10.0.0.7'];
    for (let i = 0; i < LIMITS.intake; i++) {
      const phone = `+1555010040${i}`;
      const header = signed(phone, { client: browser, counted: false });
      expect((await relayed(relayAddresses[i]!, phone, header)).statusCode).toBe(201);
    }
    const header = signed('+15550100409', { client: browser, counted: false });
    expect((await relayed(relayAddresses[2]!, '+15550100409', header)).statusCode).toBe(429);
    // Another browser behind the same relaying instance is not held back by the first.
    const other = signed('+15550100410', { client: '198.51.100.250', counted: false });
    expect((await relayed(relayAddresses[2]!, '+15550100410', other)).statusCode).toBe(201);
  });

  const another = new RelaySigner('another-secret-another-secret-0123456');
  it.each([
    ['under another secret', (phone: string) => signed(phone, {}, { by: another })],
    ['made two minutes ago', (phone: string) => signed(phone, {}, { at: Date.now() - 120_000 })],
    ['for another target', (phone: string) => signed(phone, {}, { target: '/api/v1/leads?x=1' })],
    ['for another body', (phone: string) => signed(phone, {}, { body: '{"fname":"Else"}' })],
    ['malformed', () => 'v1.not-a-signature'],
  ])(
    'is refused with a signature %s: 401, nothing stored, nothing counted',
    async (_name, made) => {
      const address = `198.51.100.${nextAddress++}`;
      const leadsBefore = await rows(leads);
      const refused = await relayed(address, '+15550100301', made('+15550100301'));
      expect(refused.statusCode).toBe(401);
      expect(refused.json<{ error: string }>().error).toMatch(/signature does not hold/);
      expect(await rows(leads)).toBe(leadsBefore);
      // Not counted either: the address still has its whole budget.
      for (let i = 0; i < LIMITS.intake; i++) {
        expect((await postLead(address, `+1555010031${i}`)).statusCode).toBe(201);
      }
    },
  );

  it('is refused when replayed: a signature is believed once', async () => {
    const header = signed('+15550100320');
    expect((await relayed('198.51.100.21', '+15550100320', header)).statusCode).toBe(201);
    const leadsBefore = await rows(leads);
    expect((await relayed('198.51.100.21', '+15550100320', header)).statusCode).toBe(401);
    expect(await rows(leads)).toBe(leadsBefore);
  });

  it('is refused with 421 when signed for another leader’s epoch', async () => {
    const leadsBefore = await rows(leads);
    const res = await relayed(
      '198.51.100.22',
      '+15550100330',
      signed('+15550100330', { epoch: 7 }),
    );
    expect(res.statusCode).toBe(421);
    expect(res.headers[RELAY_REFUSED_HEADER]).toBe('misdirected');
    expect(await rows(leads)).toBe(leadsBefore);
  });
});

describe('what is not counted', () => {
  it('lets routes that need a login, and the health check, through from a limited address', async () => {
    const address = '192.0.2.50';
    for (let i = 0; i <= LIMITS['sign-in']; i++) await login(address);
    expect((await login(address)).statusCode).toBe(429);
    const cookie = await t.app
      .inject({
        method: 'POST',
        url: '/api/v1/user/login',
        remoteAddress: '192.0.2.51',
        payload: { email: 'agent2@example.com', password: DEMO_PASSWORD },
      })
      .then(
        (res) =>
          `leadline_session=${res.cookies.find((c) => c.name === 'leadline_session')!.value}`,
      );
    for (let i = 0; i < 10; i++) {
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/v1/user',
        remoteAddress: address,
        headers: { cookie },
      });
      expect(me.statusCode).toBe(200);
      const health = await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: address });
      expect(health.statusCode).toBe(200);
    }
  });

  it.each([
    ['POST', '/api/v1/user/login', 'public', 'sign-in'],
    ['GET', '/api/v1/login/options', 'public', 'sign-in'],
    ['GET', SSO_LOGIN_PATH, 'public', 'sign-in'],
    ['GET', SSO_CALLBACK_PATH, 'public', 'sign-in'],
    ['POST', '/api/v1/leads', 'api-key', 'intake'],
    ['POST', '/api/v1/sandbox/inbound', 'api-key', 'intake'],
    ['POST', '/twilio/voice', 'public', 'webhooks'],
    ['POST', '/twilio/status', 'public', 'webhooks'],
    ['POST', '/twilio/recording', 'public', 'webhooks'],
    ['POST', '/pusher/webhooks', 'public', 'webhooks'],
    ['POST', '/some/route/to/come', 'public', 'sign-in'],
    ['GET', '/healthz', 'public', null],
    ['GET', '/sounds/:file', 'public', null],
    ['GET', '/assets/index-abc.js', 'public', null],
    ['GET', '/', 'public', null],
    ['POST', '/apps/:appId/events', 'public', null],
    // A relaying instance registers the call routes with their own authentication.
    ['POST', '/api/v1/calls/:id/transfer', 'session', null],
    ['POST', '/api/v1/calls/twilio/outbound', 'session', null],
    ['GET', '/api/v1/user', undefined, null],
  ] as const)('%s %s (%s) counts in %s', (method, url, auth, group) => {
    expect(anonymousGroupOf({ method, url, auth })).toBe(group);
  });
});

describe('the shared counts', () => {
  it('count every instance’s hits once, however they interleave', async () => {
    const a = new RateLimitHits({ db: t.database.db });
    const b = new RateLimitHits({ db: t.database.db });
    const counts = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).hit('test:shared', 60_000)),
    );
    expect(counts.map((c) => c.hits).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });

  it('keep one row per key, and delete the rows of ended windows', async () => {
    const now = { at: Date.parse('2026-11-23T08:00:00Z') };
    const hits = new RateLimitHits({ db: t.database.db, now: () => new Date(now.at) });
    for (let i = 0; i < 300; i++) await hits.hit(`test:key-${i % 3}`, 60_000);
    const keys = async () =>
      (await t.database.db.select({ key: rateLimitHits.key }).from(rateLimitHits)).filter((row) =>
        row.key.startsWith('test:key-'),
      ).length;
    expect(await keys()).toBe(3);
    expect(await hits.hit('test:key-0', 60_000)).toEqual({ hits: 101, ttlMs: 60_000 });
    now.at += 60_001;
    await hits.sweep();
    expect(await keys()).toBe(0);
  });
});

describe('socket upgrades', () => {
  it('are refused past the limit with 429, Retry-After and the sentence, before any WebSocket', async () => {
    const server = Fastify();
    await server.listen({ port: 0, host: '127.0.0.1' });
    const wss = new WebSocketServer({ noServer: true });
    const limit = new SocketRateLimit({
      hits: new RateLimitHits({ db: t.database.db }),
      limits: LIMITS,
      trustProxy: false,
      log: { warn: () => undefined },
    });
    routeUpgrades(server.server, {
      signal: (request, socket, head) => wss.handleUpgrade(request, socket, head, () => undefined),
      realtime: { handleUpgrade: () => false },
      admit: (request) => limit.admit(request),
    });
    const { port } = server.server.address() as AddressInfo;
    // From an address of its own, so the other tests' counts do not matter.
    const attempt = () =>
      new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/signal`, { localAddress: '127.0.0.9' });
        ws.on('open', () => {
          ws.close();
          resolve({ status: 101, body: '' });
        });
        ws.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: response.headers['retry-after'],
              body,
            }),
          );
        });
        ws.on('error', reject);
      });
    try {
      expect((await attempt()).status).toBe(101);
      expect((await attempt()).status).toBe(101);
      const refused = await attempt();
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toMatch(/^\d+$/);
      expect(JSON.parse(refused.body)).toEqual({
        success: false,
        error: `Too many requests from your address. Try again in ${refused.retryAfter} seconds.`,
      });
    } finally {
      wss.close();
      await server.close();
    }
  });
});

describe('the client address of an upgrade', () => {
  const settings: Array<[string, TrustProxy]> = [
    ['no proxy trusted', false],
    ['every proxy trusted', true],
    ['a proxy list', '10.0.0.1, 10.0.0.0/24'],
    ['a proxy array', ['10.0.0.1']],
    ['a function', (address: string) => address === '10.0.0.1'],
  ];
  it.each(settings)('is what Fastify takes as request.ip with %s', async (_name, trustProxy) => {
    const app = Fastify({ trustProxy });
    app.get('/ip', (request) => ({
      ip: request.ip,
      raw: clientAddressOf(request.raw, trustProxy),
    }));
    for (const [remoteAddress, forwarded] of [
      ['10.0.0.1', '203.0.113.1'],
      ['10.0.0.1', '203.0.113.1, 10.0.0.7'],
      ['198.51.100.9', '203.0.113.1'],
    ] as const) {
      const res = await app.inject({
        method: 'GET',
        url: '/ip',
        remoteAddress,
        headers: { 'x-forwarded-for': forwarded },
      });
      const { ip, raw } = res.json<{ ip: string; raw: string }>();
      expect(raw).toBe(ip);
    }
    await app.close();
  });
});
