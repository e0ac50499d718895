/**
 * Issue 38's acceptance on Twilio: three equal instances of the product (`npm start`'s
 * `main.ts`, each a child process, production mode, TELEPHONY_PROVIDER=twilio) on one
 * PostgreSQL database, behind what a load balancer does (each request, each Twilio callback and
 * each agent's realtime connection to one live instance; nothing to a dead one), with the
 * simulated Twilio cloud: callbacks of different calls side by side, each one posted to two
 * instances at the same moment. 200 leads are posted round-robin over the instances, and one
 * instance is SIGKILLed after the first hundred. The simulated people: an agent's browser rings
 * and answers (every tenth ring is declined), the lead is dialled, rings and answers, then one
 * of them hangs up; an agent who hears no lead for a while hangs up.
 *
 * Then: no agent was ever rung for two calls at once (in the database, watched all along, and
 * in the simulated Twilio's record of each agent's legs), no lead is lost (each call ends
 * completed, or missed with its reason; none is left waiting), every call whose lead answered
 * completed, no callback was refused, and nothing happened twice for a callback told twice (one
 * lead dial and at most one answering agent per call).
 *
 * Needs PostgreSQL (`DATABASE_URL`: the PostgreSQL pass of `npm test`, scripts/test.mjs). Set
 * `CLUSTER_DEBUG=<file>` to get, when it fails, the open calls (or the overlapping ones), their
 * rows, the simulated Twilio's record, the callbacks in flight and the instances' logs there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { LeadIntakeResponse } from '@leadline/contracts';
import { FINAL_STATUSES } from '../calls/call-status';
import type { Database } from '../db/database';
import { accounts, callUsers, calls, profiles } from '../db/schema';
import { ChildLeadline } from '../test-support/child-leadline';
import { requestJson } from '../test-support/http-json';
import { HttpSession } from '../test-support/http-session';
import { OPERATOR_PASSWORD, seedOperatorAccount } from '../test-support/operator-account';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { openRealtimeClient, type RealtimeClient } from '../test-support/realtime-client';
import type { TwilioApiStandIn } from '../test-support/twilio-api-stand-in';
import { TwilioCloud, type CloudParticipant } from '../test-support/twilio-cloud';
import {
  startTwilioAccountStandIn,
  TWILIO_TEST_ENV,
  twilioProductionEnv,
} from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';

const INSTANCES = 3;
const LEADS = 200;
const AGENTS = 10;
/** The instance killed, after this many leads were posted. */
const KILLED = 2;
const KILL_AFTER = LEADS / 2;
/** Leads in flight at once (a lead source posting steadily). */
const POSTING_LANES = 4;
const LEAD_API_KEY = 'cluster-lead-source-key-0123456789abcdef';
const NUMBER = '+15550100999';
/** An agent who hears no lead this long after answering hangs up (a person would). */
const AGENT_PATIENCE_MS = 8_000;

let dataDir: string | undefined;
let database: PersistedDatabase | undefined;
let db: Database | undefined;
let standIn: TwilioApiStandIn | undefined;
let cloud: TwilioCloud | undefined;
const products: ChildLeadline[] = [];
const consoles: RealtimeClient[] = [];
const timers = new Set<NodeJS.Timeout>();
/** The database watch runs while this is set. */
let watching = false;

