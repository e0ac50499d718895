/**
 * A populated test world for the endpoint tests: the demo account (A) and account 6671 (B),
 * logins for their users, a user of A without permissions, devices online, and helpers that
 * put a user on a live lead call through the real flows (driven with the fake telephony).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { generateTone, writeWavFile } from '@leadline/voice/dsp';
import type { DialCeiling } from '../accounts/account-policy';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import type { CallRow } from '../calls/calls-repo';
import { recordingsFolderOf } from '../calls/recording-access';
import { accounts, calls, callUsers, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { findUserById, type UserRow } from '../users/users-repo';
import { ManualClock } from './manual-clock';
import { login, startTestApp, type Agent, type TestApp } from './test-app';

/** Account B: one of the seeded special accounts. */
export const ACCOUNT_B = 6671;

/** The populated world. */
export interface Fixture {
  t: TestApp;
  clock: ManualClock;
  /** The product's data folder (a temporary one); recordings are served from its `recordings`. */
  dataDir: string;
  agent1: Agent;
  agent2: Agent;
  supervisor: Agent;
  /** A user of account A with no permissions at all. */
  basic: Agent;
  agentB: Agent;
  /** The user row behind a login. */
  userOf(agent: Agent): Promise<UserRow>;
  /** Puts the agent on a live, answered lead call; returns the call and their call user's id. */
  liveCall(agent: Agent, phone?: string): Promise<{ call: CallRow; callUserId: number }>;
  /** Ends a call as if its phone parties hung up; its agents then press Done (wrap-up ends). */
  endCall(call: CallRow): Promise<void>;
  /**
   * Reports the (ended) call's recording as the engine does: a real WAV of `seconds` of a
   * 440 Hz tone under a temporary folder; returns its bytes.
   */
  recordCall(call: CallRow, seconds?: number): Promise<Buffer>;
  /** Headers of a logged-in, CSRF-carrying request. */
  auth(agent: Agent, csrf?: boolean): Record<string, string>;
  /** Gives the login a fresh session (after a test logged it out), without the login route. */
  renew(agent: Agent): Promise<void>;
}

let phoneCounter = 200;

/** Dialling limits no endpoint test reaches (`accounts.policy`). */
const ROOMY_LIMITS = {
  calls_per_minute_per_agent: 10_000,
  calls_per_minute_per_account: 10_000,
  sms_per_hour_per_agent: 10_000,
  sms_per_hour_per_account: 10_000,
};

/**
 * Builds the world on a fresh database; `dialCeiling` is the operator's (`DIAL_*`), default none
 * reachable.
 */
export async function startFixture(options: { dialCeiling?: DialCeiling } = {}): Promise<Fixture> {
  const clock = new ManualClock();
  // The product's data folder: recordings are served from its recordings folder only.
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-fixture-'));
  const recordings = recordingsFolderOf(dataDir);
  const t = await startTestApp({
    clock,
    recordingsRoot: recordings,
    ...(options.dialCeiling ? { dialCeiling: options.dialCeiling } : {}),
  });
  const { db } = t.database;
  // The endpoint tests place many calls a minute; the dial guard's limits have tests of their own.
  await db
    .update(accounts)
    .set({ policy: sql`${accounts.policy} || ${JSON.stringify(ROOMY_LIMITS)}::jsonb` });
  await db.insert(users).values({
    accountId: 1,
    email: 'basic@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Basil Basic',
    permissions: [],
  });
  const [agent1, agent2, supervisor, basic, agentB] = await Promise.all([
    login(t.app, 'agent1@example.com'),
    login(t.app, 'agent2@example.com'),
    login(t.app, 'supervisor@example.com'),
    login(t.app, 'basic@example.com'),
    login(t.app, `agent@a${ACCOUNT_B}.example.com`),
  ]);
  for (const agent of [agent1, agent2, supervisor, basic, agentB]) {
    t.telephony.emit({ type: 'device.online', identity: String(agent.userId) });
  }
  await t.flows.idle();

  const userOf = async (agent: Agent) => (await findUserById(db, agent.userId))!;
  const sessions = new SessionStore(db, 3_600_000);
  return {
    t,
    clock,
    dataDir,
    agent1: agent1,
    agent2: agent2,
    supervisor: supervisor,
    basic: basic,
    agentB: agentB,
    userOf,
    async liveCall(agent, phone) {
      const number = phone ?? `+1555010${String(phoneCounter++).padStart(4, '0')}`;
      const { call } = await t.flows.retry(await userOf(agent), {
        fname: 'Lee',
        lname: 'Lead',
        phone_number: number,
      });
      t.telephony.emit({
        type: 'agent.answered',
        callSid: call.sid,
        identity: String(agent.userId),
      });
      // The lead is dialled once the flows took the answer.
      await t.flows.idle();
      t.telephony.emit({
        type: 'phone.answered',
        callSid: call.sid,
        participantId: t.telephony.lastPhone(call.sid),
      });
      await t.flows.idle();
      const [fresh] = await db.select().from(calls).where(eq(calls.id, call.id));
      const [cu] = await db.select().from(callUsers).where(eq(callUsers.callId, call.id));
      if (fresh?.status !== 'in-progress' || !cu)
        throw new Error(`the call did not go live: ${fresh?.status}`);
      return { call: fresh, callUserId: cu.id };
    },
    async endCall(call) {
      for (const phone of t.telephony.commands) {
        if ((phone.op === 'dial' || phone.op === 'addCaller') && phone.callSid === call.sid) {
          t.telephony.emit({
            type: 'phone.left',
            callSid: call.sid,
            participantId: phone.participantId,
          });
        }
      }
      await t.flows.idle();
      // The agents press Done after the call (wrap-up ends), as they do in the console.
      for (const agent of [agent1, agent2, supervisor, basic, agentB]) {
        await t.flows.presence.endWrapUp(agent.userId);
      }
      await t.flows.idle();
    },
    async recordCall(call, seconds = 1) {
      mkdirSync(recordings, { recursive: true });
      const path = join(recordings, `${call.sid}.wav`);
      const sampleRateHz = 8000;
      await writeWavFile(
        path,
        generateTone({ frequencyHz: 440, sampleRateHz, dbfs: -6 }, sampleRateHz * seconds),
        sampleRateHz,
      );
      t.telephony.emit({ type: 'recording.ready', callSid: call.sid, path, seconds });
      await t.flows.idle();
      return readFileSync(path);
    },
    async renew(agent) {
      const { cookie } = await sessions.create(agent.userId);
      agent.cookie = `leadline_session=${cookie}`;
      agent.csrf = (await sessions.find(cookie))!.csrfToken;
    },
    auth(agent, csrf = true): Record<string, string> {
      const headers: Record<string, string> = { cookie: agent.cookie };
      if (csrf) headers['x-csrf-token'] = agent.csrf;
      return headers;
    },
  };
}
