/**
 * The demo seed's logins and key in a database (issue 36, item 1), on PGlite and (CI's second
 * pass, `DATABASE_URL`) on PostgreSQL: a production start names each one and the command that
 * removes them; the removal takes the demo users (with their sessions and their own traces) and
 * the demo key, and keeps the operator's users, sessions, keys and calls; a production start then
 * passes. The demo's rows are those the seed marked, whatever their e-mail: a demo user an admin
 * renamed is still one, and a user an admin gives a demo e-mail (created or renamed) is not, so
 * no tenant can stop a start or have its user removed.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminUser, updateAdminUser } from '../admin/admin-users-write';
import { SessionStore } from '../auth/sessions';
import { loadConfig } from '../config';
import { serverRoot } from '../lib/app-root';
import { UnsafeProductionError, refuseUnsafeProduction } from '../production-safety';
import { openTestDatabase } from '../test-support/test-database';
import type { Database, Db } from './database';
import { DEMO_API_KEY, DEMO_USER_EMAILS } from './demo-logins';
import { findDemoLeftovers, removeDemoLogins } from './demo-removal';
import {
  accounts,
  apiKeys,
  callUsers,
  calls,
  notes,
  sessions,
  smsMessages,
  supervisionEvents,
  users,
} from './schema';
import { DEMO_PASSWORD, ensureApiKey, seedDemo } from './seed';

/** A production environment whose settings are all right. */
const PRODUCTION = loadConfig({
  LEADLINE_MODE: 'production',
  DATABASE_URL: 'postgres://db.internal/leadline',
  TOKEN_SECRET: 'token-secret-0123456789abcdef-0123456789',
  PUSHER_SECRET: 'pusher-secret-0123456789abcdef',
  LEADLINE_API_KEY: 'intake-key-0123456789abcdef-0123456789',
});
const OPERATOR_KEY = 'operator-intake-key-0123456789abcdef-0123';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let database: Database;
let db: Db;

/** The production start's check on the test's database (left open for the test). */
const checkStart = () =>
  refuseUnsafeProduction(PRODUCTION, () => Promise.resolve({ ...database, close: async () => {} }));

const userId = async (email: string) =>
  (await db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;

/** A tenant admin of account 1 (the operator kept the demo account as theirs). */
const tenantAdmin = async () => ({ userId: await userId('pat@acme-solar.example') });

/** What the demo users' e-mails are once the Admin screen renamed the demo supervisor. */
const RENAMED_SUPERVISOR = 'sam.okafor@acme-solar.example';
const demoEmailsNow = () =>
  DEMO_USER_EMAILS.map((email) =>
    email === 'supervisor@example.com' ? RENAMED_SUPERVISOR : email,
  );

/** Ids of what the test made before the removal. */
let made: {
  operator: number;
  operatorSession: string;
  demoCall: number;
  operatorCall: number;
};

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  await seedDemo(db);
  await ensureApiKey(db, DEMO_API_KEY);
  await ensureApiKey(db, OPERATOR_KEY);
  const agent1 = await userId('agent1@example.com');
  const agent2 = await userId('agent2@example.com');
  const supervisor = await userId('supervisor@example.com');
  const [operator] = await db
    .insert(users)
    .values({
      accountId: 1,
      email: 'pat@acme-solar.example',
      passwordHash: 'x',
      fullName: 'Pat Operator',
    })
    .returning({ id: users.id });
  const store = new SessionStore(db, 3_600_000);
  await store.create(agent1);
  await store.create(supervisor);
  const { cookie } = await store.create(operator!.id);
  // A call agent1 took, with their note and SMS.
  const [demoCall] = await db
    .insert(calls)
    .values({ accountId: 1, sid: 'CA-demo', userId: agent1, status: 'completed' })
    .returning({ id: calls.id });
  await db.insert(callUsers).values({ callId: demoCall!.id, userId: agent1, outcome: 'accepted' });
  await db
    .insert(notes)
    .values({ accountId: 1, callId: demoCall!.id, userId: agent1, content: 'n' });
  await db.insert(smsMessages).values({
    accountId: 1,
    callId: demoCall!.id,
    userId: agent1,
    toNumber: '+15550100042',
    body: 'Thanks',
  });
  // The operator's call, transferred to them by agent2, barged into by the demo supervisor.
  const [operatorCall] = await db
    .insert(calls)
    .values({ accountId: 1, sid: 'CA-operator', userId: operator!.id, status: 'completed' })
    .returning({ id: calls.id });
  await db.insert(callUsers).values([
    { callId: operatorCall!.id, userId: operator!.id, type: 'transfer', invitedByUserId: agent2 },
    { callId: operatorCall!.id, userId: supervisor, type: 'barge', outcome: 'accepted' },
  ]);
  await db
    .insert(supervisionEvents)
    .values({ callId: operatorCall!.id, userId: supervisor, role: 'barge' });
  // The operator's admin renames the demo supervisor in the Admin screen: still the demo's.
  await updateAdminUser(db, { userId: operator!.id }, 1, supervisor, {
    email: RENAMED_SUPERVISOR,
  });
  made = {
    operator: operator!.id,
    operatorSession: sha256(cookie),
    demoCall: demoCall!.id,
    operatorCall: operatorCall!.id,
  };
});