afterAll(async () => {
  watching = false;
  for (const timer of timers) clearTimeout(timer);
  for (const client of consoles) client.close();
  cloud?.close();
  await Promise.all(products.map((p) => p.dispose()));
  await standIn?.close();
  await db?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

/** Rows of a raw query (PostgreSQL's driver answers `{ rows }`). */
async function query<T>(statement: SQL): Promise<T[]> {
  const result: unknown = await db!.db.execute(statement);
  return (result as { rows: T[] }).rows;
}

/** Where a participant is now (read afresh after an await). */
const stateOf = (p: CloudParticipant): CloudParticipant['state'] => p.state;

/** The live instances, as a load balancer sees them. */
const live = () => products.filter((p) => p.running && !drained.has(p));
/** Instances the balancer no longer sends anything to (about to be killed). */
const drained = new Set<ChildLeadline>();
let turn = 0;
/** The next live instance, round-robin. */
function next(): ChildLeadline {
  const up = live();
  return up[turn++ % up.length]!;
}

describe.runIf(process.env.DATABASE_URL)('three Twilio instances, one killed midway', () => {
  it('200 leads: no agent rung twice at once, no lead lost, every answered call completes, nothing done twice', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'leadline-twilio-cluster-'));
    database = await createPersistedDatabase(dataDir);
    db = await database.open();
    const agents = Array.from({ length: AGENTS }, (_, i) => `agent${i + 1}@operator.example`);
    await seedOperatorAccount(db.db, { callerNumber: NUMBER, agents });
    // Agents take the next lead as soon as a call ends (no wrap-up), so leads queue and drain.
    await db.db.update(profiles).set({ wrapUpSeconds: 0 });
    // The 200 leads come within a minute or two: the account's calls a minute (and the operator's
    // ceiling, below) let them all in; the dial guard's limits have tests of their own.
    await db.db.update(accounts).set({ policy: { calls_per_minute_per_account: 100_000 } });

    standIn = await startTwilioAccountStandIn([NUMBER]);
    const env = {
      ...database.env,
      ...twilioProductionEnv(standIn.url, LEAD_API_KEY),
      AGENT_RING_TIMEOUT_MS: '4000',
      // Twilio calls back from many addresses; here every callback comes from 127.0.0.1.
      RATE_LIMIT_WEBHOOKS_PER_MINUTE: '100000',
      DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT: '100000',
    };
    for (let i = 0; i < INSTANCES; i++) {
      products.push(await ChildLeadline.start({ dataDir: join(dataDir, `instance-${i}`), env }));
    }
    cloud = new TwilioCloud(standIn, {
      authToken: TWILIO_TEST_ENV.TWILIO_AUTH_TOKEN,
      publicBaseUrl: TWILIO_TEST_ENV.PUBLIC_BASE_URL,
      productUrl: () => next().url,
      parallelCalls: true,
      duplicate: true,
    });

    // Each agent's console on an instance of its own (round-robin), online through it.
    const sessions: HttpSession[] = [];
    for (const [i, email] of agents.entries()) {
      const session = await HttpSession.login(
        products[i % INSTANCES]!.url,
        email,
        OPERATOR_PASSWORD,
      );
      sessions.push(session);
      consoles.push(await openRealtimeClient(session));
    }
    await waitUntil(
      async () =>
        Number(
          (await query<{ n: string }>(sql`select count(*) as n from users where is_online_app`))[0]
            ?.n,
        ) === AGENTS || undefined,
      'every agent online',
      30_000,
    );

    // The people.
    const driverErrors: unknown[] = [];
    let rings = 0;
    let hangups = 0;
    const inCall = (p: CloudParticipant) =>
      cloud!.participants.filter((q) => q.conference === p.conference && q !== p);
    const drive = async (p: CloudParticipant): Promise<void> => {
      if (p.state !== 'queued') return;
      const agentLeg = p.to.startsWith('client:');
      await cloud!.ring(p);
      if (agentLeg && ++rings % 10 === 0) {
        if (stateOf(p) === 'ringing') await cloud!.unanswered(p, 'busy');
        return;
      }
      if (stateOf(p) !== 'ringing') return;
      await cloud!.answer(p);
      if (agentLeg) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          const lead = inCall(p).find((q) => !q.to.startsWith('client:'));
          if (stateOf(p) === 'in-progress' && !lead) void cloud!.hangUp(p).catch(() => undefined);
        }, AGENT_PATIENCE_MS);
        timers.add(timer);
        return;
      }
      // The lead answered: they talk, then one of them hangs up.
      // The agent who took it: the last to answer (an earlier ring may still be leaving).
      const agent = inCall(p).findLast(
        (q) => q.to.startsWith('client:') && q.state === 'in-progress',
      );
      await cloud!.hangUp(++hangups % 2 === 0 && agent ? agent : p);
    };
    cloud.onParticipant((p) => {
      drive(p).catch((error: unknown) => driverErrors.push(error));
    });

    // The database, watched all along: never two live rings for one agent, nor two calls.
    const violations: string[] = [];
    watching = true;
    const watch = (async () => {
      while (watching) {
        const rows = await query<{ user_id: number; kind: string; n: string }>(sql`
          select user_id, 'rings' as kind, count(*) as n from call_users
            where outcome = 'ringing' and type = 'lead' group by user_id having count(*) > 1
          union all
          select user_id, 'calls' as kind, count(*) as n from call_users
            where outcome = 'accepted' and left_at is null group by user_id having count(*) > 1`);
        for (const row of rows) violations.push(`agent ${row.user_id}: ${row.n} ${row.kind}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();

    // The lead source: round-robin over the live instances; one instance killed midway.
    const posted: number[] = [];
    /** Lead posts on their way, per instance. */
    const inFlight = new Map<ChildLeadline, Set<Promise<unknown>>>();
    let sent = 0;
    let killing: Promise<unknown> | undefined;
    const kill = async (victim: ChildLeadline) => {
      // The balancer sends it nothing new; what it is answering finishes; then it crashes, with
      // its calls ringing and talking. Its consoles come back through another instance.
      drained.add(victim);
      await Promise.allSettled([...(inFlight.get(victim) ?? [])]);
      await victim.kill();
      for (const [i, session] of sessions.entries()) {
        if (i % INSTANCES !== KILLED) continue;
        consoles[i]!.close();
        consoles[i] = await openRealtimeClient(session.on(next().url));
      }
    };
    const lane = async () => {
      while (sent < LEADS) {
        const n = sent++;
        if (n === KILL_AFTER) killing = kill(products[KILLED]!);
        const target = next();
        const post = requestJson<LeadIntakeResponse>(
          'POST',
          `${target.url}/api/v1/leads`,
          { authorization: `Bearer ${LEAD_API_KEY}` },
          { fname: `Lead${n}`, phone_number: `+1555020${String(n).padStart(4, '0')}` },
        );
        const posts = inFlight.get(target) ?? new Set();
        inFlight.set(target, posts);
        posts.add(post);
        const res = await post.finally(() => posts.delete(post));
        if (res.status !== 201) {
          throw new Error(`lead ${n}: ${res.status} ${JSON.stringify(res.body)}`);
        }
        posted.push(res.body.call.id);
      }
    };
    await Promise.all(Array.from({ length: POSTING_LANES }, lane));
    await killing;
    expect(posted).toHaveLength(LEADS);
    expect(new Set(posted).size).toBe(LEADS);

    // Every lead's call ends.
    const finals = [...FINAL_STATUSES];
    let open: unknown[] = [];
    await waitUntil(
      async () => {
        open = await query<{ id: number; status: string }>(
          sql`select id, status from calls where status not in ${finals} order by id`,
        );
        return open.length === 0 || undefined;
      },
      'every lead’s call to end',
      Number(process.env.CLUSTER_WAIT_MS ?? 240_000),
      () => `still open: ${JSON.stringify(open.slice(0, 20))}`,
    ).catch(async (error: unknown) => {
      if (process.env.CLUSTER_DEBUG) {
        const { writeFile } = await import('node:fs/promises');
        const ids = (open as Array<{ id: number }>).map((o) => o.id);
        const sids = await query<{ id: number; sid: string }>(sql`select id, sid from calls`);
        const sidOf = new Map(sids.map((r) => [r.sid, r.id]));
        await writeFile(
          process.env.CLUSTER_DEBUG,
          JSON.stringify(
            {
              open,
              driverErrors: driverErrors.map(String),
              inFlight: [...cloud!.inFlight].map((f) => ({
                ...f,
                instance: products.findIndex((p) => p.url === f.to),
                ageMs: Math.round(performance.now() - f.since),
              })),
              alive: products.map((p) => p.running),
              callbacksOfOpen: cloud!.callbacks.filter((c) =>
                (open as Array<{ id: number }>).some((o) => {
                  const sid = sids.find((r) => r.id === o.id)?.sid ?? '-';
                  return c.url.includes(sid) || c.params.FriendlyName === sid;
                }),
              ),
              refused: cloud!.callbacks.filter((c) => c.status >= 300),
              callUsers: await query(sql`select * from call_users where call_id in ${ids}`),
              calls: await query(sql`select * from calls where id in ${ids}`),
              phones: await query(sql`select * from call_phones where call_id in ${ids}`),
              users: await query(
                sql`select id, is_online_app, is_available, wrap_up_until, last_call_at from users`,
              ),
              presence: await query(sql`select * from device_presence`),
              activity: await query(
                sql`select pid, state, wait_event_type, wait_event, left(query, 300) as query, xact_start, query_start from pg_stat_activity where datname = current_database()`,
              ),
              locks: await query(
                sql`select locktype, objid, pid, mode, granted from pg_locks where locktype = 'advisory'`,
              ),
              parties: await query(sql`select * from twilio_parties`),
              cloud: cloud!.participants
                .filter((p) => ids.includes(sidOf.get(p.conference) ?? -1))
                .map(({ fields: _f, ...p }) => p),
              logs: products.map((p) =>
                p
                  .output()
                  .split('\n')
                  .filter(
                    (l) =>
                      !l.includes('"level":30') ||
                      sids.some((r) => ids.includes(r.id) && l.includes(r.sid)),
                  ),
              ),
            },
            null,
            1,
          ),
        );
      }
      throw error;
    });
    await cloud.settled();
    watching = false;
    await watch;
    for (const timer of timers) clearTimeout(timer);

    expect(driverErrors).toEqual([]);
    expect(violations).toEqual([]);
    // No callback was refused (a repeat and a removed party's end are answered 2xx too).
    expect(cloud.callbacks.filter((c) => c.status >= 300)).toEqual([]);

    const all = await db.db.select().from(calls);
    expect(all).toHaveLength(LEADS);
    for (const call of all) {
      expect(['completed', 'missed'], `call ${call.id}`).toContain(call.status);
      if (call.status === 'missed') expect(call.reason, `call ${call.id}`).not.toBeNull();
    }
    // Every call whose lead answered completed; most leads were answered.
    const answered = all.filter((c) => c.answeredAt !== null);
    expect(answered.every((c) => c.status === 'completed')).toBe(true);
    expect(answered.length).toBeGreaterThan(LEADS / 2);

    // Nothing twice: one lead dial per call, at most one agent who took it.
    const creates = standIn.requests.filter(
      (r) => r.method === 'POST' && r.path.endsWith('/Participants.json'),
    );
    for (const call of all) {
      const dials = creates.filter(
        (r) => r.path.includes(`/${call.sid}/`) && !r.form.To?.startsWith('client:'),
      );
      expect(dials.length, `lead dials of ${call.sid}`).toBeLessThanOrEqual(1);
      const took = await db.db
        .select({ userId: callUsers.userId })
        .from(callUsers)
        .where(sql`${callUsers.callId} = ${call.id} and ${callUsers.outcome} = 'accepted'`);
      expect(took.length, `agents who took call ${call.id}`).toBeLessThanOrEqual(1);
    }

    // The simulated Twilio's record: no agent's browser had two legs at once.
    const byAgent = new Map<string, CloudParticipant[]>();
    for (const p of cloud.participants) {
      if (!p.to.startsWith('client:')) continue;
      const identity = p.to.slice('client:'.length).split('?')[0]!;
      byAgent.set(identity, [...(byAgent.get(identity) ?? []), p]);
    }
    const overlaps: string[] = [];
    for (const [identity, legs] of byAgent) {
      const sorted = [...legs].sort((x, y) => x.createdAt - y.createdAt);
      for (let i = 1; i < sorted.length; i++) {
        const before = sorted[i - 1]!;
        const after = sorted[i]!;
        if (before.endedAt === undefined || before.endedAt > after.createdAt) {
          overlaps.push(
            `agent ${identity}: ${before.conference} (${before.state}, ${Math.round(before.createdAt)}–${Math.round(before.endedAt ?? -1)} ms) and ${after.conference} (from ${Math.round(after.createdAt)} ms)`,
          );
        }
      }
    }
    if (overlaps.length > 0 && process.env.CLUSTER_DEBUG) {
      const { writeFile } = await import('node:fs/promises');
      const sids = overlaps.flatMap((o) => [...o.matchAll(/CA[0-9a-f]{32}/g)].map((m) => m[0]));
      const rows = await query<{ id: number; sid: string }>(
        sql`select * from calls where sid in ${sids}`,
      );
      await writeFile(
        process.env.CLUSTER_DEBUG,
        JSON.stringify(
          {
            overlaps,
            calls: rows,
            callUsers: await query(
              sql`select * from call_users where call_id in ${rows.map((r) => r.id)}`,
            ),
            callbacks: cloud.callbacks.filter((c) =>
              sids.some((sid) => c.url.includes(sid) || c.params.FriendlyName === sid),
            ),
            cloud: cloud.participants
              .filter((p) => sids.includes(p.conference))
              .map(({ fields: _f, ...p }) => p),
            requests: standIn.requests
              .map((r, i) => ({ ...r, i }))
              .filter((r) => sids.some((sid) => r.path.includes(sid))),
            logs: products.map((p) =>
              p
                .output()
                .split('\n')
                .filter((l) => sids.some((sid) => l.includes(sid)) || l.includes('"level":40')),
            ),
          },
          null,
          1,
        ),
      );
    }
    expect(overlaps).toEqual([]);

    // Every agent is free again, on whichever instance they are.
    const [freeRow] = await query<{ n: string }>(
      sql`select count(*) as n from call_users where outcome = 'accepted' and left_at is null`,
    );
    expect(Number(freeRow?.n)).toBe(0);
    expect(products[KILLED]!.running).toBe(false);
  }, 600_000);
});
