/**
 * Catalog changes on every instance without a restart (issue 37): two applications on one
 * PostgreSQL database, each with its own instance bus (`LISTEN`/`NOTIFY`) and admin changes, as
 * `leadline.ts` and the relay wire them. The media instance (M) runs the calls and takes leads;
 * the other (R) serves the admin. A key R deletes is refused by M as soon as the bus delivers
 * the change, although M had just used it (its cache would trust it 30 s); a profile's hours
 * R changes apply to M's next lead although M had just read that profile (5 s cache).
 *
 * Needs PostgreSQL (`DATABASE_URL`: the second pass of the server tests); PGlite is one
 * process's database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS } from '@leadline/voice';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import { CallControl } from '../calls/call-control';
import { CallFlows } from '../calls/call-flows';
import type { Database } from '../db/database';
import { users } from '../db/schema';
import { DEMO_PASSWORD, seedDemo } from '../db/seed';
import { EventBus } from '../events/event-bus';
import { PgInstanceBus } from '../events/instance-bus';
import { NetworkTests } from '../network-test/network-tests';
import { SandboxSmsSender, SmsService } from '../sms/sms-sender';
import { FakeTelephony } from '../telephony/fake-telephony';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { TEST_PUSHER, TEST_TOKEN_SECRET, login, type Agent } from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';
import { AdminChanges, forgetOnAdminChange } from './admin-changes';

const url = process.env.DATABASE_URL;
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
/** Far below the API-key cache's 30 s and the settings cache's 5 s. */
const BUS_WAIT_MS = 3_000;

let dataDir: string;
let persisted: PersistedDatabase;
const databases: Database[] = [];
const buses: PgInstanceBus[] = [];
const closers: Array<() => Promise<void> | void> = [];
let media: { app: FastifyInstance; telephony: FakeTelephony; flows: CallFlows };
let other: FastifyInstance;
let admin: Agent;

/** Opens the shared database and a bus of this instance on it. */
async function instanceParts() {
  const database = await persisted.open();
  databases.push(database);
  const bus = await PgInstanceBus.open(persisted.env.DATABASE_URL!, logger);
  buses.push(bus);
  const adminChanges = new AdminChanges({ bus, log: logger });
  closers.push(() => adminChanges.stop());
  const { db } = database;
  return {
    db,
    adminChanges,
    common: {
      db,
      adminChanges,
      sessions: new SessionStore(db, 3_600_000),
      tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
      loginThrottle: new LoginThrottle(db),
      pusher: TEST_PUSHER,
    },
  };
}

const options = { logger, trustProxy: false as const, webDistDir: '/nonexistent' };

beforeAll(async () => {
  if (!url) return;
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-catalog-instances-'));
  persisted = await createPersistedDatabase(dataDir);

  // M: the calls, as leadline.ts wires them.
  const m = await instanceParts();
  await seedDemo(m.db);
  await m.db.insert(users).values({
    accountId: 1,
    email: 'catalog.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Ada Admin',
    role: 'admin',
  });
  const telephony = new FakeTelephony();
  const flows = new CallFlows({
    db: m.db,
    telephony,
    log: logger,
    ringTimeoutMs: 30_000,
    events: new EventBus(),
  });
  await flows.start();
  forgetOnAdminChange(m.adminChanges, { settings: flows.settings });
  const networkTests = new NetworkTests({
    telephony,
    holdBack: (user) => flows.holdAgentBack(user),
    echoNumber: SANDBOX_NUMBERS.echo,
    log: logger,
  });
  const mediaApp = await buildApp(
    {
      ...m.common,
      flows,
      control: new CallControl(m.db, flows),
      sms: new SmsService(m.db, new SandboxSmsSender()),
      networkTests,
    },
    options,
  );
  closers.push(async () => {
    networkTests.close();
    flows.stop();
    await mediaApp.close();
    await flows.idle();
  });
  media = { app: mediaApp, telephony, flows };

  // R: an instance relaying the calls (never reached here), serving the admin.
  const r = await instanceParts();
  other = await buildApp(
    { ...r.common, relayTo: 'http://127.0.0.1:9' },
    { ...options, relaySecret: 'catalog-instances-token-secret-0123456789' },
  );
  closers.push(() => other.close());
  admin = await login(other, 'catalog.admin@example.com');
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  for (const bus of buses) await bus.close();
  for (const database of databases) await database.close();
  await persisted?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** An admin request on R. */
function onOther(method: InjectOptions['method'], path: string, payload?: unknown) {
  return other.inject({
    method,
    url: path,
    headers: { cookie: admin.cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': admin.csrf }) },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** A lead posted to M with `key`. */
const leadOnMedia = (key: string, payload: unknown) =>
  media.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    headers: { authorization: `Bearer ${key}` },
    payload: payload as InjectOptions['payload'],
  });

describe.runIf(url)('catalog changes on two instances of one PostgreSQL database', () => {
  it('a key deleted on one instance is refused by the other at once, although it had just used it', async () => {
    const profile = await onOther('POST', '/api/v1/admin/profiles', { name: 'Two instances' });
    expect(profile.statusCode, profile.body).toBe(201);
    const profileId = profile.json<{ data: { id: number } }>().data.id;
    const made = await onOther('POST', '/api/v1/admin/api-keys', {
      name: 'Shared',
      profile_id: profileId,
    });
    expect(made.statusCode, made.body).toBe(201);
    const { id, key } = made.json<{ data: { id: number; key: string } }>().data;

    // M takes a lead with it (nobody is online: it waits), and now remembers the key.
    const lead = await leadOnMedia(key, { fname: 'Ivy', phone_number: '+15550100701' });
    expect(lead.statusCode, lead.body).toBe(201);
    // An empty body is refused after the key is checked: 422 while M accepts the key.
    expect((await leadOnMedia(key, {})).statusCode).toBe(422);

    // Hours closed on R: M's next lead for that profile is outside its hours.
    const closed = await onOther('PATCH', `/api/v1/admin/profiles/${profileId}`, {
      hours: { time_zone: 'UTC', days: {} },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    await waitUntil(
      async () =>
        (await media.flows.settings.profile(profileId))?.availability ? true : undefined,
      "M to read the profile's new hours",
      BUS_WAIT_MS,
    );
    const outside = await leadOnMedia(key, { fname: 'Ivy', phone_number: '+15550100702' });
    expect(outside.json<{ call: { reason: string | null } }>().call.reason).toBe('outside-hours');

    const deleted = await onOther('DELETE', `/api/v1/admin/api-keys/${id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const status = await waitUntil(
      async () => {
        const res = await leadOnMedia(key, {});
        return res.statusCode === 422 ? undefined : res.statusCode;
      },
      'M to refuse the deleted key',
      BUS_WAIT_MS,
    );
    expect(status).toBe(401);
  });
});
