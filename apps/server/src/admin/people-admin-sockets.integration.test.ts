/**
 * Deactivation closes the user's sockets at once (issue 37): an instance with `SocketAccess`
 * (its sockets stand-ins of the engine's and the realtime endpoint's interfaces, as in
 * socket-access-sessions.integration.test.ts) serves PATCH /api/v1/admin/users/{id}
 * `{active: false}`; the user's softphone and realtime sockets of every login are withdrawn in
 * the same request, the other instances are told (sockets.withdrawn and admin.changed on the
 * bus), the sweep withdraws any socket of an inactive user's session it finds later, and an
 * admin change announced on one instance drops the caches of another.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignallingClient } from '@leadline/voice';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import {
  sessionTagOf,
  SocketAccess,
  type RealtimeSockets,
  type SignallingSockets,
} from '../auth/socket-access';
import type { Database } from '../db/database';
import { routingChanges } from '../db/routing-changes';
import { users } from '../db/schema';
import { DEMO_PASSWORD, seedDemo } from '../db/seed';
import type { InstanceBus } from '../events/instance-bus';
import { openTestDatabase } from '../test-support/test-database';
import { login, TEST_PUSHER, TEST_TOKEN_SECRET, type Agent } from '../test-support/test-app';
import { AdminChanges, ADMIN_CHANGED_TOPIC, forgetOnAdminChange } from './admin-changes';

/** The engine's signalling sockets: `clients` connected; a revoked one is gone. */
class Signalling implements SignallingSockets {
  clients: SignallingClient[] = [];
  signallingClients(): SignallingClient[] {
    return this.clients;
  }
  revokeSignalling(withdrawn: (client: SignallingClient) => boolean): number {
    const before = this.clients.length;
    this.clients = this.clients.filter((client) => !withdrawn(client));
    return before - this.clients.length;
  }
}

/** The realtime endpoint: the sockets connected here, and those it was told to close. */
class Realtime implements RealtimeSockets {
  readonly connected = new Set<string>();
  readonly withdrawn: string[] = [];
  withdraw(socketId: string): boolean {
    this.withdrawn.push(socketId);
    return this.connected.delete(socketId);
  }
  isConnected(socketId: string): boolean {
    return this.connected.has(socketId);
  }
}

/**
 * Instances on one hub: what one publishes reaches the others' subscribers (not its own), as
 * the PostgreSQL bus does; every message is kept.
 */
class Hub {
  readonly published: Array<{ from: string; topic: string; payload: unknown }> = [];
  readonly #buses = new Set<HubBus>();
  bus(name: string): HubBus {
    const bus = new HubBus(name, this);
    this.#buses.add(bus);
    return bus;
  }
  send(from: HubBus, topic: string, payload: unknown): void {
    this.published.push({ from: from.instanceId, topic, payload });
    for (const bus of this.#buses) if (bus !== from) bus.deliver(topic, payload);
  }
}

class HubBus implements InstanceBus {
  readonly maxPayloadBytes = Number.POSITIVE_INFINITY;
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();
  constructor(
    readonly instanceId: string,
    private readonly hub: Hub,
  ) {}
  async publish(topic: string, payload: unknown): Promise<void> {
    this.hub.send(this, topic, JSON.parse(JSON.stringify(payload)));
  }
  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    const set = this.#listeners.get(topic) ?? new Set();
    set.add(listener);
    this.#listeners.set(topic, set);
    return () => set.delete(listener);
  }
  deliver(topic: string, payload: unknown): void {
    for (const listener of this.#listeners.get(topic) ?? []) listener(payload);
  }
  async close(): Promise<void> {}
}

const log = pino({ level: 'silent' });
let database: Database;
let app: FastifyInstance;
let hub: Hub;
let sockets: SocketAccess;
let signalling: Signalling;
let realtime: Realtime;
let admin: Agent;
let agentId: number;

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  await seedDemo(db);
  await db.insert(users).values({
    accountId: 1,
    email: 'sock.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Sock Admin',
    role: 'admin',
  });
  const [agent] = await db.select().from(users).where(eq(users.email, 'agent2@example.com'));
  agentId = agent!.id;
  hub = new Hub();
  const bus = hub.bus('this-instance');
  signalling = new Signalling();
  realtime = new Realtime();
  sockets = new SocketAccess({ db, bus, log, signalling });
  sockets.attachRealtime(realtime);
  // An instance serving the admin API; the call routes are another's (never reached here).
  app = await buildApp(
    {
      db,
      sessions: new SessionStore(db, 3_600_000),
      tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
      loginThrottle: new LoginThrottle(db),
      pusher: TEST_PUSHER,
      sockets,
      adminChanges: new AdminChanges({ bus, log }),
      relayTo: 'http://127.0.0.1:9',
    },
    {
      logger: log,
      trustProxy: false,
      webDistDir: '/nonexistent',
      sandbox: false,
      relaySecret: 'people-admin-sockets-token-secret-0123456789',
    },
  );
  admin = await login(app, 'sock.admin@example.com');
}, 60_000);
afterAll(async () => {
  sockets?.stop();
  await app?.close();
  await database?.close();
});

