/**
 * Starts that the media lease refuses (issue 38, item 3), on a scratch PostgreSQL database whose
 * lease another instance (here, the test) holds: a second Twilio-mode instance, which would
 * route beside the first, and a follower without the secrets every instance must share. Each
 * refuses with its sentence before it opens anything else.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { TWILIO_TEST_ENV } from '../test-support/twilio-leadline';
import { MediaLease, pgLeaseConnection } from './media-lease';
import {
  FOLLOWER_NEEDS_SECRETS,
  TWILIO_SECOND_INSTANCE_REFUSED,
  startInstance,
} from './start-instance';

let dataDir: string;
let database: PersistedDatabase;
let held: MediaLease;
const exits: number[] = [];
const instanceProcess = { exit: (code: number) => void exits.push(code) };

beforeAll(async () => {
  if (!process.env.DATABASE_URL) return;
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-start-instance-'));
  database = await createPersistedDatabase(dataDir);
  await (await database.open()).close();
  // Another instance leads.
  held = new MediaLease({
    connect: pgLeaseConnection(database.env.DATABASE_URL!),
    instanceId: randomUUID(),
    log: { info: () => undefined, warn: () => undefined },
  });
  expect(await held.start()).toBe('leading');
  await held.announce('http://10.0.0.5:3000');
}, 60_000);

afterAll(async () => {
  await held?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(process.env.DATABASE_URL)('an instance the lease refuses', () => {
  it('a second Twilio-mode instance on the database refuses to start', async () => {
    const config = loadConfig({
      ...database.env,
      ...TWILIO_TEST_ENV,
      LEADLINE_MODE: 'production',
      TOKEN_SECRET: 'start-instance-token-secret-0123456789abcdef',
      PUSHER_SECRET: 'start-instance-pusher-secret-0123',
      LEADLINE_API_KEY: 'start-instance-lead-key-0123456789',
      DATA_DIR: join(dataDir, 'twilio'),
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    await expect(startInstance(config, instanceProcess)).rejects.toThrow(
      TWILIO_SECOND_INSTANCE_REFUSED,
    );
    expect(exits).toEqual([]);
  }, 60_000);

  it('an embedded instance that would follow without TOKEN_SECRET and PUSHER_SECRET refuses to start', async () => {
    const config = loadConfig({
      ...database.env,
      DATA_DIR: join(dataDir, 'follower'),
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    await expect(startInstance(config, instanceProcess)).rejects.toThrow(FOLLOWER_NEEDS_SECRETS);
    expect(exits).toEqual([]);
  }, 60_000);
});
