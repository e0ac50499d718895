/**
 * The Twilio account's numbers are the operator's to give (docs/deployment.md): each is assigned
 * to one account (`npm run admin -- assign-number`; here its service, the command itself is in
 * `number-assignment-command.integration.test.ts`). A tenant's admin lists only the numbers
 * assigned to its own account, makes caller numbers of those alone, and is refused another
 * account's number and an unassigned one with one and the same 422 and sentence (nothing tells
 * whether another tenant has it, even when that tenant uses it as a caller number); an inbound
 * call to a number goes only to the account it is assigned to. Account A is the demo account (1),
 * B the seeded account 6671; the admin routes run on an application built as a Twilio install's
 * (its `numbers` service on the REST stand-in), and the inbound calls on the product started
 * with `TELEPHONY_PROVIDER=twilio`. A database from before the assignments keeps its caller
 * numbers: the migration assigns each to the account that has it.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { count, eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import { auditLog, callerNumbers, calls, numberAssignments, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { serverRoot } from '../lib/app-root';
import { ACCOUNT_B } from '../test-support/fixture';
import { TwilioApiStandIn, standInClient } from '../test-support/twilio-api-stand-in';
import { startTwilioLeadline, type TwilioLeadline } from '../test-support/twilio-leadline';
import {
  TEST_PUSHER,
  TEST_TOKEN_SECRET,
  login,
  startTestApp,
  type Agent,
  type TestApp,
} from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';
import { twilioNumberInventory } from '../twilio/twilio-number-inventory';
import { createCallerNumber } from './admin-caller-numbers';
import { SYSTEM_ACTOR } from './audit';
import { assignNumber } from './number-assignments';

const ACCOUNT_A = 1;
/** Seeded: A's main line (a caller number of A) and B's line (a caller number of B). */
const A_MAIN_LINE = '+15550142000';
const B_LINE = '+15550156671';
/** Assigned here: one to each account, and one the Twilio account holds that nobody has. */
const A_OWN = '+15005550101';
const B_OWN = '+15005550202';
const UNASSIGNED = '+15005550303';

const REFUSAL = {
  status: 422,
  body: {
    error:
      'This number is not assigned to your account: ask your Leadline operator to assign it to you.',
  },
};