afterAll(async () => {
  await database?.close();
});

describe('a database an embedded start seeded', () => {
  it('holds the demo seed’s logins, each of DEMO_USER_EMAILS (one renamed since), and its key', async () => {
    expect(await findDemoLeftovers(db)).toEqual({ users: demoEmailsNow(), apiKey: true });
  });

  it('refuses a production start, naming the logins, the key and the command, one per line', async () => {
    const refused = await checkStart().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnsafeProductionError);
    expect((refused as Error).message).toBe(
      [
        'Leadline refuses to start in production mode:',
        `- The database holds the demo seed's logins agent1@example.com, agent2@example.com, ${RENAMED_SUPERVISOR}, admin@example.com, agent@a6671.example.com, agent@a9920.example.com, agent@a9420.example.com, agent@a781.example.com (password ${DEMO_PASSWORD}, published in the README): remove them with npm run admin -- remove-demo (with this DATABASE_URL).`,
        '- The database holds the demo API key (demo-api-key, published in the README): remove it with npm run admin -- remove-demo (with this DATABASE_URL).',
      ].join('\n'),
    );
  });
});

describe('the removal', () => {
  it('takes the demo users, their sessions and the demo key, and says so', async () => {
    expect(await removeDemoLogins(db)).toEqual({
      users: demoEmailsNow(),
      apiKey: true,
      sessions: 2,
    });
    expect(await findDemoLeftovers(db)).toEqual({ users: [], apiKey: false });
    const left = await db.select({ userId: sessions.userId }).from(sessions);
    expect(left).toEqual([{ userId: made.operator }]);
  });

  it('keeps the operator’s user, session and key; calls stay, without the demo agent', async () => {
    expect((await db.select({ email: users.email }).from(users)).map((u) => u.email)).toEqual([
      'pat@acme-solar.example',
    ]);
    const [session] = await db.select().from(sessions).where(eq(sessions.id, made.operatorSession));
    expect(session?.userId).toBe(made.operator);
    expect(await db.select({ hash: apiKeys.keyHash }).from(apiKeys)).toEqual([
      { hash: sha256(OPERATOR_KEY) },
    ]);
    const callRows = await db.select({ id: calls.id, userId: calls.userId }).from(calls);
    expect(callRows.sort((a, b) => a.id - b.id)).toEqual([
      { id: made.demoCall, userId: null },
      { id: made.operatorCall, userId: made.operator },
    ]);
    // The operator's ring stays (who transferred it is forgotten); the demo users' traces go.
    expect(
      await db
        .select({ userId: callUsers.userId, invitedBy: callUsers.invitedByUserId })
        .from(callUsers),
    ).toEqual([{ userId: made.operator, invitedBy: null }]);
    expect(await db.select().from(notes)).toEqual([]);
    expect(await db.select().from(smsMessages)).toEqual([]);
    expect(await db.select().from(supervisionEvents)).toEqual([]);
  });

  it('lets production start; a second removal finds nothing', async () => {
    await expect(checkStart()).resolves.toBeUndefined();
    expect(await removeDemoLogins(db)).toEqual({ users: [], apiKey: false, sessions: 0 });
  });
});

