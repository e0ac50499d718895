/**
 * SocketAccess against the database on an injected clock, its sockets stand-ins of the engine's
 * and the realtime endpoint's interfaces: Log out everywhere withdraws every login's sockets at
 * once and tells the other instances; the sweep writes that the sessions of the sockets
 * connected here are in use (once a minute), and withdraws the sockets of a session that idled
 * out (issue 36 item 3). The product's own sockets: socket-access.integration.test.ts.
 */
import { eq, inArray } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SignallingClient } from '@leadline/voice';
import type { Database } from '../db/database';
import { seedDemo } from '../db/seed';
import { accounts, sessions, users } from '../db/schema';
import type { InstanceBus } from '../events/instance-bus';
import { openTestDatabase } from '../test-support/test-database';
import { SessionStore, touchSessions } from './sessions';
import {
  sessionTagOf,
  SocketAccess,
  type RealtimeSockets,
  type SignallingSockets,
} from './socket-access';

const MINUTE = 60_000;
let database: Database;
let agentId: number;
let accountId: number;
let now: number;

beforeAll(async () => {
  database = await openTestDatabase();
  await seedDemo(database.db);
  const [agent] = await database.db
    .select()
    .from(users)
    .where(eq(users.email, 'agent1@example.com'));
  agentId = agent!.id;
  accountId = agent!.accountId;
});
afterAll(() => database.close());
beforeEach(async () => {
  now = Date.parse('2026-11-25T09:00:00Z');
  await database.db.delete(sessions);
  await database.db.update(accounts).set({ policy: {} }).where(eq(accounts.id, accountId));
});

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

/** A bus that keeps what this instance tells the others. */
class RecordingBus implements InstanceBus {
  readonly instanceId = 'this-instance';
  readonly maxPayloadBytes = Number.POSITIVE_INFINITY;
  readonly published: Array<{ topic: string; payload: unknown }> = [];
  async publish(topic: string, payload: unknown): Promise<void> {
    this.published.push({ topic, payload });
  }
  subscribe(): () => void {
    return () => undefined;
  }
  async close(): Promise<void> {}
}

const store = () =>
  new SessionStore(database.db, 24 * 60 * MINUTE, {
    idleMs: 60 * MINUTE,
    now: () => new Date(now),
  });

/** A login of the agent: its session id. */
async function loginOfAgent(): Promise<string> {
  const { cookie } = await store().create(agentId);
  return (await store().find(cookie))!.sessionId;
}

const lastSeenOf = async (ids: string[]) =>
  Object.fromEntries(
    (
      await database.db
        .select({ id: sessions.id, lastSeenAt: sessions.lastSeenAt })
        .from(sessions)
        .where(inArray(sessions.id, ids))
    ).map((row) => [row.id, row.lastSeenAt.getTime()]),
  );

function access() {
  const signalling = new Signalling();
  const realtime = new Realtime();
  const bus = new RecordingBus();
  const sockets = new SocketAccess({
    db: database.db,
    bus,
    log: pino({ level: 'silent' }),
    signalling,
    idleMs: 60 * MINUTE,
    now: () => new Date(now),
  });
  sockets.attachRealtime(realtime);
  return { sockets, signalling, realtime, bus };
}

describe('Log out everywhere', () => {
  it('withdraws, at once, the softphone and realtime sockets of every ended login, and tells the other instances', async () => {
    const [one, two, kept] = [await loginOfAgent(), await loginOfAgent(), await loginOfAgent()];
    const { sockets, signalling, realtime, bus } = access();
    const identity = String(agentId);
    signalling.clients = [one, two, kept].map((id) => ({ identity, session: sessionTagOf(id) }));
    for (const [socketId, id] of [
      ['1.1', one],
      ['2.2', two],
      ['3.3', kept],
    ] as const) {
      realtime.connected.add(socketId);
      sockets.realtimeAuthorised(socketId, agentId, id);
    }
    await sockets.sessionsEnded([one, two]);
    expect(signalling.clients).toEqual([{ identity, session: sessionTagOf(kept) }]);
    expect(realtime.withdrawn.sort()).toEqual(['1.1', '2.2']);
    expect(bus.published).toEqual([
      {
        topic: 'sockets.withdrawn',
        payload: {
          sessions: [sessionTagOf(one), sessionTagOf(two)],
          realtimeSockets: ['1.1', '2.2'],
        },
      },
    ]);
    sockets.stop();
  });
});

describe('the sweep and the idle timeout', () => {
  it('writes that a login with a socket connected here is in use, at most once a minute; a login without one is not', async () => {
    const [softphone, realtimeOnly, elsewhere, none] = [
      await loginOfAgent(),
      await loginOfAgent(),
      await loginOfAgent(),
      await loginOfAgent(),
    ];
    const { sockets, signalling, realtime } = access();
    signalling.clients = [{ identity: String(agentId), session: sessionTagOf(softphone) }];
    realtime.connected.add('1.1');
    sockets.realtimeAuthorised('1.1', agentId, realtimeOnly);
    // Authorised here, connected to another instance (which writes its use itself).
    sockets.realtimeAuthorised('9.9', agentId, elsewhere);
    const all = [softphone, realtimeOnly, elsewhere, none];
    const loggedIn = now;

    now += 30 * MINUTE;
    expect(await sockets.sweep()).toBe(0);
    expect(await lastSeenOf(all)).toEqual({
      [softphone]: now,
      [realtimeOnly]: now,
      [elsewhere]: loggedIn,
      [none]: loggedIn,
    });
    const written = now;
    now += MINUTE - 1;
    await sockets.sweep();
    expect((await lastSeenOf([softphone]))[softphone]).toBe(written);
    now += 1;
    await sockets.sweep();
    expect((await lastSeenOf([softphone]))[softphone]).toBe(now);
    sockets.stop();
  });

  it('writes a use once a minute whichever instance writes it (the condition is in the update)', async () => {
    const id = await loginOfAgent();
    const loggedIn = now;
    now += MINUTE - 1;
    await touchSessions(database.db, [id], new Date(now));
    expect(await lastSeenOf([id])).toEqual({ [id]: loggedIn });
    now += 1;
    await touchSessions(database.db, [id], new Date(now));
    await touchSessions(database.db, [id], new Date(now + 30_000));
    expect(await lastSeenOf([id])).toEqual({ [id]: now });
  });

  it("withdraws the sockets of a login idle past its account's timeout, and writes nothing", async () => {
    const idle = await loginOfAgent();
    const { sockets, signalling, realtime } = access();
    signalling.clients = [{ identity: String(agentId), session: sessionTagOf(idle) }];
    realtime.connected.add('1.1');
    sockets.realtimeAuthorised('1.1', agentId, idle);
    await database.db
      .update(accounts)
      .set({ policy: { session_idle_minutes: 10 } })
      .where(eq(accounts.id, accountId));
    const loggedIn = now;
    // As if no sweep had run for 10 minutes (an instance that stopped, then came back).
    now += 10 * MINUTE;
    expect(await sockets.sweep()).toBe(1);
    expect(signalling.clients).toEqual([]);
    expect(realtime.withdrawn).toEqual(['1.1']);
    expect(await lastSeenOf([idle])).toEqual({ [idle]: loggedIn });
    sockets.stop();
  });
});