describe('a tenant admin with Twilio', () => {
  let t: TestApp;
  let standIn: TwilioApiStandIn;
  let app: FastifyInstance;
  let adminA: Agent;
  let adminB: Agent;

  beforeAll(async () => {
    t = await startTestApp();
    standIn = await TwilioApiStandIn.start();
    standIn.numbers = [A_OWN, B_OWN, UNASSIGNED, A_MAIN_LINE, B_LINE];
    const { db } = t.database;
    const inventory = twilioNumberInventory(standInClient(standIn));
    await assignNumber(db, SYSTEM_ACTOR, ACCOUNT_A, A_OWN, inventory);
    await assignNumber(db, SYSTEM_ACTOR, ACCOUNT_B, B_OWN, inventory);
    app = await buildApp(
      {
        db,
        sessions: new SessionStore(db, 3_600_000),
        tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
        loginThrottle: new LoginThrottle(db),
        pusher: TEST_PUSHER,
        numbers: inventory,
        // The call routes are not what this test asks about.
        relayTo: 'http://127.0.0.1:9',
      },
      {
        logger: pino({ level: 'silent' }),
        trustProxy: false,
        webDistDir: '/nonexistent',
        relaySecret: 'number-assignments-token-secret-0123456789',
      },
    );
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    await db.insert(users).values([
      {
        accountId: ACCOUNT_A,
        email: 'numbers.a@example.com',
        passwordHash,
        fullName: 'Ada A',
        role: 'admin',
      },
      {
        accountId: ACCOUNT_B,
        email: 'numbers.b@example.com',
        passwordHash,
        fullName: 'Bea B',
        role: 'admin',
      },
    ]);
    adminA = await login(app, 'numbers.a@example.com');
    adminB = await login(app, 'numbers.b@example.com');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
    await t?.close();
  });

  function send(admin: Agent, method: InjectOptions['method'], url: string, payload?: unknown) {
    return app.inject({
      method,
      url,
      headers: {
        cookie: admin.cookie,
        ...(method === 'GET' ? {} : { 'x-csrf-token': admin.csrf }),
      },
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
  }
  const answer = (res: { statusCode: number; json(): unknown }) => ({
    status: res.statusCode,
    body: res.json(),
  });
  const available = async (admin: Agent) => {
    const res = await send(admin, 'GET', '/api/v1/admin/caller-numbers/available');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Array<{ phone_number: string; in_use: boolean }> }>();
  };
  const rowsOf = (phone: string) =>
    t.database.db
      .select({ accountId: callerNumbers.accountId, name: callerNumbers.name })
      .from(callerNumbers)
      .where(eq(callerNumbers.phoneNumber, phone));
  const audits = async () => (await t.database.db.select({ n: count() }).from(auditLog))[0]!.n;

  it('lists only the numbers assigned to its own account', async () => {
    expect(await available(adminA)).toEqual({
      data: [
        expect.objectContaining({ phone_number: A_OWN, in_use: false }),
        expect.objectContaining({ phone_number: A_MAIN_LINE, in_use: true }),
      ],
      provider_checked: true,
    });
    expect(await available(adminB)).toEqual({
      data: [
        expect.objectContaining({ phone_number: B_OWN, in_use: false }),
        expect.objectContaining({ phone_number: B_LINE, in_use: true }),
      ],
      provider_checked: true,
    });
  });

  it("cannot claim another account's number or an unassigned one: the same 422 and sentence, nothing stored", async () => {
    const auditsBefore = await audits();
    const [mainLine] = await t.database.db
      .select()
      .from(callerNumbers)
      .where(eq(callerNumbers.phoneNumber, A_MAIN_LINE));
    // B's assigned number, B's caller number (once a 409 that told it was taken), one assigned
    // to nobody, and B's number written another way.
    for (const phone of [B_OWN, B_LINE, UNASSIGNED, '(500) 555-0202']) {
      const added = await send(adminA, 'POST', '/api/v1/admin/caller-numbers', {
        name: 'Taken',
        phone_number: phone,
      });
      expect(answer(added), phone).toEqual(REFUSAL);
      const changed = await send(adminA, 'PATCH', `/api/v1/admin/caller-numbers/${mainLine!.id}`, {
        phone_number: phone,
      });
      expect(answer(changed), phone).toEqual(REFUSAL);
    }
    expect(await rowsOf(B_OWN)).toEqual([]);
    expect(await rowsOf(UNASSIGNED)).toEqual([]);
    expect(await rowsOf(B_LINE)).toEqual([{ accountId: ACCOUNT_B, name: 'Account 6671 line' }]);
    expect(await rowsOf(A_MAIN_LINE)).toEqual([
      { accountId: ACCOUNT_A, name: 'Acme Solar main line' },
    ]);
    expect(await audits()).toBe(auditsBefore);
  });

  it('can claim its own; then the other account still gets the same refusal for it', async () => {
    const added = await send(adminA, 'POST', '/api/v1/admin/caller-numbers', {
      name: 'A support line',
      phone_number: A_OWN,
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(await rowsOf(A_OWN)).toEqual([{ accountId: ACCOUNT_A, name: 'A support line' }]);
    expect((await available(adminA)).data).toContainEqual(
      expect.objectContaining({ phone_number: A_OWN, in_use: true }),
    );
    const refused = await send(adminB, 'POST', '/api/v1/admin/caller-numbers', {
      name: 'Mine now',
      phone_number: A_OWN,
    });
    expect(answer(refused)).toEqual(REFUSAL);
    expect(await rowsOf(A_OWN)).toEqual([{ accountId: ACCOUNT_A, name: 'A support line' }]);
  });

  it('sees a number assigned to it since, without a restart', async () => {
    expect((await available(adminB)).data.map((row) => row.phone_number)).not.toContain(UNASSIGNED);
    await assignNumber(t.database.db, SYSTEM_ACTOR, ACCOUNT_B, UNASSIGNED);
    expect((await available(adminB)).data).toContainEqual(
      expect.objectContaining({ phone_number: UNASSIGNED, in_use: false }),
    );
    expect((await available(adminA)).data.map((row) => row.phone_number)).not.toContain(UNASSIGNED);
    const added = await send(adminB, 'POST', '/api/v1/admin/caller-numbers', {
      name: 'B new line',
      phone_number: UNASSIGNED,
    });
    expect(added.statusCode, added.body).toBe(201);
  });
});

describe('inbound calls with Twilio', () => {
  let product: TwilioLeadline;
  let callSid = 1;
  const nextCallSid = () => `CA${'f'.repeat(24)}${String(callSid++).padStart(8, '0')}`;

  beforeAll(async () => {
    product = await startTwilioLeadline();
  }, 120_000);
  afterAll(() => product?.close());

  /** A phone calls `to`: Twilio's voice webhook and what it answered. */
  const callIn = (from: string, to: string) =>
    product.cloud.voice({ From: from, To: to, CallSid: nextCallSid() });
  const callsFrom = (from: string) =>
    product.db
      .select({ accountId: calls.accountId })
      .from(calls)
      .where(eq(calls.phoneNumber, from));

  it("a call to a number assigned to account B never reaches account A, even with A's caller number on it", async () => {
    const [number] = product.standIn.numbers;
    const inventory = product.leadline.twilio!.inventory;
    // Account A's caller number on the number, as a database from before the assignments could
    // hold one (or a row written behind the admin API's back).
    const [stale] = await product.db
      .insert(callerNumbers)
      .values({ accountId: ACCOUNT_A, name: 'Claimed first', phoneNumber: number! })
      .returning();

    // Assigned to nobody: refused.
    const first = '+15550107101';
    expect(await callIn(first, number!)).toContain('<Reject');
    // Assigned to B: still refused, A's caller number notwithstanding.
    await product.db.delete(callerNumbers).where(eq(callerNumbers.id, stale!.id));
    await assignNumber(product.db, SYSTEM_ACTOR, ACCOUNT_B, number!, inventory);
    await product.db
      .insert(callerNumbers)
      .values({ accountId: ACCOUNT_A, name: 'Claimed first', phoneNumber: number! });
    const second = '+15550107102';
    expect(await callIn(second, number!)).toContain('<Reject');
    await product.leadline.flows.idle();
    expect(await callsFrom(first)).toEqual([]);
    expect(await callsFrom(second)).toEqual([]);

    // B makes the number its caller number (A's row gone): the call is B's.
    await product.db.delete(callerNumbers).where(eq(callerNumbers.phoneNumber, number!));
    await createCallerNumber(
      product.db,
      SYSTEM_ACTOR,
      ACCOUNT_B,
      { name: 'B support', phone_number: number! },
      inventory,
    );
    // Nobody of B is online, so Twilio may be told to reject it too: the call row says whose it is.
    const third = '+15550107103';
    await callIn(third, number!);
    const rows = await waitUntil(async () => {
      const found = await callsFrom(third);
      return found.length > 0 ? found : undefined;
    }, "the call to B's number");
    expect(rows).toEqual([{ accountId: ACCOUNT_B }]);
  }, 60_000);
});

describe('a database from before the assignments', () => {
  it('keeps its caller numbers: the migration assigns each to the account that has it', async () => {
    // The migrations up to the one that makes the assignments, in a folder of their own.
    const real = join(serverRoot(), 'drizzle');
    const before = await mkdtemp(join(tmpdir(), 'leadline-migrations-'));
    const client = await PGlite.create('memory://');
    try {
      await cp(real, before, { recursive: true });
      const journalPath = join(before, 'meta', '_journal.json');
      const journal = JSON.parse(await readFile(journalPath, 'utf8')) as {
        entries: Array<{ idx: number; tag: string }>;
      };
      let first = Infinity;
      for (const entry of journal.entries) {
        const text = await readFile(join(real, `${entry.tag}.sql`), 'utf8');
        if (text.includes('CREATE TABLE "number_assignments"')) first = entry.idx;
      }
      expect(first).toBeLessThan(Infinity);
      journal.entries = journal.entries.filter((entry) => entry.idx < first);
      await writeFile(journalPath, JSON.stringify(journal));

      const db = drizzle(client);
      await migrate(db, { migrationsFolder: before });
      const [old] = (
        await db.execute<{ id: number }>(
          sql`insert into accounts (name) values ('Old Co') returning id`,
        )
      ).rows;
      await db.execute(
        sql`insert into caller_numbers (account_id, name, phone_number)
            values (${old!.id}, 'Old line', '+15005550909')`,
      );

      await migrate(db, { migrationsFolder: real });
      const assigned = await db
        .select({ phone: numberAssignments.phoneNumber, account: numberAssignments.accountId })
        .from(numberAssignments);
      expect(assigned).toEqual([{ phone: '+15005550909', account: old!.id }]);
    } finally {
      await client.close();
      await rm(before, { recursive: true, force: true });
    }
  }, 60_000);
});
