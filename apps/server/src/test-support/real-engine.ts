/**
 * The whole product in this process on the real voice engine, for server flow tests: the
 * composition root (`startLeadline`) with the embedded `VoiceEngine` over `WorkerMediaEngine`
 * (its media worker threads, real werift legs, the sandbox phone network and its recorders),
 * HTTP and signalling on a loopback port, the demo seed and the demo API key.
 *
 * Headless agents (`AgentClient`) stand in for browsers. Everything the engine reports is kept
 * in `events` so tests wait for facts (an answer, a recording) rather than for time.
 *
 * The database is an in-memory PGlite, or, when `DATABASE_URL` is set (CI runs the server
 * tests again on PostgreSQL), a fresh database on that server, dropped on close
 * (`openTestDatabase`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { LeadIntakeResponse } from '@leadline/contracts';
import type { TelephonyEvent } from '@leadline/voice';
import type { DestinationStream } from 'pino';
import { FINAL_STATUSES, type CallRow } from '../calls/calls-repo';
import { loadConfig, type Config } from '../config';
import type { Db } from '../db/database';
import { calls } from '../db/schema';
import { SIGNAL_PATH, startLeadline, type Leadline } from '../leadline';
import { requestJson, type HttpResult } from './http-json';
import { openTestDatabase } from './test-database';
import { REAL_WAIT_MS, waitUntil, WaitTimeoutError } from './wait-until';

/** Options of {@link startRealLeadline}. */
export interface RealLeadlineOptions {
  /** How long sandbox numbers ring before they answer (`VOICE_SANDBOX_ANSWER_MS`); default 200. */
  sandboxAnswerMs?: number;
  /**
   * How long an agent is rung before the ring counts as missed; default 30,000 (the product's
   * default). Unlike `AGENT_RING_TIMEOUT_MS` it may be under a second.
   */
  ringTimeoutMs?: number;
  /** Further settings, as environment variables (e.g. `TOKEN_TTL_SECONDS`, `VOICE_SDK`). */
  env?: Record<string, string>;
  /** Where the product's log lines go (with `env.LOG_LEVEL`); default standard output. */
  logDestination?: DestinationStream;
}

/** A telephony event as the test saw it: the event and when it arrived (ms since the epoch). */
export type SeenEvent = TelephonyEvent & { at: number };

/** The events of one type. */
export type EventOf<T extends TelephonyEvent['type']> = Extract<TelephonyEvent, { type: T }>;

/**
 * Which event of a type a test waits for: fields it must have (compared with `===`, e.g.
 * `{ callSid }`), or a predicate.
 */
export type EventMatch<T extends TelephonyEvent['type']> =
  Partial<Omit<EventOf<T>, 'type'>> | ((event: EventOf<T>) => boolean);

/**
 * The started product and what a test needs around it. The product itself is `leadline`; its
 * most used parts are repeated here.
 */
export interface RealLeadline {
  /** The running product, as `startLeadline` returned it. */
  leadline: Leadline;
  /** Its base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** The embedded voice engine. */
  engine: NonNullable<Leadline['engine']>;
  /** The call flows. */
  flows: Leadline['flows'];
  /** The configuration it started with. */
  config: Config;
  /** The temporary data folder (sandbox recordings, call recordings, PGlite, secrets). */
  dataDir: string;
  /** The signalling socket's URL, `ws://127.0.0.1:<port>/signal`. */
  signalUrl: string;
  /** The database (shorthand for `database.db`). */
  db: Db;
  /**
   * Every telephony event the engine reported since the start (`engine.subscribe`), in order;
   * not the product's own domain events.
   */
  events: SeenEvent[];
  /**
   * Resolves with the first event of `type` matching `match`, from index `since` of `events` on
   * (default: all of them, so an event that already happened counts); rejects after `timeoutMs`.
   */
  waitForEvent<T extends TelephonyEvent['type']>(
    type: T,
    match?: EventMatch<T>,
    timeoutMs?: number,
    since?: number,
  ): Promise<EventOf<T> & { at: number }>;
  /** Posts a lead to `POST /api/v1/leads` with the demo API key, as a lead source does. */
  postLead(body: Record<string, unknown>): Promise<HttpResult<LeadIntakeResponse>>;
  /** The call's row now. */
  callRow(callId: number): Promise<CallRow | undefined>;
  /**
   * Waits until the call's row satisfies `until` (default: a final status such as `completed` or
   * `missed`) and resolves with it. The flows persist the engine's events asynchronously.
   */
  waitForCall(
    callId: number,
    until?: (row: CallRow) => boolean,
    timeoutMs?: number,
  ): Promise<CallRow>;
  /** Runs `cleanup` first when the product closes (agents left open by a failing test). */
  addCleanup(cleanup: () => Promise<void> | void): void;
  /** Runs the cleanups, closes the product, drops the scratch database, removes the data folder. */
  close(): Promise<void>;
}

/** The default ring time of the sandbox's numbers in these tests. */
const SANDBOX_ANSWER_MS = 200;

