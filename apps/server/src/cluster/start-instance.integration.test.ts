/**
 * Starts beside an instance that holds the media lease (issue 38), on a scratch PostgreSQL
 * database whose lease another instance (here, the test) holds: a follower without the secrets
 * every instance must share refuses with its sentence before it opens anything else; a
 * Twilio-mode instance starts as one of equals, without the lease (Twilio carries the media),
 * and says so on `/healthz`.
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
import { requestJson } from '../test-support/http-json';
import { TwilioApiStandIn } from '../test-support/twilio-api-stand-in';
import { twilioProductionEnv } from '../test-support/twilio-leadline';
import { readLiveLeader } from './leader-directory';
import { MediaLease, pgLeaseConnection } from './media-lease';
import { FOLLOWER_NEEDS_SECRETS, startInstance } from './start-instance';

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

describe.runIf(process.env.DATABASE_URL)('starting beside the lease holder', () => {
  it('a Twilio-mode instance starts as one of equals: no lease, /healthz says twilio', async () => {
    const standIn = await TwilioApiStandIn.start();
    try {
      const config = loadConfig({
        ...database.env,
        ...twilioProductionEnv(standIn.url, 'start-instance-lead-key-0123456789'),
        HOST: '127.0.0.1',
        DATA_DIR: join(dataDir, 'twilio'),
        PORT: '0',
        LOG_LEVEL: 'silent',
      });
      const instance = await startInstance(config, instanceProcess);
      try {
        expect(instance.role()).toBe('twilio');
        const health = await requestJson('GET', `${instance.url}/healthz`);
        expect(health.body).toEqual({ ok: true, media: { role: 'twilio', epoch: null } });
        // The lease and the leader's row are the other instance's still.
        expect(held.state).toBe('leading');
        const opened = await database.open();
        try {
          expect(await readLiveLeader(opened.db)).toMatchObject({
            url: 'http://10.0.0.5:3000',
            epoch: held.epoch,
          });
        } finally {
          await opened.close();
        }
      } finally {
        await instance.close();
      }
      expect(exits).toEqual([]);
    } finally {
      await standIn.close();
    }
  }, 120_000);

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
