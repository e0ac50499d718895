/**
 * `npm run admin -- …`, the first account made and an unknown command as an operator runs it (a
 * child process of npm at the repository's root), the rest the same command in this process;
 * the password on standard input, on a fresh database — the embedded PGlite
 * under a new DATA_DIR, and (with `DATABASE_URL`, the PostgreSQL pass) a new scratch database on
 * that server. create-account prints `{"account_id":N,"user_id":M}` last and its admin logs in;
 * an e-mail taken (in another case), a weak password, a missing option, an unknown command and
 * a database that cannot be reached each exit 1 with one sentence (no stack trace) and write
 * nothing; reset-password changes the password and ends the user's sessions; remove-demo runs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAuditEntry, UserResponse } from '@leadline/contracts';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { SessionStore } from '../auth/sessions';
import type { Database } from '../db/database';
import { accounts, users } from '../db/schema';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { TEST_PUSHER, TEST_TOKEN_SECRET } from '../test-support/test-app';
import { expectRefused, lastLineOf, runAdmin, runAdminHere } from '../test-support/admin-cli';

/**
 * The command in this process (`runAdminHere`): the same code as the script runs. The script's
 * own wiring (its exit code, its sentence on stderr, npm's folder) is shown by the runs of
 * `runAdmin` below: the first account made and an unknown command.
 */
const admin = runAdminHere;
const lastLine = lastLineOf;

/** Opens the database (PGlite: no command may run meanwhile) with an app on it, then closes. */
async function withApp<T>(
  persisted: PersistedDatabase,
  use: (app: FastifyInstance, database: Database) => Promise<T>,
): Promise<T> {
  const database = await persisted.open();
  const { db } = database;
  const app = await buildApp(
    {
      db,
      sessions: new SessionStore(db, 3_600_000),
      tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
      loginThrottle: new LoginThrottle(db),
      pusher: TEST_PUSHER,
      relayTo: 'http://127.0.0.1:9',
    },
    {
      logger: pino({ level: 'silent' }),
      trustProxy: false,
      webDistDir: '/nonexistent',
      relaySecret: 'people-admin-command-token-secret-0123456789',
    },
  );
  try {
    return await use(app, database);
  } finally {
    await app.close();
    await database.close();
  }
}