/** A login of the agent with a softphone and a realtime socket: its session id. */
async function connectedLogin(socketId: string): Promise<string> {
  const store = new SessionStore(database.db, 3_600_000);
  const { cookie } = await store.create(agentId);
  const session = (await store.find(cookie))!.sessionId;
  signalling.clients.push({ identity: String(agentId), session: sessionTagOf(session) });
  realtime.connected.add(socketId);
  sockets.realtimeAuthorised(socketId, agentId, session);
  return session;
}

const patchUser = (id: number, payload: Record<string, unknown>) =>
  app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${id}`,
    headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    payload,
  });

describe('deactivating a user', () => {
  it("withdraws every login's softphone and realtime sockets in the same request and tells the other instances", async () => {
    const sessions = [await connectedLogin('11.1'), await connectedLogin('22.2')];
    // Another user's socket stays.
    signalling.clients.push({ identity: '999', session: 'someone-else' });

    const res = await patchUser(agentId, { active: false });
    expect(res.statusCode, res.body).toBe(200);

    expect(signalling.clients).toEqual([{ identity: '999', session: 'someone-else' }]);
    expect(realtime.withdrawn.sort()).toEqual(['11.1', '22.2']);
    const withdrawn = hub.published.filter((m) => m.topic === 'sockets.withdrawn');
    expect(withdrawn.flatMap((m) => (m.payload as { sessions: string[] }).sessions).sort()).toEqual(
      sessions.map(sessionTagOf).sort(),
    );
    expect(hub.published.filter((m) => m.topic === ADMIN_CHANGED_TOPIC)).toEqual([
      {
        from: 'this-instance',
        topic: ADMIN_CHANGED_TOPIC,
        payload: { accountId: 1, what: 'users' },
      },
    ]);
  });

  it("the sweep withdraws a socket of an inactive user's session found later (a lost bus message)", async () => {
    signalling.clients = [];
    // A session row of the (now inactive) agent and a softphone socket it let in.
    const { cookie } = await new SessionStore(database.db, 3_600_000).create(agentId);
    const session = createHash('sha256').update(cookie).digest('hex');
    const client = { identity: String(agentId), session: sessionTagOf(session) };
    signalling.clients.push(client);
    expect(await sockets.sweep()).toBe(1);
    expect(signalling.clients).not.toContainEqual(client);
  });

  it('reactivated, their new logins keep their sockets through the sweep', async () => {
    const res = await patchUser(agentId, { active: true });
    expect(res.statusCode, res.body).toBe(200);
    const session = await connectedLogin('33.3');
    expect(await sockets.sweep()).toBe(0);
    expect(signalling.clients).toContainEqual({
      identity: String(agentId),
      session: sessionTagOf(session),
    });
  });
});

describe('an admin change on one instance', () => {
  it("drops the other instances' routing caches when the bus delivers it (and this one's at once)", async () => {
    const here = new AdminChanges({ bus: hub.bus('a'), log });
    const there = new AdminChanges({ bus: hub.bus('b'), log });
    const forgotten = { here: 0, there: 0 };
    forgetOnAdminChange(here, { settings: { forget: () => (forgotten.here += 1) } });
    forgetOnAdminChange(there, { settings: { forget: () => (forgotten.there += 1) } });
    const routingBefore = routingChanges();
    await here.announce({ accountId: 1, what: 'profiles' });
    expect(forgotten).toEqual({ here: 1, there: 1 });
    expect(routingChanges()).toBeGreaterThanOrEqual(routingBefore + 2);
    // What another instance cannot read is ignored (logged), never thrown.
    hub.bus('c').deliver(ADMIN_CHANGED_TOPIC, { accountId: 'x' });
    await hub.bus('d').publish(ADMIN_CHANGED_TOPIC, { accountId: -1, what: 'nothing' });
    expect(forgotten).toEqual({ here: 1, there: 1 });
    here.stop();
    there.stop();
  });
});
