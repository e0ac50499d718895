/**
 * `npm run admin -- assign-number | unassign-number | list-numbers` on a database holding the
 * demo seed (the first run and a refusal as an operator runs them, a child process of npm at the
 * repository's root; the rest the same command in this process, `runAdminHere`): the
 * embedded PGlite under a new DATA_DIR, and with `DATABASE_URL` (the PostgreSQL pass) a scratch
 * database on that server, first with the embedded engine (no inventory: any number), then with
 * `TELEPHONY_PROVIDER=twilio` against the REST stand-in (production mode, which needs
 * PostgreSQL), where only the Twilio account's numbers are assigned.
 *
 * Moving a number is explicit: a number assigned to another account is refused (the sentence
 * names the account and the command that frees it), `unassign-number` then `assign-number`.
 * Every refusal exits 1 with one sentence and writes nothing; every change is in its account's
 * audit log (`number.assign`, `number.unassign`, the system as actor).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, numberAssignments } from '../db/schema';
import { seedDemo } from '../db/seed';
import {
  expectRefused,
  lastLineOf,
  runAdmin,
  runAdminHere,
  type AdminRun,
} from '../test-support/admin-cli';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import type { TwilioApiStandIn } from '../test-support/twilio-api-stand-in';
import { startTwilioAccountStandIn, twilioProductionEnv } from '../test-support/twilio-leadline';

/** Seeded: the demo account's main line (its caller number) and a special account. */
const DEMO_ACCOUNT = 1;
const MAIN_LINE = '+15550142000';
const OTHER_ACCOUNT = 9920;
const OTHER_NAME = 'Account 9920 (phone on the lead card)';
const NEW_NUMBER = '+15550107001';

/** A commands' run on its own database, seeded; `env` names it. */
async function seededDatabase(kind: string, adminUrl: string | undefined) {
  const dataDir = await mkdtemp(join(tmpdir(), `leadline-numbers-command-${kind}-`));
  const persisted = await createPersistedDatabase(dataDir, adminUrl);
  const database = await persisted.open();
  try {
    await seedDemo(database.db);
  } finally {
    await database.close();
  }
  return { dataDir, persisted };
}

/** What the database holds of the number assignments and their audit, read between runs. */
async function stateOf(persisted: PersistedDatabase) {
  const database = await persisted.open();
  try {
    const { db } = database;
    const assignments = await db
      .select({ phone: numberAssignments.phoneNumber, account: numberAssignments.accountId })
      .from(numberAssignments)
      .orderBy(asc(numberAssignments.phoneNumber));
    const audit = await db
      .select({
        account: auditLog.accountId,
        actor: auditLog.actorUserId,
        action: auditLog.action,
        target: auditLog.target,
        changes: auditLog.changes,
      })
      .from(auditLog)
      .where(like(auditLog.action, 'number.%'))
      .orderBy(asc(auditLog.id));
    return { assignments, audit };
  } finally {
    await database.close();
  }
}

/** The JSON a successful run printed last. */
function jsonOf(run: AdminRun): unknown {
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return JSON.parse(lastLineOf(run.stdout)!);
}