const loginWith = (app: FastifyInstance, email: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/v1/user/login', payload: { email, password } });

const cookieOf = (res: { cookies: Array<{ name: string; value: string }> }) =>
  `leadline_session=${res.cookies.find((c) => c.name === 'leadline_session')!.value}`;

const PASSWORD = 'first-admin-password-1';
const NEW_PASSWORD = 'second-admin-password-2';
const EMAIL = 'Owner@Newco.example';

/** The whole walk on one database. */
function commandSuite(kind: 'pglite' | 'pg') {
  let dataDir: string;
  let persisted: PersistedDatabase;
  let env: Record<string, string>;
  let created: { account_id: number; user_id: number };
  /** A session of the admin from before the password reset. */
  let oldCookie: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `leadline-admin-command-${kind}-`));
    persisted = await createPersistedDatabase(
      dataDir,
      kind === 'pg' ? process.env.DATABASE_URL : undefined,
    );
    env = { DATA_DIR: dataDir, ...persisted.env };
  });
  afterAll(async () => {
    await persisted?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('create-account makes the account and its admin; the last line is {"account_id":N,"user_id":M}', async () => {
    const run = await runAdmin(
      [
        'create-account',
        '--name',
        'Newco Sales',
        '--admin-email',
        EMAIL,
        '--password-stdin',
        '--country',
        'gb',
        '--time-zone',
        'Europe/London',
      ],
      env,
      `${PASSWORD}\n`,
    );
    expect(run.code, run.stderr).toBe(0);
    const last = lastLine(run.stdout)!;
    expect(last).toMatch(/^\{"account_id":\d+,"user_id":\d+\}$/);
    created = JSON.parse(last) as typeof created;
    expect(run.stdout).not.toContain(PASSWORD);
  }, 120_000);

  it('its admin logs in (the e-mail in any case) and sees the account and its audit', async () => {
    await withApp(persisted, async (app) => {
      const res = await loginWith(app, EMAIL.toLowerCase(), PASSWORD);
      expect(res.statusCode, res.body).toBe(200);
      oldCookie = cookieOf(res);
      const me = await app.inject({
        method: 'GET',
        url: '/api/v1/user',
        headers: { cookie: oldCookie },
      });
      const { user } = me.json<UserResponse>();
      expect(user).toMatchObject({
        id: created.user_id,
        account_id: created.account_id,
        email: EMAIL,
        role: 'admin',
      });
      const account = await app.inject({
        method: 'GET',
        url: '/api/v1/admin/account',
        headers: { cookie: oldCookie },
      });
      expect(account.json()).toMatchObject({
        data: {
          id: created.account_id,
          name: 'Newco Sales',
          country_code: 'GB',
          time_zone: 'Europe/London',
        },
      });
      const audit = await app.inject({
        method: 'GET',
        url: '/api/v1/admin/audit',
        headers: { cookie: oldCookie },
      });
      const entries = audit.json<{ data: AdminAuditEntry[] }>().data;
      expect(entries.map((e) => [e.action, e.target, e.actor])).toEqual([
        ['user.create', `user:${created.user_id}`, null],
        ['account.create', `account:${created.account_id}`, null],
      ]);
      expect(JSON.stringify(entries)).not.toContain(PASSWORD);
    });
  }, 60_000);

  it('refuses an e-mail taken (in another case), a weak password and a missing option: exit 1, one sentence, nothing written', async () => {
    const taken = await admin(
      [
        'create-account',
        '--name',
        'Copycat',
        '--admin-email',
        EMAIL.toUpperCase(),
        '--password-stdin',
      ],
      env,
      'a-fine-password-here\n',
    );
    expectRefused(taken, 'A user with this email already exists.');
    const weak = await admin(
      [
        'create-account',
        '--name',
        'Weakling',
        '--admin-email',
        'weak@newco.example',
        '--password-stdin',
      ],
      env,
      '12345\n',
    );
    expectRefused(weak, 'The password must be at least 12 characters.');
    // The demo's published password, whatever the mode this shell runs in.
    const demo = await admin(
      [
        'create-account',
        '--name',
        'Demo Copy',
        '--admin-email',
        'demo.copy@newco.example',
        '--password-stdin',
      ],
      env,
      'leadline-demo\n',
    );
    expectRefused(
      demo,
      "The password may not be the public demo's (leadline-demo): choose another.",
    );
    const missing = await admin(['create-account', '--name', 'Nameless', '--password-stdin'], env);
    expectRefused(missing, 'The --admin-email option is required.');
    const noStdin = await admin(
      ['create-account', '--name', 'Nameless', '--admin-email', 'x@newco.example'],
      env,
    );
    expectRefused(noStdin, /^The --password-stdin option is required/);
    await withApp(persisted, async (_app, database) => {
      const [{ n: accountCount } = { n: -1 }] = await database.db
        .select({ n: count() })
        .from(accounts);
      const [{ n: userCount } = { n: -1 }] = await database.db.select({ n: count() }).from(users);
      expect([accountCount, userCount]).toEqual([1, 1]);
    });
  }, 180_000);

  it('reset-password sets the new password (strength checked) and ends the sessions', async () => {
    const weak = await admin(
      ['reset-password', '--email', EMAIL, '--password-stdin'],
      env,
      'owner-newco-example-x\n',
    );
    expectRefused(weak, 'The password may not contain the e-mail address.');
    const demo = await admin(
      ['reset-password', '--email', EMAIL, '--password-stdin'],
      env,
      'leadline-demo\n',
    );
    expectRefused(
      demo,
      "The password may not be the public demo's (leadline-demo): choose another.",
    );
    const unknown = await admin(
      ['reset-password', '--email', 'nobody@newco.example', '--password-stdin'],
      env,
      `${NEW_PASSWORD}\n`,
    );
    expectRefused(unknown, /^No user has the email nobody@newco\.example in the /);
    const run = await admin(
      ['reset-password', '--email', EMAIL.toLowerCase(), '--password-stdin'],
      env,
      `${NEW_PASSWORD}\n`,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(lastLine(run.stdout)).toBe(
      `Changed the password of ${EMAIL.toLowerCase()} (user ${created.user_id}); 1 session ended.`,
    );
    await withApp(persisted, async (app) => {
      const old = await app.inject({
        method: 'GET',
        url: '/api/v1/user',
        headers: { cookie: oldCookie },
      });
      expect(old.statusCode).toBe(401);
      expect((await loginWith(app, EMAIL, PASSWORD)).statusCode).toBe(401);
      expect((await loginWith(app, EMAIL, NEW_PASSWORD)).statusCode).toBe(200);
    });
  }, 180_000);

  it('remove-demo finds no demo seed in a database made by create-account', async () => {
    const run = await admin(['remove-demo'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(lastLine(run.stdout)).toMatch(/^Nothing of the demo seed is in the /);
  }, 120_000);
}

describe('on the embedded PGlite (DATA_DIR)', () => commandSuite('pglite'));

describe.runIf(process.env.DATABASE_URL)('on a fresh PostgreSQL database (DATABASE_URL)', () =>
  commandSuite('pg'),
);

describe('whatever the database', () => {
  it('an unknown command exits 1 with the usage', async () => {
    const run = await runAdmin(['make-coffee'], {});
    expectRefused(run, 'Unknown command make-coffee.');
    expect(run.stderr).toContain('Usage: npm run admin -- <command>');
  }, 120_000);

  it('a database that cannot be reached exits 1 with a sentence naming why', async () => {
    const run = await admin(
      [
        'create-account',
        '--name',
        'Nowhere',
        '--admin-email',
        'a@nowhere.example',
        '--password-stdin',
      ],
      { DATABASE_URL: 'postgres://leadline@127.0.0.1:1/leadline' },
      'a-perfectly-fine-password\n',
    );
    expectRefused(
      run,
      'The database at DATABASE_URL cannot be opened: connect ECONNREFUSED 127.0.0.1:1.',
    );
  }, 120_000);
});
