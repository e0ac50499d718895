/**
 * An instance relaying to the media instance answers every route of the product as the media
 * instance does: the test builds the full product (the media instance, on a port) and a relaying
 * instance on the same database, walks every route the full product has (from its own route
 * table, so a route added later is covered without editing this test) and sends the same
 * request to both. Also: a relayed write acts on the media instance, and a media instance that
 * cannot be reached gets a clear 503. During a failover (the media lease's leader changing): a
 * request the old leader refused goes to the new one, and a request that arrives while no
 * leader is known waits for one.
 */
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { SessionStore } from '../auth/sessions';
import { rateLimitHits, users } from '../db/schema';
import { HttpSession } from '../test-support/http-session';
import type { MediaTarget } from './media-target';
import { FAILOVER_WAIT_MS } from './relayed-routes';
import { requestJson } from '../test-support/http-json';
import {
  TEST_PUSHER,
  TEST_API_KEY,
  TEST_TOKEN_SECRET,
  startTestApp,
  type TestApp,
} from '../test-support/test-app';

let media: TestApp;
let mediaUrl: string;
let relay: FastifyInstance;
let relayUrl: string;

async function relayTo(
  to: string | MediaTarget,
  db: TestApp['database']['db'],
): Promise<FastifyInstance> {
  const app = await buildApp(
    {
      db,
      sessions: new SessionStore(db, 3_600_000),
      tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
      loginThrottle: new LoginThrottle(db),
      pusher: TEST_PUSHER,
      relayTo: to,
    },
    {
      logger: pino({ level: 'silent' }),
      trustProxy: false,
      webDistDir: '/nonexistent',
      sandbox: 'relayed',
      relaySecret: TEST_TOKEN_SECRET,
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

beforeAll(async () => {
  media = await startTestApp();
  mediaUrl = await media.app.listen({ port: 0, host: '127.0.0.1' });
  relay = await relayTo(mediaUrl, media.database.db);
  relayUrl = `http://127.0.0.1:${(relay.server.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await media?.close();
});

/** Every route of `app` as `[method, path]`, read from its route tree (HEAD left out). */
function routesOf(app: FastifyInstance): Array<[string, string]> {
  const routes: Array<[string, string]> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(\|*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.replace(/ {4}|│ {3}/g, '|'));
    if (!match) continue;
    const depth = match[1]!.length;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) {
      routes.push([method, stack.join('')]);
    }
  }
  return routes;
}

describe('a relaying instance', () => {
  it('answers every route of the product as the media instance does', async () => {
    const routes = routesOf(media.app);
    // The walk sees the whole table (a broken parse would pass vacuously).
    expect(routes).toContainEqual(['POST', '/api/v1/calls/:id/transfer']);
    expect(routes).toContainEqual(['PUT', '/api/v1/user/status']);
    expect(routes.length).toBeGreaterThan(35);

    // One session per side (the same user): logging out on one leaves the other.
    let direct = await HttpSession.login(mediaUrl, 'agent1@example.com');
    let relayed = await HttpSession.login(relayUrl, 'agent1@example.com');
    const compared: string[] = [];
    // Logging out ends the sessions the walk uses: last, each with fresh sessions (logging out
    // everywhere on one side ends the other side's too, so that one logs in after it).
    const endsSessions = ([, path]: [string, string]) =>
      path === '/api/v1/user/logout' || path === '/api/v1/user/logout-everywhere';
    const walk = [...routes.filter((r) => !endsSessions(r)), ...routes.filter(endsSessions)];
    for (const [method, pattern] of walk) {
      const path = pattern.replace(/:id/g, '999999').replace(/:file/g, 'incoming.mp3');
      const body = method === 'GET' ? undefined : {};
      if (endsSessions([method, pattern])) {
        direct = await HttpSession.login(mediaUrl, 'agent1@example.com');
      }
      const there = await requestJson(
        method,
        `${mediaUrl}${path}`,
        { cookie: direct.cookie, 'x-csrf-token': direct.csrf },
        body,
      );
      if (endsSessions([method, pattern])) {
        relayed = await HttpSession.login(relayUrl, 'agent1@example.com');
      }
      const here = await requestJson(
        method,
        `${relayUrl}${path}`,
        { cookie: relayed.cookie, 'x-csrf-token': relayed.csrf },
        body,
      );
      expect({ route: `${method} ${path}`, status: here.status }).toEqual({
        route: `${method} ${path}`,
        status: there.status,
      });
      if (there.status >= 400) expect(here.body).toEqual(there.body);
      compared.push(`${method} ${path} ${there.status}`);
    }
    // Refused and accepted requests both crossed: not everything was a 404.
    expect(compared.filter((c) => c.endsWith(' 404')).length).toBeLessThan(routes.length / 2);
  });

  it('relays a HEAD of a relayed GET route as a HEAD (its signature names the method sent)', async () => {
    const agent = await HttpSession.login(relayUrl, 'agent1@example.com');
    const head = await fetch(`${relayUrl}/api/v1/teams`, {
      method: 'HEAD',
      headers: { cookie: agent.cookie },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('carries a write to the media instance, which acts on it', async () => {
    const agent = await HttpSession.login(relayUrl, 'agent2@example.com');
    const res = await agent.api<{ status: string; is_available: boolean }>(
      'PUT',
      '/api/v1/user/status',
      { status: 'away' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_available: false });
    const [row] = await media.database.db
      .select({ available: users.isAvailable })
      .from(users)
      .where(eq(users.id, agent.userId));
    expect(row?.available).toBe(false);
  });

  it('counts a relayed lead once, under the address it came from: the media instance believes the relaying instance’s proof', async () => {
    const key = 'intake:127.0.0.1';
    const hitsOf = async () =>
      (
        await media.database.db
          .select({ hits: rateLimitHits.hits })
          .from(rateLimitHits)
          .where(eq(rateLimitHits.key, key))
      )[0]?.hits ?? 0;
    const before = await hitsOf();
    const res = await requestJson(
      'POST',
      `${relayUrl}/api/v1/leads`,
      { authorization: `Bearer ${TEST_API_KEY}` },
      { fname: 'Relayed', lname: 'Once', phone_number: '+15550100321' },
    );
    expect(res.status).toBe(201);
    expect(await hitsOf()).toBe(before + 1);
    // The sandbox's inbound call is not counted by the relaying instance (a relayed route), so
    // it sends no proof and the media instance counts it.
    const inbound = await requestJson(
      'POST',
      `${relayUrl}/api/v1/sandbox/inbound`,
      { authorization: `Bearer ${TEST_API_KEY}` },
      {},
    );
    expect(inbound.status).not.toBe(429);
    expect(await hitsOf()).toBe(before + 2);
  });

  it('answers 503 with a clear message when the media instance cannot be reached', async () => {
    const closedPort = await (async () => {
      const probe = await relayTo('http://127.0.0.1:9', media.database.db);
      return probe;
    })();
    try {
      const port = (closedPort.server.address() as { port: number }).port;
      const agent = await HttpSession.login(`http://127.0.0.1:${port}`, 'agent1@example.com');
      const res = await agent.api('PUT', '/api/v1/user/status', { status: 'available' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'The call service cannot be reached just now. Try again in a moment.',
      });
      // What it serves itself still works.
      expect((await agent.api('GET', '/api/v1/mycalls?page=1')).status).toBe(200);
    } finally {
      await closedPort.close();
    }
  });

  /** Sets agent2 away through a relay to `target`; resolves with the answer's status. */
  async function awayThrough(target: MediaTarget): Promise<number> {
    const app = await relayTo(target, media.database.db);
    try {
      const port = (app.server.address() as { port: number }).port;
      const agent = await HttpSession.login(`http://127.0.0.1:${port}`, 'agent2@example.com');
      return (await agent.api('PUT', '/api/v1/user/status', { status: 'away' })).status;
    } finally {
      await app.close();
    }
  }

  /** Makes agent2 available again on the media instance; resolves with their user id. */
  async function availableAgain(): Promise<number> {
    const agent = await HttpSession.login(mediaUrl, 'agent2@example.com');
    expect((await agent.api('PUT', '/api/v1/user/status', { status: 'available' })).status).toBe(
      200,
    );
    return agent.userId;
  }

  const isAvailable = async (userId: number) =>
    (
      await media.database.db
        .select({ available: users.isAvailable })
        .from(users)
        .where(eq(users.id, userId))
    )[0]?.available;

  it('a request the old leader refused goes to the new one', async () => {
    const userId = await availableAgain();
    const dead = 'http://127.0.0.1:9';
    let leader = dead;
    const refused: string[] = [];
    const status = await awayThrough({
      current: () => leader,
      unreachable: (url) => {
        refused.push(url);
        leader = mediaUrl;
      },
      next: async () => leader,
    });
    expect(status).toBe(200);
    expect(refused).toEqual([dead]);
    expect(await isAvailable(userId)).toBe(false);
  });

  it('a request refused again by the dead leader, still named while its heartbeat is fresh, goes on to the new leader once it is up', async () => {
    const userId = await availableAgain();
    const dead = 'http://127.0.0.1:9';
    // The directory hands the dead leader back twice (its row not yet stale), then the new one.
    const named = [dead, dead, mediaUrl];
    const refused: string[] = [];
    const status = await awayThrough({
      current: () => named[0]!,
      unreachable: (url) => refused.push(url),
      next: async () => {
        if (named.length > 1) named.shift();
        return named[0]!;
      },
    });
    expect(status).toBe(200);
    expect(refused).toEqual([dead, dead]);
    expect(await isAvailable(userId)).toBe(false);
  });

  it('a request that arrives while no leader is known waits for one', async () => {
    const userId = await availableAgain();
    let known: string | null = null;
    const waited: number[] = [];
    const status = await awayThrough({
      current: () => known,
      unreachable: () => undefined,
      next: (timeoutMs) => {
        waited.push(timeoutMs);
        // The new leader is elected while the request waits.
        return new Promise((resolve) =>
          setImmediate(() => {
            known = mediaUrl;
            resolve(mediaUrl);
          }),
        );
      },
    });
    expect(status).toBe(200);
    expect(waited).toEqual([FAILOVER_WAIT_MS]);
    expect(await isAvailable(userId)).toBe(false);
  });
});