describe('a tenant giving its users the demo’s e-mail addresses', () => {
  it('neither stops a production start nor has those users removed', async () => {
    const actor = await tenantAdmin();
    const created = await createAdminUser(db, actor, 1, {
      full_name: 'Not The Demo Admin',
      email: 'admin@example.com',
      password: 'violet harbour lantern 42',
      role: 'admin',
      permissions: [],
      team_ids: [],
    });
    await updateAdminUser(db, actor, 1, made.operator, { email: 'Agent1@Example.com' });
    expect(await findDemoLeftovers(db)).toEqual({ users: [], apiKey: false });
    await expect(checkStart()).resolves.toBeUndefined();
    expect(await removeDemoLogins(db)).toEqual({ users: [], apiKey: false, sessions: 0 });
    const left = await db.select({ id: users.id, email: users.email }).from(users);
    expect(left.sort((a, b) => a.id - b.id)).toEqual([
      { id: made.operator, email: 'Agent1@Example.com' },
      { id: created.id, email: 'admin@example.com' },
    ]);
  });
});

describe('LEADLINE_API_KEY on a database the demo seed made', () => {
  it('goes to the operator’s first account, not to a demo one; the demo’s key to the demo account', async () => {
    const fresh = await openTestDatabase();
    try {
      await seedDemo(fresh.db);
      const [operatorAccount] = await fresh.db
        .insert(accounts)
        .values({ name: 'Operator Co' })
        .returning({ id: accounts.id });
      await ensureApiKey(fresh.db, OPERATOR_KEY);
      await ensureApiKey(fresh.db, DEMO_API_KEY);
      const keys = await fresh.db
        .select({ hash: apiKeys.keyHash, accountId: apiKeys.accountId, demo: apiKeys.demo })
        .from(apiKeys);
      const [demoAccount] = await fresh.db
        .select({ id: accounts.id })
        .from(accounts)
        .where(eq(accounts.name, 'Acme Solar (demo)'));
      expect(keys.sort((a, b) => a.accountId - b.accountId)).toEqual(
        [
          { hash: sha256(DEMO_API_KEY), accountId: demoAccount!.id, demo: true },
          { hash: sha256(OPERATOR_KEY), accountId: operatorAccount!.id, demo: false },
        ].sort((a, b) => a.accountId - b.accountId),
      );
    } finally {
      await fresh.close();
    }
  });
});

describe('a database seeded before the seed marked its rows', () => {
  /** The migration's statements that mark what an older seed made (found by what they do). */
  async function markingStatements(): Promise<string[]> {
    const folder = join(serverRoot(), 'drizzle');
    for (const file of (await readdir(folder)).filter((name) => name.endsWith('.sql'))) {
      const statements = (await readFile(join(folder, file), 'utf8'))
        .split('--> statement-breakpoint')
        .filter((statement) => /UPDATE "\w+" SET "demo" = true/.test(statement));
      if (statements.length > 0) return statements;
    }
    throw new Error('No migration marks the demo rows.');
  }

  it('has the seed’s accounts, its logins in them and the demo key marked by the migration', async () => {
    const old = await openTestDatabase();
    try {
      await seedDemo(old.db);
      await ensureApiKey(old.db, DEMO_API_KEY);
      await ensureApiKey(old.db, OPERATOR_KEY);
      // A user of the operator's own account with a demo address is not one of the seed's.
      const [own] = await old.db
        .insert(accounts)
        .values({ name: 'Operator Co' })
        .returning({ id: accounts.id });
      await old.db
        .update(users)
        .set({ email: 'agent1.old@example.com' })
        .where(eq(users.email, 'agent1@example.com'));
      await old.db.insert(users).values({
        accountId: own!.id,
        email: 'agent1@example.com',
        passwordHash: 'x',
        fullName: 'Their Own Agent One',
      });
      // As the database was before the marker.
      await old.db.update(users).set({ demo: false });
      await old.db.update(accounts).set({ demo: false });
      await old.db.update(apiKeys).set({ demo: false });

      for (const statement of await markingStatements()) await old.db.execute(sql.raw(statement));

      const leftovers = await findDemoLeftovers(old.db);
      expect(leftovers).toEqual({
        users: DEMO_USER_EMAILS.filter((email) => email !== 'agent1@example.com'),
        apiKey: true,
      });
      const marked = await old.db
        .select({ id: accounts.id })
        .from(accounts)
        .where(eq(accounts.demo, true));
      expect(marked.map((row) => row.id).sort((a, b) => a - b)).toEqual([1, 781, 6671, 9420, 9920]);
      const keys = await old.db
        .select({ hash: apiKeys.keyHash })
        .from(apiKeys)
        .where(eq(apiKeys.demo, true));
      expect(keys).toEqual([{ hash: sha256(DEMO_API_KEY) }]);
    } finally {
      await old.close();
    }
  });
});