const matches = <T extends TelephonyEvent['type']>(
  event: SeenEvent,
  type: T,
  match: EventMatch<T> | undefined,
): event is EventOf<T> & { at: number } => {
  if (event.type !== type) return false;
  if (match === undefined) return true;
  // The type was checked above; TypeScript cannot narrow a union by a generic `T`.
  if (typeof match === 'function') return match(event as unknown as EventOf<T>);
  const fields = event as Record<string, unknown>;
  return Object.entries(match).every(([key, value]) => fields[key] === value);
};

/**
 * Starts the product in this process on 127.0.0.1 (port 0) with a fresh temporary data folder,
 * embedded mode, ICE on 127.0.0.1 only, a short sandbox answer delay, and logs silent unless
 * `TEST_LOG_LEVEL` is set.
 */
export async function startRealLeadline(options: RealLeadlineOptions = {}): Promise<RealLeadline> {
  const dataDir = await mkdtemp(join(tmpdir(), 'leadline-real-'));
  let leadline: Leadline;
  let config: Config;
  const database = await openTestDatabase();
  try {
    const loaded = loadConfig({
      LEADLINE_MODE: 'embedded',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      VOICE_ICE_ADDRESSES: '127.0.0.1',
      VOICE_SANDBOX_ANSWER_MS: String(options.sandboxAnswerMs ?? SANDBOX_ANSWER_MS),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // Flow tests need no console; a folder that does not exist serves none.
      WEB_DIST_DIR: join(dataDir, 'no-web'),
      ...options.env,
    });
    config = {
      ...loaded,
      agentRingTimeoutMs: options.ringTimeoutMs ?? loaded.agentRingTimeoutMs,
    };
    leadline = await startLeadline(config, {
      database,
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    });
  } catch (error) {
    await database.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  const events: SeenEvent[] = [];
  const wakers = new Set<() => void>();
  // Subscribed after the flows (started inside `startLeadline`): when a test sees an event,
  // the flows have already queued their handling of it.
  const engine = leadline.engine;
  if (!engine) throw new Error('startRealLeadline runs the embedded engine');
  const unsubscribe = engine.subscribe((event) => {
    events.push({ ...event, at: Date.now() });
    for (const wake of [...wakers]) wake();
  });
  const cleanups: Array<() => Promise<void> | void> = [];
  let closing: Promise<void> | undefined;

  const waitForEvent = async <T extends TelephonyEvent['type']>(
    type: T,
    match?: EventMatch<T>,
    timeoutMs = REAL_WAIT_MS,
    since = 0,
  ): Promise<EventOf<T> & { at: number }> => {
    let from = since;
    const find = (): (EventOf<T> & { at: number }) | undefined => {
      for (; from < events.length; from++) {
        const event = events[from]!;
        if (matches(event, type, match)) return event;
      }
      return undefined;
    };
    const found = find();
    if (found) return found;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        wakers.delete(wake);
        const seen = events.map((e) => e.type).join(', ');
        reject(new WaitTimeoutError(`no ${type} event within ${timeoutMs} ms; seen: ${seen}`));
      }, timeoutMs);
      const wake = (): void => {
        const event = find();
        if (!event) return;
        clearTimeout(timer);
        wakers.delete(wake);
        resolve(event);
      };
      wakers.add(wake);
    });
  };

  const callRow = async (callId: number): Promise<CallRow | undefined> => {
    const [row] = await leadline.database.db.select().from(calls).where(eq(calls.id, callId));
    return row;
  };

  const signalUrl = `${leadline.url.replace(/^http/, 'ws')}${SIGNAL_PATH}`;
  return {
    leadline,
    url: leadline.url,
    engine,
    flows: leadline.flows,
    config,
    dataDir,
    signalUrl,
    db: leadline.database.db,
    events,
    waitForEvent,
    postLead: (body) =>
      requestJson<LeadIntakeResponse>(
        'POST',
        `${leadline.url}/api/v1/leads`,
        { authorization: `Bearer ${config.leadApiKey ?? ''}` },
        body,
      ),
    callRow,
    async waitForCall(callId, until = (row) => FINAL_STATUSES.has(row.status), timeoutMs) {
      let last: CallRow | undefined;
      return waitUntil(
        async () => {
          last = await callRow(callId);
          return last && until(last) ? last : undefined;
        },
        `call ${callId} to reach the expected state`,
        timeoutMs,
        () => `last ${JSON.stringify({ status: last?.status, seconds: last?.seconds })}`,
      );
    },
    addCleanup(cleanup) {
      cleanups.push(cleanup);
    },
    close() {
      closing ??= (async () => {
        for (const cleanup of cleanups.splice(0).reverse()) {
          await Promise.resolve()
            .then(cleanup)
            .catch(() => undefined);
        }
        try {
          // Closes the database too (and drops a PostgreSQL scratch database).
          await leadline.close();
        } finally {
          unsubscribe();
          await rm(dataDir, { recursive: true, force: true });
        }
      })();
      return closing;
    },
  };
}