/** The commands on an embedded install's database (no inventory). */
function embeddedSuite(kind: 'pglite' | 'pg') {
  let dataDir: string;
  let persisted: PersistedDatabase;
  let env: Record<string, string>;
  let where: string;

  beforeAll(async () => {
    // '' (not undefined, which means DATABASE_URL): PGlite in the PostgreSQL pass too.
    ({ dataDir, persisted } = await seededDatabase(
      kind,
      kind === 'pg' ? process.env.DATABASE_URL : '',
    ));
    expect(persisted.driver).toBe(kind);
    env = { DATA_DIR: dataDir, ...persisted.env };
    where = kind === 'pg' ? 'the database at DATABASE_URL' : `the embedded database in ${dataDir}`;
  }, 120_000);
  afterAll(async () => {
    await persisted?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('assign-number assigns a number to an account (any spelling, stored as E.164), audited; again, it changes nothing', async () => {
    const before = await stateOf(persisted);
    // The demo seed assigned its accounts' caller numbers.
    expect(before.assignments).toContainEqual({ phone: MAIN_LINE, account: DEMO_ACCOUNT });
    expect(before.audit.filter((entry) => entry.target === `number:${NEW_NUMBER}`)).toEqual([]);

    const run = await runAdmin(
      ['assign-number', '--account', String(OTHER_ACCOUNT), '--number', '+1 (555) 010-7001'],
      env,
    );
    expect(jsonOf(run)).toEqual({
      phone_number: NEW_NUMBER,
      account_id: OTHER_ACCOUNT,
      caller_number: null,
    });
    expect(run.stdout).toContain(
      `Assigned ${NEW_NUMBER} to the account ${OTHER_ACCOUNT} (${JSON.stringify(OTHER_NAME)}) in ${where}.`,
    );
    const again = await runAdminHere(
      ['assign-number', '--account', String(OTHER_ACCOUNT), '--number', NEW_NUMBER],
      env,
    );
    expect(jsonOf(again)).toEqual({
      phone_number: NEW_NUMBER,
      account_id: OTHER_ACCOUNT,
      caller_number: null,
    });
    expect(again.stdout).toContain(`${NEW_NUMBER} was already assigned to the account`);

    const after = await stateOf(persisted);
    expect(after.assignments).toEqual(
      [...before.assignments, { phone: NEW_NUMBER, account: OTHER_ACCOUNT }].sort((a, b) =>
        a.phone.localeCompare(b.phone),
      ),
    );
    expect(after.audit.filter((entry) => entry.target === `number:${NEW_NUMBER}`)).toEqual([
      {
        account: OTHER_ACCOUNT,
        actor: null,
        action: 'number.assign',
        target: `number:${NEW_NUMBER}`,
        changes: { phone_number: [null, NEW_NUMBER] },
      },
    ]);
  }, 120_000);

  it('refuses a bad account, a bad number, a missing option and a number of another account: exit 1, one sentence, nothing written', async () => {
    const before = await stateOf(persisted);
    expectRefused(
      await runAdmin(['assign-number', '--account', '4242', '--number', '+15550107002'], env),
      'There is no account 4242.',
    );
    expectRefused(
      await runAdminHere(['assign-number', '--account', 'acme', '--number', '+15550107002'], env),
      'The --account option must be an account id, such as 2: not acme.',
    );
    expectRefused(
      await runAdminHere(['assign-number', '--account', '1', '--number', '12'], env),
      'The --number option: 12 is not a valid phone number.',
    );
    expectRefused(
      await runAdminHere(['assign-number', '--number', '+15550107002'], env),
      'The --account option is required.',
    );
    // Assigned to another account: moved only by unassigning it first.
    expectRefused(
      await runAdminHere(['assign-number', '--account', '1', '--number', NEW_NUMBER], env),
      `${NEW_NUMBER} is assigned to account ${OTHER_ACCOUNT} (${JSON.stringify(OTHER_NAME)}): to move it, run unassign-number --number ${NEW_NUMBER} first.`,
    );
    expectRefused(
      await runAdminHere(['assign-number', '--account', '6671', '--number', MAIN_LINE], env),
      `${MAIN_LINE} is assigned to account 1 ("Acme Solar (demo)"): to move it, run unassign-number --number ${MAIN_LINE} first.`,
    );
    expect(await stateOf(persisted)).toEqual(before);
  }, 180_000);

  it('unassign-number refuses a number its account uses as a caller number, and one assigned to nobody', async () => {
    const before = await stateOf(persisted);
    expectRefused(
      await runAdminHere(['unassign-number', '--number', MAIN_LINE], env),
      `${MAIN_LINE} is the caller number "Acme Solar main line" of account 1 ("Acme Solar (demo)"): its admin must remove that caller number, or change its number, before it is unassigned.`,
    );
    expectRefused(
      await runAdminHere(['unassign-number', '--number', '+15550107099'], env),
      '+15550107099 is not assigned to any account.',
    );
    expect(await stateOf(persisted)).toEqual(before);
  }, 120_000);

  it('list-numbers lists the assignments with their caller numbers; unassign-number then assign-number moves one', async () => {
    const listed = await runAdminHere(['list-numbers', '--account', String(DEMO_ACCOUNT)], env);
    const { numbers } = jsonOf(listed) as { numbers: Array<Record<string, unknown>> };
    expect(
      numbers.map(({ assigned_at: _at, caller_number: _callerNumber, ...rest }) => rest),
    ).toEqual([
      { phone_number: MAIN_LINE, account_id: 1, account_name: 'Acme Solar (demo)' },
      { phone_number: '+15550142010', account_id: 1, account_name: 'Acme Solar (demo)' },
    ]);
    expect(numbers.map((row) => (row.caller_number as { name: string }).name)).toEqual([
      'Acme Solar main line',
      'Acme Solar spring campaign',
    ]);
    expect(listed.stdout).toContain(`2 numbers are assigned to the account 1 in ${where}.`);

    const unassigned = await runAdminHere(['unassign-number', '--number', NEW_NUMBER], env);
    expect(jsonOf(unassigned)).toEqual({ phone_number: NEW_NUMBER, account_id: OTHER_ACCOUNT });
    const moved = await runAdminHere(
      ['assign-number', '--account', String(DEMO_ACCOUNT), '--number', NEW_NUMBER],
      env,
    );
    expect(jsonOf(moved)).toMatchObject({ phone_number: NEW_NUMBER, account_id: DEMO_ACCOUNT });

    const { assignments, audit } = await stateOf(persisted);
    expect(assignments).toContainEqual({ phone: NEW_NUMBER, account: DEMO_ACCOUNT });
    expect(
      audit
        .filter((entry) => entry.target === `number:${NEW_NUMBER}`)
        .map((entry) => [entry.account, entry.action, entry.changes]),
    ).toEqual([
      [OTHER_ACCOUNT, 'number.assign', { phone_number: [null, NEW_NUMBER] }],
      [OTHER_ACCOUNT, 'number.unassign', { phone_number: [NEW_NUMBER, null] }],
      [DEMO_ACCOUNT, 'number.assign', { phone_number: [null, NEW_NUMBER] }],
    ]);
  }, 180_000);
}

describe('npm run admin -- assign-number, on PGlite', () => embeddedSuite('pglite'));

describe.runIf(process.env.DATABASE_URL)('npm run admin -- assign-number, on PostgreSQL', () =>
  embeddedSuite('pg'),
);

describe.runIf(process.env.DATABASE_URL)(
  'npm run admin -- assign-number with TELEPHONY_PROVIDER=twilio (production, PostgreSQL)',
  () => {
    const HELD = '+15005550006';
    let dataDir: string;
    let persisted: PersistedDatabase;
    let standIn: TwilioApiStandIn;
    let env: Record<string, string>;

    beforeAll(async () => {
      ({ dataDir, persisted } = await seededDatabase('twilio', process.env.DATABASE_URL));
      standIn = await startTwilioAccountStandIn([HELD, '+15005550007']);
      env = { DATA_DIR: dataDir, ...twilioProductionEnv(standIn.url), ...persisted.env };
    }, 120_000);
    afterAll(async () => {
      await standIn?.close();
      await persisted?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('assigns only a number the Twilio account holds, asked when the command runs; says so when Twilio cannot be asked', async () => {
      const before = await stateOf(persisted);
      expectRefused(
        await runAdminHere(['assign-number', '--account', '1', '--number', '+15005550009'], env),
        "+15005550009 is not one of the Twilio account's numbers: buy it or port it in first (Phone Numbers → Manage → Active numbers).",
      );
      standIn.apiKey = 'SK-someone-else';
      try {
        expectRefused(
          await runAdminHere(['assign-number', '--account', '1', '--number', HELD], env),
          "Twilio could not be asked for the account's numbers just now. Try again in a moment.",
        );
      } finally {
        standIn.apiKey = twilioProductionEnv(standIn.url).TWILIO_API_KEY;
      }
      expect(await stateOf(persisted)).toEqual(before);

      const run = await runAdminHere(['assign-number', '--account', '1', '--number', HELD], env);
      expect(jsonOf(run)).toEqual({ phone_number: HELD, account_id: 1, caller_number: null });
      const asked = standIn.requests.filter((request) =>
        request.path.endsWith('/IncomingPhoneNumbers.json'),
      );
      // Asked by each run that got as far (the refused key's request is not one the account made).
      expect(asked.length).toBeGreaterThanOrEqual(2);
      const database = await persisted.open();
      try {
        expect(
          await database.db
            .select({ account: numberAssignments.accountId })
            .from(numberAssignments)
            .where(eq(numberAssignments.phoneNumber, HELD)),
        ).toEqual([{ account: 1 }]);
      } finally {
        await database.close();
      }
    }, 180_000);
  },
);
