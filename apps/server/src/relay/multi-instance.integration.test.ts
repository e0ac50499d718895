/**
 * Two server processes on two ports sharing one PostgreSQL database (`docs/deployment.md`,
 * several instances): one runs the voice engine and the calls (the media instance), the other
 * relays to it (`VOICE_MEDIA_URL`). Both are the product as `npm start` runs it (child
 * processes, real engine, sandbox phone network), with the same `TOKEN_SECRET` and
 * `PUSHER_SECRET`.
 *
 * - A status change made on B reaches a teammate's realtime client connected to A (pusher-js on
 *   A's embedded endpoint; the event crosses over PostgreSQL `LISTEN`/`NOTIFY`).
 * - A lead posted to B rings an agent whose softphone registered through A, who hears the lead.
 * - B killed while a lead posted to it rings on A: the ring timeout still moves the lead on.
 *
 * Needs PostgreSQL (`DATABASE_URL`): PGlite is one process's database. CI runs it in its second
 * pass of the server tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../test-support/agent-client';
import { ChildLeadline } from '../test-support/child-leadline';
import { HttpSession } from '../test-support/http-session';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { openRealtimeClient, type RealtimeClient } from '../test-support/realtime-client';
import { waitUntil } from '../test-support/wait-until';

const LEAD_TONE_HZ = 440;
const RING_TIMEOUT_MS = 3_000;
const TEST_TIMEOUT_MS = 300_000;

let dataDir: string;
let database: PersistedDatabase;
let started: ChildLeadline[] = [];
let realtime: RealtimeClient | undefined;

const shared = () => ({
  ...database.env,
  TOKEN_SECRET: 'multi-instance-token-secret-0123456789abcdef',
  PUSHER_SECRET: 'multi-instance-pusher-secret-0123',
  AGENT_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS),
});

/** Starts the media instance (engine and calls) on its own data folder. */
async function startMedia(name: string): Promise<ChildLeadline> {
  const product = await ChildLeadline.start({ dataDir: join(dataDir, name), env: shared() });
  started.push(product);
  return product;
}

/** Starts an instance relaying to `media`. */
async function startRelaying(name: string, media: ChildLeadline): Promise<ChildLeadline> {
  const product = await ChildLeadline.start({
    dataDir: join(dataDir, name),
    env: { ...shared(), VOICE_MEDIA_URL: media.url },
  });
  started.push(product);
  return product;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-instances-'));
  database = await createPersistedDatabase(dataDir);
});

afterEach(async (context) => {
  realtime?.close();
  realtime = undefined;
  if (context.task.result?.state === 'fail') {
    for (const product of started) {
      const said = product
        .output()
        .split('\n')
        .filter((line) => !/"(incoming request|request completed)"/.test(line));
      console.error(`${product.url}:\n${said.slice(-30).join('\n')}`);
    }
  }
  // The relays first: a stopping media instance waits for the sockets relayed to it.
  for (const product of started.reverse()) {
    await product.stop();
    await product.dispose();
  }
  started = [];
}, 180_000);

afterAll(async () => {
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe.runIf(process.env.DATABASE_URL)('two instances on one PostgreSQL', () => {
  it(
    'a status change on B reaches a client on A; a lead posted to B rings an agent registered through A, who hears it',
    async () => {
      const b = await startMedia('b');
      const a = await startRelaying('a', b);

      // A teammate's console on A: its realtime client connects to A's own endpoint.
      const observer = await HttpSession.login(a.url, 'supervisor@example.com');
      realtime = await openRealtimeClient(observer);
      expect(realtime.settings.options.wsPort).toBe(Number(new URL(a.url).port));

      const onB = await HttpSession.login(b.url, 'agent2@example.com');
      const sentAt = performance.now();
      expect((await onB.api('PUT', '/api/v1/user/status', { status: 'away' })).status).toBe(200);
      // agent2 has no softphone registered: offline, and now also Away by choice.
      const seen = await realtime.nextStatus((e) => e.user_id === onB.userId && !e.is_available);
      console.info(
        `status change on B seen on A after ${(seen.receivedAt - sentAt).toFixed(0)} ms`,
      );
      expect(seen.status).toBe('offline');

      // agent1's softphone registers through A (signalling relayed to B, media straight to B).
      const agent = await AgentClient.login(a.agentProduct(observer), 'agent1@example.com');
      await realtime.nextStatus((e) => e.user_id === agent.userId && e.status === 'available');
      const posted = await b.postLead({
        fname: 'Bea',
        lname: 'Relay',
        phone_number: '+15550100042',
      });
      expect(posted.status).toBe(201);
      expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
      const invite = await agent.nextInvite();
      await agent.accept(invite);
      expect(await agent.hears(LEAD_TONE_HZ, 1)).toBe(true);
      await realtime.nextStatus((e) => e.user_id === agent.userId && e.status === 'on_call');
      await agent.hangup();

      // Logins end on one instance, their sockets close on the other: the agent logs out on A,
      // its softphone socket (relayed to B's gateway) is withdrawn by B; the observer logs out on
      // B, its realtime socket on A is closed by A.
      const softphoneClosed = new Promise((resolve) => agent.signal.ws.once('close', resolve));
      expect((await agent.api('POST', '/api/v1/user/logout')).status).toBe(200);
      const withdrawn = await agent.nextFrame((f) => f.type === 'error', 'an error');
      expect(withdrawn.payload).toMatchObject({ error: { code: 31204 } });
      await softphoneClosed;
      expect(realtime.state()).toBe('connected');
      expect((await observer.on(b.url).api('POST', '/api/v1/user/logout')).status).toBe(200);
      await waitUntil(
        () => (realtime?.state() === 'disconnected' ? true : undefined),
        'the observer’s realtime socket on A to be closed',
      );
      await agent.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'B killed while a lead posted to it rings on A: the ring timeout still moves the lead on',
    async () => {
      const a = await startMedia('a2');
      const b = await startRelaying('b2', a);
      const observer = await HttpSession.login(a.url, 'supervisor@example.com');
      const first = await AgentClient.login(a.agentProduct(observer), 'agent1@example.com');
      const second = await AgentClient.login(a.agentProduct(observer), 'agent2@example.com');
      for (const agent of [first, second]) {
        expect(
          (await agent.api('PUT', '/api/v1/user/status', { status: 'available' })).status,
        ).toBe(200);
        expect((await agent.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);
      }

      const posted = await b.postLead({ fname: 'Tim', lname: 'Out', phone_number: '+15550100043' });
      expect(posted.status).toBe(201);
      const rungFirst = posted.body.call.agent_id === first.userId ? first : second;
      const rungNext = rungFirst === first ? second : first;
      await rungFirst.nextInvite();
      // B dies while the lead rings on A; nobody answers the first ring.
      await b.kill();
      const moved = await rungNext.nextInvite(RING_TIMEOUT_MS * 2 + 30_000);
      expect(moved.parameters).toMatchObject({ To: '+15550100043' });
      await rungNext.accept(moved);
      expect(await rungNext.hears(LEAD_TONE_HZ, 1)).toBe(true);
      await rungNext.hangup();
      await first.close();
      await second.close();
    },
    TEST_TIMEOUT_MS,
  );
});
