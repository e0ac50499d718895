/**
 * Device presence through the composition root (issue 38): two products with
 * `TELEPHONY_PROVIDER=twilio` on one PostgreSQL database, each with its instance bus
 * (`LISTEN`/`NOTIFY`) and its embedded realtime endpoint, Twilio's REST API a stand-in on
 * loopback. An agent's console on the first instance keeps them online when the second starts
 * (it used to mark everyone offline), both instances' `isOnline` say so, and closing the console
 * takes them offline on both. Needs PostgreSQL (`DATABASE_URL`): on PGlite one process is the
 * only instance.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/database';
import { devicePresence, users } from '../db/schema';
import { seedDemo } from '../db/seed';
import { startLeadline, type Leadline } from '../leadline';
import { HttpSession } from '../test-support/http-session';
import { openRealtimeClient } from '../test-support/realtime-client';
import type { TwilioApiStandIn } from '../test-support/twilio-api-stand-in';
import { givePasswordToAll, PRODUCTION_TEST_PASSWORD } from '../test-support/production-logins';
import { startTwilioAccountStandIn, twilioProductionEnv } from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';

const url = process.env.DATABASE_URL;

describe.runIf(url)('device presence of two Twilio instances on one PostgreSQL database', () => {
  let scratchUrl: string;
  let scratchName: string;
  let dataDir: string;
  let standIn: TwilioApiStandIn;
  const databases: Database[] = [];
  const products: Leadline[] = [];

  beforeAll(async () => {
    scratchName = `leadline_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${scratchName}`);
    await admin.end();
    const target = new URL(url!);
    target.pathname = `/${scratchName}`;
    scratchUrl = target.toString();
    dataDir = await mkdtemp(join(tmpdir(), 'leadline-presence-'));
    standIn = await startTwilioAccountStandIn(['+15550100999']);
  });

  afterAll(async () => {
    for (const product of products.splice(0)) await product.close().catch(() => undefined);
    for (const database of databases.splice(0)) await database.close().catch(() => undefined);
    await standIn?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    const cleanup = new pg.Client({ connectionString: url });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${scratchName} with (force)`);
    await cleanup.end();
  });

  /** Starts one instance of the product on the scratch database. */
  const startInstance = async (): Promise<Leadline> => {
    const loaded = loadConfig({
      ...twilioProductionEnv(standIn.url),
      DATABASE_URL: scratchUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      WEB_DIST_DIR: join(dataDir, 'no-web'),
    });
    const config: Config = loaded;
    const database = await openDatabase({ url: scratchUrl });
    databases.push(database);
    if (products.length === 0) {
      await seedDemo(database.db);
      // Production: the demo's password signs nobody in.
      await givePasswordToAll(database.db);
    }
    const product = await startLeadline(config, { database });
    products.push(product);
    return product;
  };

  it('the second instance’s start leaves the first one’s agent online; both know it; the console closed, both know them offline', async () => {
    const a = await startInstance();
    const session = await HttpSession.login(a.url, 'agent1@example.com', PRODUCTION_TEST_PASSWORD);
    const identity = String(session.userId);
    const console = await openRealtimeClient(session);
    await waitUntil(
      () => (a.telephony.isOnline(identity) ? true : undefined),
      'agent1 online on A',
    );
    const db = a.database.db;
    const online = async () => {
      const [row] = await db
        .select({ online: users.isOnlineApp })
        .from(users)
        .where(eq(users.id, session.userId));
      return row!.online;
    };
    await waitUntil(async () => ((await online()) ? true : undefined), 'agent1 online in the db');

    const b = await startInstance();
    expect(await online()).toBe(true);
    expect(b.telephony.isOnline(identity)).toBe(true);
    expect(a.telephony.isOnline(identity)).toBe(true);
    expect(
      await db
        .select({ holder: devicePresence.instanceId })
        .from(devicePresence)
        .where(eq(devicePresence.userId, session.userId)),
    ).toEqual([{ holder: a.bus.instanceId }]);

    console.close();
    await waitUntil(async () => ((await online()) ? undefined : true), 'agent1 offline in the db');
    await waitUntil(
      () => (b.telephony.isOnline(identity) ? undefined : true),
      'B to know agent1 offline',
    );
    expect(a.telephony.isOnline(identity)).toBe(false);
  });
});
