/**
 * Restart and shutdown on the real engine (issue 13, `docs/reliability.md`): the product runs as
 * a child process (`node --import tsx src/main.ts`, media worker threads, werift legs, the
 * sandbox phone network), so a test can crash it (SIGKILL) or stop it (SIGTERM) and start it
 * again on the same data folder: PGlite under it, or a scratch PostgreSQL database when
 * `DATABASE_URL` is set. A headless agent (`AgentClient`, tone 1000 Hz) takes test leads
 * (+1555010004x, 440 Hz); what the product says is read over HTTP while it runs, and from its
 * database once it has exited (PGlite is one process's database).
 *
 * The tests share one data folder; each starts the product and leaves it stopped. Every test
 * makes the agent available first (Done ends a wrap-up an earlier call left), so each also
 * runs alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, inArray, isNull, and } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallUserResponse, HistoryRow } from '@leadline/contracts';
import { decodeWav } from '@leadline/voice/dsp';
import { between, tonesIn } from '@leadline/voice/testing';
import type { Database } from '../db/database';
import { callPhones, callUsers, calls } from '../db/schema';
import { AgentClient, type Invite } from '../test-support/agent-client';
import { ChildLeadline } from '../test-support/child-leadline';
import { HttpSession } from '../test-support/http-session';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { REAL_WAIT_MS, waitUntil } from '../test-support/wait-until';
import { HEARTBEAT_MS, recordingUrlOf } from './call-flows';

const AGENT = 'agent1@example.com';
/** Reads the agent's presence; never registers a device, so never rung. */
const OBSERVER = 'supervisor@example.com';
const TONES = { agent: 1000, lead: 440 } as const;
const HEARTBEAT_S = HEARTBEAT_MS / 1000;
/**
 * How much of the lead the agent hears before the crash: more than a heartbeat, so the call
 * was stamped alive while it was answered.
 */
const TALK_BEFORE_CRASH_S = HEARTBEAT_S + 4;
/** How much of the lead the agent hears before the clean stop. */
const TALK_BEFORE_STOP_S = 3;
/**
 * What a crash may lose beyond one heartbeat: the rounding to whole seconds (½ s) and the
 * stamp's own lateness (a timer and one UPDATE on a busy machine).
 */
const STAMP_SLACK_S = 2;
/** The bound of a wait for `seconds` of audio: the audio itself, and a busy machine's delays. */
const talkTimeoutMs = (seconds: number) => seconds * 1000 + REAL_WAIT_MS;
/** Two or three product starts per test, each up to a minute on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 480_000;

let dataDir: string;
let database: PersistedDatabase;
let product: ChildLeadline | undefined;
/** The products the current test started, in order. */
let startedInTest: ChildLeadline[] = [];
const leads = { crashed: '+15550100042', after: '+15550100043', stopped: '+15550100044' };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-restart-'));
  database = await createPersistedDatabase(dataDir);
});

afterEach(async (context) => {
  // What the products said, when the test failed (their request logs left out).
  if (context.task.result?.state === 'fail') {
    for (const [index, started] of startedInTest.entries()) {
      const lines = started.output().split('\n');
      const said = lines.filter((line) => !/"(incoming request|request completed)"/.test(line));
      console.error(`product ${index + 1} of the test:\n${said.slice(-40).join('\n')}`);
    }
  }
  startedInTest = [];
  // A test that failed half-way leaves the product running: stop it, and withdraw the leads
  // its stop put back in the queue, so that they ring nobody in the next test.
  if (!product) return;
  await product.stop();
  await product.dispose();
  product = undefined;
  await afterExit((db) =>
    db.update(calls).set({ status: 'completed' }).where(eq(calls.status, 'queued')),
  );
}, 120_000);

