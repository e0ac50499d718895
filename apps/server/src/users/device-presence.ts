/**
 * Device presence across instances (issue 38, `TELEPHONY_PROVIDER=twilio`). Twilio does not tell
 * which browsers are registered: an agent whose console is open (on their presence channel) is
 * online. Each instance of the embedded realtime endpoint sees only its own sockets, so each
 * records in the database which users it holds (`device_presence`: one row per user and
 * instance, with the instance's heartbeat), and a user is online while they are active and any
 * of their rows is fresh.
 *
 * - A user's first socket on this instance: their row is written; their last socket gone: it is
 *   deleted. Each time the answer is worked out again under the lock of the user's row
 *   (`settleDevice`), so simultaneous changes on two instances take turns, and only the one
 *   that changes `users.is_online_app` (the first instance to hold the user, the last row gone)
 *   reports it: `deviceOnline` on this instance, whose flows react (status published, waiting
 *   leads offered), and a message on the instance bus, on which every other instance reads the
 *   answer back and only updates what its telephony's `isOnline` says (`knowOnline`).
 * - Every `heartbeatMs` the instance's rows beat; a row of this instance that is gone (swept
 *   while the instance stalled) or whose user the database says offline is settled again.
 * - Every `sweepMs` every instance deletes the rows of instances that stopped beating (killed)
 *   and settles their users: the sweeper whose delete took a row reports its user offline
 *   (a row is deleted once; the settle changes the answer once). Users the database says online
 *   without a fresh row (an instance killed between the two steps, a late write of the flows)
 *   are settled again, and this instance's `isOnline` answers are read again from the table
 *   (messages of the bus are lost while its connection is down).
 * - Hosted Pusher (`REALTIME_PROVIDER=pusher` or self-hosted): its presence webhooks are the
 *   app's, not an instance's, whichever instance they reach: their rows are held by
 *   `PUSHER_PRESENCE_HOLDER`, never beat and are never swept.
 * - At start the only instance on the database (PGlite) forgets every other holder's rows
 *   first: nobody is online whom an earlier run held. With several instances a start deletes
 *   nothing of the others: their agents stay online, and a killed instance's are swept once its
 *   rows are stale.
 *
 * The embedded engine does not use this: it reports its own registrations (PStream).
 */
import type { Db } from '../db/database';
import type { InstanceBus } from '../events/instance-bus';
import { identityOf } from '../auth/access-token';
import {
  PUSHER_PRESENCE_HOLDER,
  beatDevices,
  forgetOtherHolders,
  isDeviceOnline,
  onlineWithoutFreshDevice,
  settleDevice,
  sweepStaleDevices,
  usersWithFreshDevice,
  type DeviceChange,
  type DeviceSettled,
} from './device-presence-repo';
import { type Clock, systemClock } from '../lib/clock';

export { PUSHER_PRESENCE_HOLDER };

/**
 * How often an instance's rows beat (ms). A few seconds: one `UPDATE` of the instance's rows
 * each time, whatever the number of agents.
 */
export const DEVICE_HEARTBEAT_MS = 5_000;
/**
 * A row whose instance has not beaten for this long is a dead instance's (ms): four beats
 * missed, so a pause of the event loop, a slow database or some clock difference between the
 * instances (each stamps with its own clock) does not take its agents offline. It is also how
 * long a killed instance's agents stay online at most (plus a sweep).
 */
export const DEVICE_STALE_MS = 20_000;
/** How often every instance sweeps dead instances' rows (ms). */
export const DEVICE_SWEEP_MS = 5_000;
/** The instance bus topic on which an instance tells the others that a user's answer changed. */
export const DEVICE_PRESENCE_TOPIC = 'device-presence';

/** What presence tells the telephony provider (`TwilioTelephony`'s methods). */
export interface DeviceReports {
  /** This instance saw the user's answer change: emits `device.online`/`device.offline`. */
  deviceOnline(identity: string, online: boolean): void;
  /** What `isOnline` answers, without an event (another instance's news). */
  knowOnline(identity: string, online: boolean): void;
}

/** What device presence needs. */
export interface DevicePresenceOptions {
  db: Db;
  /** The other instances; its `instanceId` holds this instance's rows. */
  bus: InstanceBus;
  reports: DeviceReports;
  log: { warn(details: object, message: string): void };
  /**
   * Who tells presence: this instance's embedded realtime endpoint (its own sockets), or hosted
   * Pusher's presence webhooks (the app's, held by `PUSHER_PRESENCE_HOLDER`).
   */
  source: 'instance' | 'pusher';
  /**
   * This process is the only instance on the database (PGlite, or PostgreSQL without an
   * instance bus): rows an earlier run left are forgotten at start.
   */
  alone: boolean;
  clock?: Clock;
  heartbeatMs?: number;
  staleMs?: number;
  sweepMs?: number;
}

/** A message of `DEVICE_PRESENCE_TOPIC`. */
interface DeviceNews {
  userId: number;
  online: boolean;
}

