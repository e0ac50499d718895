/**
 * Device presence across instances (issue 38, Twilio mode): instances on one database, each
 * with its own `DevicePresence`, clock and instance bus (on PostgreSQL two connection pools and
 * the real `PgInstanceBus` on one scratch database; on PGlite the one database shared and the
 * buses joined in process). What each instance's telephony is told is recorded the way
 * `TwilioTelephony` takes it: `deviceOnline` emits only a change of what `isOnline` says,
 * `knowOnline` emits nothing.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database';
import { accounts, devicePresence, users } from '../db/schema';
import { PgInstanceBus, type InstanceBus } from '../events/instance-bus';
import { ManualClock } from '../test-support/manual-clock';
import { openSharedTestDatabase } from '../test-support/test-database';
import { waitUntil } from '../test-support/wait-until';
import {
  DEVICE_HEARTBEAT_MS,
  DEVICE_STALE_MS,
  DEVICE_SWEEP_MS,
  DevicePresence,
  PUSHER_PRESENCE_HOLDER,
  type DeviceReports,
} from './device-presence';
import { setDeviceOnline } from './users-repo';

const quiet = { warn: () => undefined };
/** The timers of an instance the test beats and sweeps by hand (never reached). */
const MANUAL_MS = 24 * 3_600_000;

/** A telephony's presence side as `TwilioTelephony` has it, recording what it emits. */
class RecordedTelephony implements DeviceReports {
  readonly #online = new Set<string>();
  /** `device.online`/`device.offline` events, as `online:<identity>`. */
  readonly events: string[] = [];