afterAll(async () => {
  await product?.dispose();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

/** Starts the product on the shared data folder and database (a restart if it ran before). */
async function start(): Promise<ChildLeadline> {
  product = await ChildLeadline.start({ dataDir, env: database.env });
  startedInTest.push(product);
  return product;
}

/** The agent logged in on `on` with the softphone registered; `observer` sees their presence. */
async function loginAgent(on: ChildLeadline, observer: HttpSession): Promise<AgentClient> {
  return AgentClient.login(on.agentProduct(observer), AGENT, { toneHz: TONES.agent });
}

/** Logs the observer and the agent in and makes the agent available (ends any wrap-up). */
async function agentAtWork(on: ChildLeadline) {
  const observer = await HttpSession.login(on.url, OBSERVER);
  const agent = await loginAgent(on, observer);
  expect((await agent.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);
  return { observer, agent };
}

/** Posts a web lead; expects it to ring `agent` and returns the call's id. */
async function postLeadFor(on: ChildLeadline, agent: AgentClient, phone: string): Promise<number> {
  const posted = await on.postLead({ fname: 'Lee', lname: 'Lead', phone_number: phone });
  expect(posted.status).toBe(201);
  expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
  return posted.body.call.id;
}

/** The call of an invite, as the server answers `GET /api/v1/callusers/{id}`. */
async function callOfInvite(agent: AgentClient, invite: Invite) {
  const res = await agent.api<CallUserResponse>('GET', `/api/v1/callusers/${invite.callUserId}`);
  expect(res.status).toBe(200);
  return res.body.call;
}

/**
 * Accepts the invite; resolves once the server has the call in progress and the agent hears the
 * lead. `acceptingAt` is taken before the answer is sent: the call cannot have been answered
 * before it.
 */
async function acceptLead(agent: AgentClient, invite: Invite) {
  const acceptingAt = Date.now();
  await agent.accept(invite);
  await waitUntil(
    async () => ((await callOfInvite(agent, invite)).status === 'in-progress' ? true : undefined),
    'the server to have the call in progress',
  );
  await waitUntil(
    async () => ((await agent.hears(TONES.lead, 0.5)) ? true : undefined),
    `${agent.email} to hear the lead`,
  );
  return { acceptingAt };
}

/** The agent's history, newest first (`GET /api/v1/mycalls`). */
async function historyOf(session: AgentClient | HttpSession): Promise<HistoryRow[]> {
  const res = await session.api<{ data: HistoryRow[] }>('GET', '/api/v1/mycalls?limit=50&page=1');
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Waits until the history shows the call in `status`; resolves with its row. */
async function historyRowWhen(
  session: AgentClient | HttpSession,
  callId: number,
  status: string,
): Promise<HistoryRow> {
  let last: HistoryRow | undefined;
  return waitUntil(
    async () => {
      last = (await historyOf(session)).find((row) => row.id === callId);
      return last?.status === status ? last : undefined;
    },
    `call ${callId} to be ${status} in the history`,
    undefined,
    () => `last ${JSON.stringify(last)}`,
  );
}

/** Runs `read` on the database (the product must have exited for PGlite), then closes it. */
async function afterExit<T>(read: (db: Database['db']) => Promise<T>, snapshot = false) {
  const opened = snapshot ? await database.openSnapshot() : await database.open();
  try {
    return await read(opened.db);
  } finally {
    await opened.close();
  }
}

/** Nothing is live and nobody is left on or rung for a call, in the whole database. */
async function expectNothingOpen(db: Database['db']): Promise<void> {
  const live = await db
    .select({ id: calls.id, status: calls.status })
    .from(calls)
    .where(inArray(calls.status, ['ringing', 'in-progress']));
  expect(live).toEqual([]);
  const onCalls = await db
    .select({ id: callUsers.id, callId: callUsers.callId })
    .from(callUsers)
    .where(and(eq(callUsers.outcome, 'accepted'), isNull(callUsers.leftAt)));
  expect(onCalls).toEqual([]);
  const ringing = await db
    .select({ id: callUsers.id, callId: callUsers.callId })
    .from(callUsers)
    .where(eq(callUsers.outcome, 'ringing'));
  expect(ringing).toEqual([]);
}

describe('restart and shutdown (the product in a child process)', () => {
  it(
    'a crash: the call in progress ends at its last heartbeat, the agent is freed, re-registers and is rung again',
    async () => {
      const first = await start();
      const { agent } = await agentAtWork(first);
      const callId = await postLeadFor(first, agent, leads.crashed);
      const invite = await agent.nextInvite();
      const { acceptingAt } = await acceptLead(agent, invite);
      // They talk: the agent hears this much more of the lead (the call lasts at least that).
      await agent.listen(TALK_BEFORE_CRASH_S, talkTimeoutMs(TALK_BEFORE_CRASH_S));

      expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      const killedAt = Date.now();
      await first.dispose();

      // As the crash left it: still in progress, the agent on it, stamped while answered.
      const left = await afterExit(async (db) => {
        const [call] = await db.select().from(calls).where(eq(calls.id, callId));
        const users = await db.select().from(callUsers).where(eq(callUsers.callId, callId));
        return { call: call!, users };
      }, true);
      expect(left.call.status).toBe('in-progress');
      expect(left.users.map((u) => [u.userId, u.outcome, u.leftAt])).toEqual([
        [agent.userId, 'accepted', null],
      ]);
      const answeredAt = left.call.answeredAt!.getTime();
      const lastSeenAt = left.call.lastSeenAt!.getTime();
      expect(answeredAt).toBeGreaterThanOrEqual(acceptingAt);
      expect(lastSeenAt).toBeGreaterThan(answeredAt);
      expect(lastSeenAt).toBeLessThanOrEqual(killedAt);

      // Started again on the same data.
      const second = await start();
      const observer = await HttpSession.login(second.url, OBSERVER);
      // Freed: no device yet, and not on a call.
      expect(await observer.presenceOf(agent.userId)).toMatchObject({
        status: 'offline',
        on_call_id: null,
      });
      // The softphone registers again: the agent is online and available (no wrap-up owed).
      const back = await loginAgent(second, observer);
      expect(await observer.presenceOf(agent.userId)).toMatchObject({
        status: 'available',
        is_online_app: true,
        on_call_id: null,
      });

      const history = await historyOf(back);
      expect(
        history.filter((row) => ['ringing', 'in-progress', 'queued'].includes(row.status)),
      ).toEqual([]);
      const ended = history.find((row) => row.id === callId)!;
      expect(ended.status).toBe('completed');
      // Its seconds: what it lasted up to its last stamp. Not more than the test saw it exist
      // (from before the answer to after the kill), and no less than the talk the agent heard
      // less one heartbeat (the time after the last stamp is what a crash loses).
      const windowS = (killedAt - acceptingAt) / 1000;
      expect(ended.seconds).toBeLessThanOrEqual(Math.ceil(windowS));
      expect(ended.seconds).toBeGreaterThanOrEqual(
        TALK_BEFORE_CRASH_S - HEARTBEAT_S - STAMP_SLACK_S,
      );

      // Routable again: the next lead rings the agent, who takes it.
      const nextId = await postLeadFor(second, back, leads.after);
      await acceptLead(back, await back.nextInvite());
      await back.hangup();
      await historyRowWhen(back, nextId, 'completed');

      // A clean stop, then the rows: the crashed call was closed at its last stamp, for everyone.
      expect(await second.stop()).toEqual({ code: 0, signal: null });
      await second.dispose();
      await afterExit(async (db) => {
        const [call] = await db.select().from(calls).where(eq(calls.id, callId));
        expect(call).toMatchObject({
          status: 'completed',
          reason: 'server-restart',
          endedAt: new Date(lastSeenAt),
          seconds: Math.round((lastSeenAt - answeredAt) / 1000),
        });
        const users = await db.select().from(callUsers).where(eq(callUsers.callId, callId));
        expect(users.map((u) => [u.userId, u.outcome, u.leftAt])).toEqual([
          [agent.userId, 'accepted', new Date(lastSeenAt)],
        ]);
        const phones = await db.select().from(callPhones).where(eq(callPhones.callId, callId));
        expect(phones.map((p) => [p.phoneNumber, p.state])).toEqual([[leads.crashed, 'left']]);
        await expectNothingOpen(db);
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a clean stop (SIGTERM): the call in progress ends with its seconds and its recording, and the process exits 0',
    async () => {
      const current = await start();
      const { agent } = await agentAtWork(current);
      const callId = await postLeadFor(current, agent, leads.stopped);
      const invite = await agent.nextInvite();
      const { acceptingAt } = await acceptLead(agent, invite);
      await agent.listen(TALK_BEFORE_STOP_S, talkTimeoutMs(TALK_BEFORE_STOP_S));

      expect(await current.stop()).toEqual({ code: 0, signal: null });
      const stoppedAt = Date.now();
      // The agent's softphone was told the call ended before the server went away.
      await agent.waitForHangup();
      await current.dispose();

      const recordingUrl = await afterExit(async (db) => {
        const [call] = await db.select().from(calls).where(eq(calls.id, callId));
        expect(call).toMatchObject({
          status: 'completed',
          reason: 'server-restart',
          recordingUrl: recordingUrlOf(callId),
        });
        expect(call!.recordingPath).toEqual(expect.any(String));
        // It lasted at least the talk the agent heard, at most what the test saw.
        expect(call!.seconds).toBeGreaterThanOrEqual(TALK_BEFORE_STOP_S);
        expect(call!.seconds).toBeLessThanOrEqual(Math.ceil((stoppedAt - acceptingAt) / 1000));
        const users = await db.select().from(callUsers).where(eq(callUsers.callId, callId));
        expect(users).toHaveLength(1);
        expect(users[0]).toMatchObject({ userId: agent.userId, outcome: 'accepted' });
        expect(users[0]!.leftAt).toEqual(call!.endedAt);
        await expectNothingOpen(db);
        return call!.recordingUrl!;
      });

      // After a restart the recording is there to play: both parties are heard in it.
      const again = await start();
      const session = await HttpSession.login(again.url, AGENT);
      const row = (await historyOf(session)).find((r) => r.id === callId);
      expect(row).toMatchObject({ status: 'completed', recording_url: recordingUrl });
      const file = await session.download(recordingUrl);
      expect(await again.stop()).toEqual({ code: 0, signal: null });
      expect(file.status).toBe(200);
      const wav = decodeWav(file.bytes);
      const seconds = wav.samples.length / wav.sampleRateHz;
      expect(seconds).toBeGreaterThanOrEqual(TALK_BEFORE_STOP_S);
      const end = between(wav.samples, seconds - 2.5, seconds - 0.5, wav.sampleRateHz);
      expect(tonesIn(end, [TONES.agent, TONES.lead], 0.1, wav.sampleRateHz)).toEqual([
        TONES.agent,
        TONES.lead,
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a crash while a web lead rings the agent: the lead waits in the queue and rings the agent when they are back',
    async () => {
      const current = await start();
      const { agent } = await agentAtWork(current);
      const callId = await postLeadFor(current, agent, '+15550100045');
      const ring = await agent.nextInvite();
      expect((await callOfInvite(agent, ring)).id).toBe(callId);

      expect(await current.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      await current.dispose();

      const again = await start();
      // Nobody can take it (the agent's softphone is not back): it waits, and says why.
      const agentConsole = await HttpSession.login(again.url, AGENT);
      expect((await historyOf(agentConsole)).find((r) => r.id === callId)).toMatchObject({
        status: 'queued',
        reason: 'Interrupted by a server restart',
      });
      const observer = await HttpSession.login(again.url, OBSERVER);
      expect(await observer.presenceOf(agent.userId)).toMatchObject({ status: 'offline' });

      // The softphone registers again: the waiting lead rings it, and the agent takes it.
      const back = await loginAgent(again, observer);
      const invite = await back.nextInvite();
      expect((await callOfInvite(back, invite)).id).toBe(callId);
      await acceptLead(back, invite);
      await back.hangup();
      await historyRowWhen(back, callId, 'completed');

      // The ring the crash interrupted was closed; the ring after it was taken.
      expect(await again.stop()).toEqual({ code: 0, signal: null });
      await again.dispose();
      await afterExit(async (db) => {
        const users = await db
          .select()
          .from(callUsers)
          .where(eq(callUsers.callId, callId))
          .orderBy(callUsers.id);
        expect(users.map((u) => [u.userId, u.outcome])).toEqual([
          [agent.userId, 'canceled'],
          [agent.userId, 'accepted'],
        ]);
        expect(users[1]!.leftAt).not.toBeNull();
        await expectNothingOpen(db);
      });
    },
    TEST_TIMEOUT_MS,
  );
});