/** Where the service is in its life: `new → running → stopped`. */
type Phase = 'new' | 'running' | 'stopped';

/** See the module comment. */
export class DevicePresence {
  readonly #options: DevicePresenceOptions;
  readonly #clock: Clock;
  /** Whose rows this instance writes. */
  readonly #holder: string;
  /** Users with a socket on this instance (source `instance`). */
  readonly #held = new Set<number>();
  /** Each user's settles, one after another on this instance. */
  readonly #chains = new Map<number, Promise<void>>();
  /** What this instance last told its telephony of each user, numbered in telling order. */
  readonly #told = new Map<number, { online: boolean; seq: number }>();
  #lastSeq = 0;
  #phase: Phase = 'new';
  #heartbeatTimer: unknown = null;
  #sweepTimer: unknown = null;
  #beating: Promise<void> | null = null;
  #sweeping: Promise<void> | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(options: DevicePresenceOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#holder = options.source === 'pusher' ? PUSHER_PRESENCE_HOLDER : options.bus.instanceId;
  }

  /** Whose rows this instance writes (its instance id, or Pusher's holder). */
  get holder(): string {
    return this.#holder;
  }

  /**
   * Starts: the only instance forgets what an earlier run held; dead instances' rows are swept;
   * what `isOnline` answers is read from the table; then the heartbeat, the sweeper and the bus.
   * Before the flows start (they route to the agents it leaves online).
   */
  async start(): Promise<void> {
    if (this.#phase !== 'new') return;
    this.#phase = 'running';
    this.#unsubscribe = this.#options.bus.subscribe(DEVICE_PRESENCE_TOPIC, (payload) =>
      this.#heard(payload),
    );
    if (this.#options.alone) {
      await forgetOtherHolders(this.#options.db, [this.#holder, PUSHER_PRESENCE_HOLDER]);
    }
    await this.sweep();
    this.#armHeartbeat();
    this.#armSweep();
  }

  /**
   * A user's presence channel on this instance got its first socket (`present`) or lost its
   * last; with hosted Pusher, a member arrived or left. Settled in the background, in order.
   */
  present(userId: number, present: boolean): void {
    if (this.#phase === 'stopped') return;
    if (this.#options.source === 'pusher') {
      const change: DeviceChange = present
        ? { kind: 'hold', holder: this.#holder }
        : { kind: 'release', holder: this.#holder };
      void this.#enqueue(userId, () => this.#settle(userId, change));
      return;
    }
    if (present) this.#held.add(userId);
    else this.#held.delete(userId);
    void this.#enqueue(userId, () => this.#settleHeld(userId));
  }

  /**
   * Stops the timers and the bus; this instance's connections are let go (its rows deleted, the
   * users it was the last to hold reported offline) so the others need not wait for the
   * sweeper. Pusher's rows stay: they are the app's.
   */
  async stop(): Promise<void> {
    if (this.#phase === 'stopped') return;
    this.#phase = 'stopped';
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (this.#heartbeatTimer !== null) this.#clock.clearTimeout(this.#heartbeatTimer);
    if (this.#sweepTimer !== null) this.#clock.clearTimeout(this.#sweepTimer);
    this.#heartbeatTimer = this.#sweepTimer = null;
    await this.idle();
    const held = [...this.#held];
    this.#held.clear();
    await Promise.all(
      held.map((userId) =>
        this.#enqueue(userId, () =>
          this.#settle(userId, { kind: 'release', holder: this.#holder }),
        ),
      ),
    );
  }

  /** Resolves once every settle, heartbeat and sweep under way is over (tests, stop). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.#chains.values(), this.#beating, this.#sweeping].filter(
        (p): p is Promise<void> => p !== null,
      );
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /**
   * This instance's rows beat now; a held user whose row is gone or whom the database says
   * offline, and a row of a user no longer held, are settled again. A beat under way is joined.
   */
  heartbeat(): Promise<void> {
    this.#beating ??= this.#heartbeat().finally(() => {
      this.#beating = null;
    });
    return this.#beating;
  }

  /**
   * Deletes dead instances' rows and settles their users; settles users the database says
   * online without a fresh row; reads `isOnline` answers again. A sweep under way is joined.
   */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = null;
    });
    return this.#sweeping;
  }

  async #heartbeat(): Promise<void> {
    if (this.#options.source !== 'instance') return;
    const beaten = await beatDevices(this.#options.db, this.#holder, this.#clock.now());
    const rows = new Map(beaten.map((row) => [row.userId, row.online]));
    const due = new Set<number>();
    for (const userId of this.#held) if (rows.get(userId) !== true) due.add(userId);
    for (const userId of rows.keys()) if (!this.#held.has(userId)) due.add(userId);
    await Promise.all(
      [...due].map((userId) => this.#enqueue(userId, () => this.#settleHeld(userId))),
    );
  }

  async #sweep(): Promise<void> {
    const { db } = this.#options;
    const freshAfter = this.#freshAfter();
    const swept = await sweepStaleDevices(db, [this.#holder, PUSHER_PRESENCE_HOLDER], freshAfter);
    const lingering = await onlineWithoutFreshDevice(db, freshAfter);
    await Promise.all(
      [...new Set([...swept, ...lingering])].map((userId) =>
        this.#enqueue(userId, () => this.#settle(userId, { kind: 'recheck' })),
      ),
    );
    // What `isOnline` says, read again; a telling since the read began is newer and stays.
    const since = this.#lastSeq;
    const online = new Set(await usersWithFreshDevice(db, this.#freshAfter()));
    for (const [userId, told] of this.#told) {
      if (told.seq <= since && told.online !== online.has(userId)) {
        this.#know(userId, online.has(userId));
      }
    }
    for (const userId of online) if (!this.#told.has(userId)) this.#know(userId, true);
  }

  /** Settles a user of this instance's sockets: held now, their row is there; else it goes. */
  #settleHeld(userId: number): Promise<void> {
    return this.#settle(
      userId,
      this.#held.has(userId)
        ? { kind: 'hold', holder: this.#holder }
        : { kind: 'release', holder: this.#holder },
    );
  }

  async #settle(userId: number, change: DeviceChange): Promise<void> {
    const settled = await settleDevice(
      this.#options.db,
      userId,
      change,
      this.#clock.now(),
      this.#freshAfter(),
    );
    if (settled) this.#report(userId, settled);
  }

  /** Tells this instance's telephony, and the other instances when the answer changed. */
  #report(userId: number, settled: DeviceSettled): void {
    if (!settled.changed) {
      this.#know(userId, settled.online);
      return;
    }
    const identity = identityOf(userId);
    // The change is this instance's to report: its telephony emits whatever `isOnline` said
    // before (an older message of another instance may already have told it so).
    this.#options.reports.knowOnline(identity, !settled.online);
    this.#options.reports.deviceOnline(identity, settled.online);
    this.#noteTold(userId, settled.online);
    const news: DeviceNews = { userId, online: settled.online };
    this.#options.bus.publish(DEVICE_PRESENCE_TOPIC, news).catch((error: unknown) => {
      this.#options.log.warn(
        { err: error, userId },
        'telling the other instances of a device failed (their sweep reads it again)',
      );
    });
  }

  /** Another instance's news: the answer is read back from the table (messages may cross). */
  #heard(payload: unknown): void {
    const news = parseNews(payload);
    if (!news || this.#phase !== 'running') return;
    void this.#enqueue(news.userId, async () => {
      let online = news.online;
      try {
        online = await isDeviceOnline(this.#options.db, news.userId, this.#freshAfter());
      } catch (error) {
        this.#options.log.warn({ err: error }, 'reading a device back failed: taken as told');
      }
      this.#know(news.userId, online);
    });
  }

  #know(userId: number, online: boolean): void {
    this.#options.reports.knowOnline(identityOf(userId), online);
    this.#noteTold(userId, online);
  }

  #noteTold(userId: number, online: boolean): void {
    this.#told.set(userId, { online, seq: ++this.#lastSeq });
  }

  #freshAfter(): Date {
    return new Date(this.#clock.now().getTime() - (this.#options.staleMs ?? DEVICE_STALE_MS));
  }

  /** Runs `task` after the user's earlier ones on this instance; a failure is logged. */
  #enqueue(userId: number, task: () => Promise<void>): Promise<void> {
    const next = (this.#chains.get(userId) ?? Promise.resolve())
      .then(task)
      .catch((error: unknown) => {
        this.#options.log.warn(
          { err: error, userId },
          'settling a device failed (the heartbeat or the sweeper tries again)',
        );
      })
      .finally(() => {
        if (this.#chains.get(userId) === next) this.#chains.delete(userId);
      });
    this.#chains.set(userId, next);
    return next;
  }

  #armHeartbeat(): void {
    this.#heartbeatTimer = this.#clock.setTimeout(() => {
      if (this.#phase !== 'running') return;
      this.heartbeat()
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error }, 'the device heartbeat failed'),
        )
        .finally(() => {
          if (this.#phase === 'running') this.#armHeartbeat();
        });
    }, this.#options.heartbeatMs ?? DEVICE_HEARTBEAT_MS);
  }

  #armSweep(): void {
    this.#sweepTimer = this.#clock.setTimeout(() => {
      if (this.#phase !== 'running') return;
      this.sweep()
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error }, 'sweeping dead instances’ devices failed'),
        )
        .finally(() => {
          if (this.#phase === 'running') this.#armSweep();
        });
    }, this.#options.sweepMs ?? DEVICE_SWEEP_MS);
  }
}

/** A bus message, or null for anything else. */
function parseNews(payload: unknown): DeviceNews | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { userId, online } = payload as Record<string, unknown>;
  if (typeof userId !== 'number' || !Number.isSafeInteger(userId)) return null;
  if (typeof online !== 'boolean') return null;
  return { userId, online };
}
