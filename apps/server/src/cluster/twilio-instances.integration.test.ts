/**
 * Twilio-mode instances are equals (issue 38, item 2; `cluster/start-instance.ts`,
 * `calls/recovery.ts`): the product as `npm start` runs it (child processes, production mode,
 * TELEPHONY_PROVIDER=twilio, Twilio's REST API the loopback stand-in, its callbacks posted by the
 * simulated cloud) on one PostgreSQL database.
 *
 * A takes a lead: the agent (console on A) answers, the lead answers. B starts beside it: no
 * refusal, no lease, `/healthz` says `twilio` on both; B's start-up recovery leaves A's call and
 * its agent alone (the call in progress, the agent on it and `on_call`). A stops (SIGTERM): the
 * call is still live (Twilio carries it); B takes its callbacks and ends it when the lead hangs
 * up. B's SIGTERM then exits cleanly and promptly.
 *
 * Needs PostgreSQL (`DATABASE_URL`); the PostgreSQL pass runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { callUsers, calls } from '../db/schema';
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
import { TwilioCloud } from '../test-support/twilio-cloud';
import {
  startTwilioAccountStandIn,
  TWILIO_TEST_ENV,
  twilioProductionEnv,
} from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';

const NUMBER = '+15550100999';
const LEAD_PHONE = '+15550100077';
const AGENT = 'agent@operator.example';
const SUPERVISOR = 'supervisor@operator.example';
const LEAD_API_KEY = 'twilio-instances-lead-key-0123456789abcdef';
const TEST_TIMEOUT_MS = 420_000;

let dataDir: string | undefined;
let database: PersistedDatabase | undefined;
let db: Database | undefined;
let standIn: TwilioApiStandIn | undefined;
let cloud: TwilioCloud | undefined;
let realtime: RealtimeClient | undefined;
const started: ChildLeadline[] = [];

interface AgentRow {
  id: number;
  status: string;
  on_call_id: number | null;
}

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    for (const product of started) {
      const said = product
        .output()
        .split('\n')
        .filter((line) => !/"(incoming request|request completed)"/.test(line));
      console.error(`${product.url}:\n${said.slice(-40).join('\n')}`);
    }
  }
});

afterAll(async () => {
  realtime?.close();
  cloud?.close();
  for (const product of started.reverse()) {
    await product.stop();
    await product.dispose();
  }
  await standIn?.close();
  await db?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 180_000);

describe.runIf(process.env.DATABASE_URL)('Twilio instances are equals', () => {
  it(
    'a second instance starts beside the first and leaves its call and agent alone; the first’s SIGTERM leaves the call to Twilio and the second',
    async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'leadline-twilio-instances-'));
      database = await createPersistedDatabase(dataDir);
      db = await database.open();
      await seedOperatorAccount(db.db, {
        callerNumber: NUMBER,
        agents: [AGENT],
        supervisors: [SUPERVISOR],
      });
      standIn = await startTwilioAccountStandIn([NUMBER]);
      const env = { ...database.env, ...twilioProductionEnv(standIn.url, LEAD_API_KEY) };
      const start = async (name: string) => {
        const product = await ChildLeadline.start({ dataDir: join(dataDir!, name), env });
        started.push(product);
        return product;
      };
      const healthOf = async (product: ChildLeadline) =>
        (await requestJson('GET', `${product.url}/healthz`)).body;

      const a = await start('a');
      expect(await healthOf(a)).toEqual({ ok: true, media: { role: 'twilio', epoch: null } });
      let target = a;
      cloud = new TwilioCloud(standIn, {
        authToken: TWILIO_TEST_ENV.TWILIO_AUTH_TOKEN,
        publicBaseUrl: TWILIO_TEST_ENV.PUBLIC_BASE_URL,
        productUrl: () => target.url,
      });

      // The agent's console on A: online with Twilio.
      const agent = await HttpSession.login(a.url, AGENT, OPERATOR_PASSWORD);
      realtime = await openRealtimeClient(agent);
      const agentRowOn = async (product: ChildLeadline): Promise<AgentRow | undefined> => {
        const supervisor = await HttpSession.login(product.url, SUPERVISOR, OPERATOR_PASSWORD);
        const list = await supervisor.api<{ data: AgentRow[] }>(
          'GET',
          '/api/v1/users/paginated?status=all',
        );
        return list.body.data.find((row) => row.id === agent.userId);
      };
      await waitUntil(
        async () => ((await agentRowOn(a))?.status === 'available' ? true : undefined),
        'the agent to be available on A',
      );

      // A lead: the agent's browser rings and answers, the lead is dialled and answers.
      const posted = await requestJson<{ call: { id: number; status: string } }>(
        'POST',
        `${a.url}/api/v1/leads`,
        { authorization: `Bearer ${LEAD_API_KEY}` },
        { fname: 'Pat', lname: 'Twilio', phone_number: LEAD_PHONE },
      );
      expect(posted.status).toBe(201);
      const callId = posted.body.call.id;
      const ring = await cloud.agentRung(String(agent.userId));
      await cloud.ring(ring);
      await cloud.answer(ring);
      const lead = await cloud.waitForParticipant(
        (p) => p.conference === ring.conference && p.to === LEAD_PHONE,
        'the lead to be dialled',
      );
      await cloud.ring(lead);
      await cloud.answer(lead);
      standIn.setConference(ring.conference, 'in-progress');
      const callNow = async () =>
        (await db!.db.select().from(calls).where(eq(calls.id, callId)))[0]!;
      const peopleNow = () => db!.db.select().from(callUsers).where(eq(callUsers.callId, callId));
      await waitUntil(
        async () => ((await callNow()).status === 'in-progress' ? true : undefined),
        'the call to be in progress',
      );
      await waitUntil(
        async () => ((await agentRowOn(a))?.status === 'on_call' ? true : undefined),
        'the agent to be on the call',
      );
      const { lastSeenAt: _stamp, ...callBefore } = await callNow();
      const peopleBefore = await peopleNow();
      expect(peopleBefore).toEqual([
        expect.objectContaining({ userId: agent.userId, outcome: 'accepted', leftAt: null }),
      ]);

      // B starts beside A as an equal.
      const b = await start('b');
      expect(await healthOf(b)).toEqual({ ok: true, media: { role: 'twilio', epoch: null } });
      expect(await healthOf(a)).toEqual({ ok: true, media: { role: 'twilio', epoch: null } });
      const { lastSeenAt: _stampAfter, ...callAfter } = await callNow();
      expect(callAfter).toEqual(callBefore);
      expect(await peopleNow()).toEqual(peopleBefore);
      expect(await agentRowOn(b)).toMatchObject({ status: 'on_call', on_call_id: callId });
      expect(await agentRowOn(a)).toMatchObject({ status: 'on_call', on_call_id: callId });

      // A stops cleanly: the call is Twilio's and B's now.
      expect(await a.stop()).toEqual({ code: 0, signal: null });
      const { lastSeenAt: _stampStopped, ...callStopped } = await callNow();
      expect(callStopped).toEqual(callBefore);
      expect(await peopleNow()).toEqual(peopleBefore);

      // B takes Twilio's callbacks: the lead hangs up, the call completes there.
      target = b;
      await cloud.hangUp(lead);
      await cloud.settled();
      const ended = await waitUntil(async () => {
        const row = await callNow();
        return row.status === 'completed' ? row : undefined;
      }, 'the call to complete through B');
      expect(ended.reason).not.toBe('server-restart');
      expect(cloud.callbacks.filter((c) => c.status >= 300)).toEqual([]);

      // The last instance stops cleanly too, though Twilio's last callbacks may be under way
      // (they are answered with `Connection: close`, app.ts).
      expect(await b.stop()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT_MS,
  );
});