  deviceOnline(identity: string, online: boolean): void {
    if (online === this.#online.has(identity)) return;
    this.knowOnline(identity, online);
    this.events.push(`${online ? 'online' : 'offline'}:${identity}`);
  }

  knowOnline(identity: string, online: boolean): void {
    if (online) this.#online.add(identity);
    else this.#online.delete(identity);
  }

  isOnline(identity: string): boolean {
    return this.#online.has(identity);
  }
}

/** Instance buses joined in process (PGlite: one process holds the database). */
class BusHub {
  readonly #buses = new Set<HubBus>();
  open(): HubBus {
    const bus = new HubBus(this);
    this.#buses.add(bus);
    return bus;
  }
  send(from: HubBus, topic: string, payload: unknown): void {
    for (const bus of this.#buses) if (bus !== from) bus.deliver(topic, payload);
  }
  leave(bus: HubBus): void {
    this.#buses.delete(bus);
  }
}

class HubBus implements InstanceBus {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly maxPayloadBytes = Number.POSITIVE_INFINITY;
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();
  constructor(private readonly hub: BusHub) {}
  async publish(topic: string, payload: unknown): Promise<void> {
    const copy = JSON.parse(JSON.stringify(payload)) as unknown;
    // Delivered later, as a real bus would.
    setImmediate(() => this.hub.send(this, topic, copy));
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
  async close(): Promise<void> {
    this.hub.leave(this);
  }
}

/** One instance: its presence, what its telephony was told, its clock and bus. */
interface Instance {
  presence: DevicePresence;
  telephony: RecordedTelephony;
  clock: ManualClock;
  bus: InstanceBus;
  db: Db;
}

/** One database as the instances see it, and how to open an instance's bus on it. */
interface Shared {
  dbs: Db[];
  openBus(): Promise<InstanceBus>;
  close(): Promise<void>;
}

/** A scratch database opened `pools` times (PostgreSQL) or the one PGlite shared. */
async function openShared(pools: number): Promise<Shared> {
  const shared = await openSharedTestDatabase(pools);
  const hub = new BusHub();
  const target = shared.url;
  return {
    dbs: shared.databases.map((d) => d.db),
    openBus: async () => (target ? PgInstanceBus.open(target, quiet) : hub.open()),
    close: () => shared.close(),
  };
}

describe('device presence across instances', () => {
  let shared: Shared;
  let db: Db;
  let accountId: number;
  const running: Instance[] = [];

  beforeAll(async () => {
    shared = await openShared(3);
    db = shared.dbs[0]!;
    const [account] = await db
      .insert(accounts)
      .values({ name: 'Presence' })
      .returning({ id: accounts.id });
    accountId = account!.id;
  });
  afterAll(() => shared.close());

  afterEach(async () => {
    for (const instance of running.splice(0)) {
      await instance.presence.stop();
      await instance.bus.close();
    }
  });

  /** Starts an instance on pool `pool` (0…2) at the clock's `at`. */
  const startInstance = async (
    pool = 0,
    options: {
      alone?: boolean;
      source?: 'instance' | 'pusher';
      /** The heartbeat and the sweeper run on their timers (else only when the test calls them). */
      timers?: boolean;
    } = {},
  ): Promise<Instance> => {
    const bus = await shared.openBus();
    const clock = new ManualClock();
    const telephony = new RecordedTelephony();
    const instanceDb = shared.dbs[pool]!;
    const presence = new DevicePresence({
      db: instanceDb,
      bus,
      reports: telephony,
      log: quiet,
      source: options.source ?? 'instance',
      alone: options.alone ?? false,
      clock,
      // Far beyond any test's time: the test beats and sweeps by hand.
      ...(options.timers ? {} : { heartbeatMs: MANUAL_MS, sweepMs: MANUAL_MS }),
    });
    await presence.start();
    const instance = { presence, telephony, clock, bus, db: instanceDb };
    running.push(instance);
    return instance;
  };

  /** An instance killed: no stop, no heartbeat, no bus any more. */
  const kill = async (instance: Instance) => {
    running.splice(running.indexOf(instance), 1);
    await instance.presence.idle();
    await instance.bus.close();
  };

  let userCounter = 0;
  const newUser = async (): Promise<{ id: number; identity: string }> => {
    const [row] = await db
      .insert(users)
      .values({
        accountId,
        email: `presence-${++userCounter}-${randomBytes(3).toString('hex')}@example.com`,
        passwordHash: 'x',
        fullName: `Agent ${userCounter}`,
      })
      .returning({ id: users.id });
    return { id: row!.id, identity: String(row!.id) };
  };

  const onlineInDb = async (userId: number) => {
    const [row] = await db
      .select({ online: users.isOnlineApp })
      .from(users)
      .where(eq(users.id, userId));
    return row!.online;
  };

  const holdersOf = async (userId: number) =>
    (
      await db
        .select({ holder: devicePresence.instanceId })
        .from(devicePresence)
        .where(eq(devicePresence.userId, userId))
    )
      .map((row) => row.holder)
      .sort();

  /** Waits until `instance`'s telephony says `online` of the user (news over the bus). */
  const waitKnown = (instance: Instance, identity: string, online: boolean, what: string) =>
    waitUntil(() => (instance.telephony.isOnline(identity) === online ? true : undefined), what);

  const eventsOf = (identity: string, ...instances: Instance[]) =>
    instances.flatMap((i) => i.telephony.events.filter((e) => e.endsWith(`:${identity}`)));

  it('online once while any instance holds the user, offline once when the last lets go; the others learn it without an event', async () => {
    const a = await startInstance(0);
    const b = await startInstance(1);
    const user = await newUser();

    a.presence.present(user.id, true);
    await a.presence.idle();
    expect(a.telephony.events).toEqual([`online:${user.identity}`]);
    expect(await onlineInDb(user.id)).toBe(true);
    await waitKnown(b, user.identity, true, 'B to learn that A holds the user');
    expect(b.telephony.events).toEqual([]);

    b.presence.present(user.id, true);
    await b.presence.idle();
    expect(await holdersOf(user.id)).toEqual([a.presence.holder, b.presence.holder].sort());

    a.presence.present(user.id, false);
    await a.presence.idle();
    expect(await holdersOf(user.id)).toEqual([b.presence.holder]);
    expect(await onlineInDb(user.id)).toBe(true);
    expect(a.telephony.isOnline(user.identity)).toBe(true);

    b.presence.present(user.id, false);
    await b.presence.idle();
    expect(await onlineInDb(user.id)).toBe(false);
    expect(await holdersOf(user.id)).toEqual([]);
    expect(b.telephony.events).toEqual([`offline:${user.identity}`]);
    await waitKnown(a, user.identity, false, 'A to learn that the user is offline');
    // One event each way, over both instances.
    expect(eventsOf(user.identity, a, b)).toEqual([
      `online:${user.identity}`,
      `offline:${user.identity}`,
    ]);
  });

  it('a killed instance’s users are reported offline once, by one of two racing sweepers, after its heartbeat is stale', async () => {
    const a = await startInstance(0);
    const b = await startInstance(1);
    const c = await startInstance(2);
    const onlyOnA = await newUser();
    const onAAndB = await newUser();
    a.presence.present(onlyOnA.id, true);
    a.presence.present(onAAndB.id, true);
    await a.presence.idle();
    b.presence.present(onAAndB.id, true);
    await b.presence.idle();
    await waitKnown(c, onlyOnA.identity, true, 'C to learn of A’s user');
    await kill(a);

    // Not yet stale: nothing is swept.
    for (const live of [b, c]) live.clock.advance(DEVICE_STALE_MS - DEVICE_SWEEP_MS);
    await Promise.all([b.presence.heartbeat(), c.presence.heartbeat()]);
    await Promise.all([b.presence.sweep(), c.presence.sweep()]);
    expect(await onlineInDb(onlyOnA.id)).toBe(true);
    expect(eventsOf(onlyOnA.identity, b, c)).toEqual([]);

    // Stale: B and C sweep at once.
    for (const live of [b, c]) live.clock.advance(DEVICE_SWEEP_MS + 1);
    await Promise.all([b.presence.heartbeat(), c.presence.heartbeat()]);
    await Promise.all([b.presence.sweep(), c.presence.sweep()]);
    await Promise.all([b.presence.idle(), c.presence.idle()]);

    expect(eventsOf(onlyOnA.identity, b, c)).toEqual([`offline:${onlyOnA.identity}`]);
    expect(await onlineInDb(onlyOnA.id)).toBe(false);
    expect(await holdersOf(onlyOnA.id)).toEqual([]);
    await waitKnown(b, onlyOnA.identity, false, 'B to know A’s user offline');
    await waitKnown(c, onlyOnA.identity, false, 'C to know A’s user offline');
    // B still holds the other: online, nothing reported.
    expect(await onlineInDb(onAAndB.id)).toBe(true);
    expect(await holdersOf(onAAndB.id)).toEqual([b.presence.holder]);
    expect(eventsOf(onAAndB.identity, b, c)).toEqual([]);
    expect(c.telephony.isOnline(onAAndB.identity)).toBe(true);

    // Another sweep reports nothing more.
    await Promise.all([b.presence.sweep(), c.presence.sweep()]);
    await Promise.all([b.presence.idle(), c.presence.idle()]);
    expect(eventsOf(onlyOnA.identity, b, c)).toEqual([`offline:${onlyOnA.identity}`]);
  });

  it('the heartbeat keeps rows fresh; the timers beat and sweep on the injected clock', async () => {
    const a = await startInstance(0, { timers: true });
    const b = await startInstance(1, { timers: true });
    const user = await newUser();
    a.presence.present(user.id, true);
    await a.presence.idle();
    // Long past the stale age, A beating all along (its timer) and B sweeping (its timer).
    for (let ms = 0; ms < 3 * DEVICE_STALE_MS; ms += DEVICE_HEARTBEAT_MS) {
      a.clock.advance(DEVICE_HEARTBEAT_MS);
      await a.presence.idle();
      b.clock.advance(DEVICE_HEARTBEAT_MS);
      await b.presence.idle();
    }
    expect(await holdersOf(user.id)).toEqual([a.presence.holder]);
    expect(await onlineInDb(user.id)).toBe(true);
    expect(eventsOf(user.identity, a, b)).toEqual([`online:${user.identity}`]);
  });

  it('connecting on one instance while disconnecting on another never leaves the user wrong', async () => {
    const a = await startInstance(0);
    const b = await startInstance(1);
    /** Online events less offline events of the user, over both instances: 1 online, 0 not. */
    const net = (identity: string) =>
      eventsOf(identity, a, b).reduce((n, e) => n + (e.startsWith('online:') ? 1 : -1), 0);
    for (let round = 0; round < 10; round++) {
      const user = await newUser();
      // Held by B; then A gets the user's first socket while B loses its last.
      b.presence.present(user.id, true);
      await b.presence.idle();
      a.presence.present(user.id, true);
      b.presence.present(user.id, false);
      await Promise.all([a.presence.idle(), b.presence.idle()]);
      expect(await holdersOf(user.id)).toEqual([a.presence.holder]);
      expect(await onlineInDb(user.id)).toBe(true);
      expect(net(user.identity)).toBe(1);
      // B's events: its online, and its offline if its release came first (then A's online).
      expect([
        [`online:${user.identity}`],
        [`online:${user.identity}`, `offline:${user.identity}`],
      ]).toContainEqual(eventsOf(user.identity, b));
      await waitKnown(b, user.identity, true, 'B to know the user online');
      expect(a.telephony.isOnline(user.identity)).toBe(true);

      // And back: A lets go while B takes the user again.
      b.presence.present(user.id, true);
      a.presence.present(user.id, false);
      await Promise.all([a.presence.idle(), b.presence.idle()]);
      expect(await holdersOf(user.id)).toEqual([b.presence.holder]);
      expect(await onlineInDb(user.id)).toBe(true);
      expect(net(user.identity)).toBe(1);
      await waitKnown(a, user.identity, true, 'A to know the user online');

      // Both let go at once: offline, reported once.
      a.presence.present(user.id, true);
      await a.presence.idle();
      a.presence.present(user.id, false);
      b.presence.present(user.id, false);
      await Promise.all([a.presence.idle(), b.presence.idle()]);
      expect(await onlineInDb(user.id)).toBe(false);
      expect(await holdersOf(user.id)).toEqual([]);
      expect(net(user.identity)).toBe(0);
      await waitKnown(a, user.identity, false, 'A to know the user offline');
      await waitKnown(b, user.identity, false, 'B to know the user offline');
    }
  });

  it('a second instance’s start leaves the first one’s agents online and knows them', async () => {
    const a = await startInstance(0);
    const user = await newUser();
    a.presence.present(user.id, true);
    await a.presence.idle();

    const b = await startInstance(1);
    expect(await onlineInDb(user.id)).toBe(true);
    expect(await holdersOf(user.id)).toEqual([a.presence.holder]);
    expect(b.telephony.isOnline(user.identity)).toBe(true);
    expect(b.telephony.events).toEqual([]);
  });

  it('the only instance on the database forgets at start whom an earlier run held: nobody online', async () => {
    const earlier = await startInstance(0);
    const user = await newUser();
    earlier.presence.present(user.id, true);
    await earlier.presence.idle();
    await kill(earlier);

    // Restarted at once (the earlier run's heartbeat still fresh), alone on the database.
    const restarted = await startInstance(0, { alone: true });
    expect(await onlineInDb(user.id)).toBe(false);
    expect(await holdersOf(user.id)).toEqual([]);
    expect(restarted.telephony.isOnline(user.identity)).toBe(false);
  });

  it('an instance that stalled past the stale age and was swept takes its users back at its next beat', async () => {
    const a = await startInstance(0);
    const b = await startInstance(1);
    const user = await newUser();
    a.presence.present(user.id, true);
    await a.presence.idle();

    b.clock.advance(DEVICE_STALE_MS + 1);
    await b.presence.sweep();
    await b.presence.idle();
    expect(b.telephony.events).toEqual([`offline:${user.identity}`]);
    expect(await onlineInDb(user.id)).toBe(false);

    // A wakes up: its beat finds its row gone and writes it again; the user is online again.
    a.clock.advance(DEVICE_STALE_MS + 1);
    await a.presence.heartbeat();
    await a.presence.idle();
    expect(await holdersOf(user.id)).toEqual([a.presence.holder]);
    expect(await onlineInDb(user.id)).toBe(true);
    expect(a.telephony.events).toEqual([`online:${user.identity}`, `online:${user.identity}`]);
    await waitKnown(b, user.identity, true, 'B to know the user online again');
  });

  it('a late offline from the flows does not undo an instance’s online, and an online left without a row is swept', async () => {
    const a = await startInstance(0);
    const user = await newUser();
    a.presence.present(user.id, true);
    await a.presence.idle();
    // The flows of an instance that saw an older offline write it late: refused.
    expect(await setDeviceOnline(db, user.id, false, new Date())).toBe(false);
    expect(await onlineInDb(user.id)).toBe(true);

    // Online in the database with no row (a late online of the flows): the sweep settles it.
    const stray = await newUser();
    await setDeviceOnline(db, stray.id, true, new Date());
    await a.presence.sweep();
    await a.presence.idle();
    expect(await onlineInDb(stray.id)).toBe(false);
    expect(a.telephony.events).toContain(`offline:${stray.identity}`);
  });

  it('hosted Pusher’s presence is the app’s: held by one holder whatever instance hears it, never swept, kept at an only instance’s start', async () => {
    const a = await startInstance(0, { source: 'pusher' });
    const b = await startInstance(1, { source: 'pusher' });
    const user = await newUser();
    // member_added reaches A, member_removed reaches B.
    a.presence.present(user.id, true);
    await a.presence.idle();
    expect(await holdersOf(user.id)).toEqual([PUSHER_PRESENCE_HOLDER]);
    expect(a.telephony.events).toEqual([`online:${user.identity}`]);

    // Nobody beats for Pusher: long after, a sweep leaves the row, and a restart alone keeps it.
    b.clock.advance(10 * DEVICE_STALE_MS);
    await b.presence.sweep();
    await b.presence.idle();
    expect(await holdersOf(user.id)).toEqual([PUSHER_PRESENCE_HOLDER]);
    const restarted = await startInstance(2, { source: 'pusher', alone: true });
    expect(await onlineInDb(user.id)).toBe(true);
    expect(restarted.telephony.isOnline(user.identity)).toBe(true);

    b.presence.present(user.id, false);
    await b.presence.idle();
    expect(await holdersOf(user.id)).toEqual([]);
    expect(await onlineInDb(user.id)).toBe(false);
    expect(b.telephony.events).toEqual([`offline:${user.identity}`]);
    await waitKnown(a, user.identity, false, 'A to learn of the removal');
  });

  it('a deactivated user is not online whatever they hold; a stop lets go of the instance’s users', async () => {
    const a = await startInstance(0);
    const user = await newUser();
    await db.update(users).set({ active: false }).where(eq(users.id, user.id));
    a.presence.present(user.id, true);
    await a.presence.idle();
    expect(await onlineInDb(user.id)).toBe(false);
    expect(a.telephony.events).toEqual([]);
    expect(a.telephony.isOnline(user.identity)).toBe(false);
    // Nor for an instance that starts and reads who is online.
    const b = await startInstance(1);
    expect(b.telephony.isOnline(user.identity)).toBe(false);

    const other = await newUser();
    a.presence.present(other.id, true);
    await a.presence.idle();
    await a.presence.stop();
    expect(await onlineInDb(other.id)).toBe(false);
    expect(
      await db
        .select()
        .from(devicePresence)
        .where(eq(devicePresence.instanceId, a.presence.holder)),
    ).toEqual([]);
    expect(a.telephony.events).toEqual([`online:${other.identity}`, `offline:${other.identity}`]);
    // After the stop, sockets closing change nothing.
    a.presence.present(other.id, true);
    await a.presence.idle();
    expect(await onlineInDb(other.id)).toBe(false);
  });
});
