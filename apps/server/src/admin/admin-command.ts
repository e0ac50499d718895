/**
 * `npm run admin -- <command>` (issue 37): sets an install up without SQL, against the database
 * the server uses — PostgreSQL at `DATABASE_URL`, or without it the embedded PGlite under
 * `DATA_DIR` (run it while no server runs on that folder: PGlite is one process's). The server
 * need not run.
 *
 * - `create-account --name <name> --admin-email <email> --password-stdin [--country US]
 *   [--time-zone UTC]`: an account and its first admin; the last line printed is
 *   `{"account_id":N,"user_id":M}`.
 * - `reset-password --email <email> --password-stdin`: a new password; the user's sessions end.
 * - `remove-demo`: removes the demo seed's logins and key (as `npm run remove-demo`).
 * - `assign-number --account <id> --number <E.164>`: the account may use the number (with
 *   Twilio: one the Twilio account holds); `unassign-number --number <E.164>` takes it back;
 *   `list-numbers [--account <id>]` lists the assignments (`number-assignments.ts`). Each prints
 *   a sentence, then JSON as its last line.
 *
 * Passwords come from standard input (never the command line, which other users of the machine
 * can read), one line, checked for strength; the demo's published password is refused whatever
 * the mode (the command is the operator's, and its shell may not say LEADLINE_MODE=production).
 * Any problem exits 1 with one sentence on stderr.
 */
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/database';
import { removeDemoLogins } from '../db/demo-removal';
import { AppError } from '../http/errors';
import { SYSTEM_ACTOR } from './audit';
import { resetUserPassword } from './admin-users-write';
import { createAccount } from './create-account';
import {
  assignNumber,
  listAssignments,
  parseOperatorNumber,
  unassignNumber,
  type NumberAssignment,
} from './number-assignments';
import { ANY_NUMBER, type NumberInventory } from './number-inventory';
import { twilioClient } from '../twilio/twilio-client';
import { twilioNumberInventory } from '../twilio/twilio-number-inventory';

/** What `npm run admin` prints for an unknown command, or none. */
export const USAGE = `Usage: npm run admin -- <command>

Commands:
  create-account --name <name> --admin-email <email> --password-stdin [--country US] [--time-zone UTC]
      Creates an account and its first admin (the password is read from standard input).
      The last line printed is {"account_id":N,"user_id":M}.
  reset-password --email <email> --password-stdin
      Gives the user a new password (read from standard input) and ends their sessions.
  remove-demo
      Removes the demo seed's logins and API key.
  assign-number --account <id> --number <E.164>
      Lets the account use the number: its admin may make it a caller number, and calls to it
      go to the account. With Twilio, the number must be one the Twilio account holds. A number
      assigned to another account is moved with unassign-number first.
  unassign-number --number <E.164>
      Takes the number back from its account (refused while it is one of the account's caller
      numbers).
  list-numbers [--account <id>]
      The numbers assigned (to that account), each with its account and caller number.

The database is DATABASE_URL's, or without it the embedded one under DATA_DIR.`;

/** What a password the command sets must be: never the demo's (see the file's comment). */
const OPERATOR_PASSWORDS = { refuseDemoPassword: true } as const;

/** A problem the command reports as one sentence (exit 1). */
export class CommandError extends Error {
  override name = 'CommandError';
}

/** Where the command writes. */
export interface CommandOutput {
  out(line: string): void;
}

/** Reads standard input to its end; the password is its first line. */
async function readPassword(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  const [line = ''] = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  if (line.length === 0) {
    throw new CommandError('No password on standard input: pipe it in, such as printf ... |.');
  }
  return line;
}

/** The value of a required option, or a sentence naming it. */
function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new CommandError(`The --${name} option is required.`);
  }
  return value;
}

function requirePasswordStdin(values: Record<string, unknown>): void {
  if (values['password-stdin'] !== true) {
    throw new CommandError(
      'The --password-stdin option is required: the password is read from standard input.',
    );
  }
}

/** Parses `args` with `options`, turning parseArgs' refusals into one sentence. */
function parse(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    return values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new CommandError(`${sentence(firstLine(error))}`);
  }
}

/** The first line of an error's message. */
const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();

/** `text` ending with a full stop. */
const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The innermost cause's message (a driver's, such as `connect ECONNREFUSED 127.0.0.1:5432`). */
function rootMessage(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  if (inner instanceof AggregateError && inner.errors[0] instanceof Error) inner = inner.errors[0];
  return firstLine(inner);
}

/** How the database is named in sentences. */
const whereOf = (databaseUrl: string | undefined, dataDir: string) =>
  databaseUrl ? 'the database at DATABASE_URL' : `the embedded database in ${dataDir}`;

/** Opens the configured database, or a sentence saying why it cannot. */
async function open(
  env: NodeJS.ProcessEnv,
): Promise<{ database: Database; where: string; config: Config }> {
  const config = loadConfig(env);
  const where = whereOf(config.databaseUrl, config.dataDir);
  try {
    const database = await openDatabase(
      config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
    );
    return { database, where, config };
  } catch (error) {
    throw new CommandError(
      sentence(`${capitalised(where)} cannot be opened: ${rootMessage(error)}`),
    );
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The numbers the configured telephony provider holds: Twilio's, or any (embedded). */
function inventoryOf(config: Config): NumberInventory {
  return config.telephony.provider === 'twilio'
    ? twilioNumberInventory(twilioClient(config.telephony))
    : ANY_NUMBER;
}

/** The value of `--account`: an account id, or a sentence. */
function accountIdOf(value: string): number {
  const id = /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : 0;
  if (id < 1) {
    throw new CommandError(`The --account option must be an account id, such as 2: not ${value}.`);
  }
  return id;
}

/** The value of `--number` in E.164, or a sentence. */
function numberOf(value: string): string {
  try {
    return parseOperatorNumber(value);
  } catch (error) {
    if (error instanceof AppError) {
      throw new CommandError(`The --number option: ${value} is not a valid phone number.`);
    }
    throw error;
  }
}

/** An assignment as the commands print it (its JSON line). */
const assignmentJson = (assignment: NumberAssignment) =>
  JSON.stringify({
    phone_number: assignment.phone_number,
    account_id: assignment.account_id,
    caller_number: assignment.caller_number,
  });

/**
 * Runs one command with the server's settings from `env`; resolves once it is done (its problems
 * throw).
 */
export async function runAdminCommand(
  argv: string[],
  stdin: () => NodeJS.ReadableStream,
  output: CommandOutput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'create-account': {
      const values = parse(args, {
        name: { type: 'string' },
        'admin-email': { type: 'string' },
        'password-stdin': { type: 'boolean' },
        country: { type: 'string' },
        'time-zone': { type: 'string' },
      });
      const name = required(values, 'name');
      const email = required(values, 'admin-email');
      requirePasswordStdin(values);
      const password = await readPassword(stdin());
      const { database, where } = await open(env);
      try {
        const created = await createAccount(
          database.db,
          SYSTEM_ACTOR,
          {
            name,
            admin_email: email,
            admin_password: password,
            ...(typeof values['country'] === 'string' ? { country_code: values['country'] } : {}),
            ...(typeof values['time-zone'] === 'string' ? { time_zone: values['time-zone'] } : {}),
          },
          OPERATOR_PASSWORDS,
        );
        output.out(
          `Created the account ${JSON.stringify(name.trim())} and its admin ${email.trim()} in ${where}.`,
        );
        output.out(JSON.stringify({ account_id: created.accountId, user_id: created.userId }));
      } finally {
        await database.close();
      }
      return;
    }
    case 'reset-password': {
      const values = parse(args, {
        email: { type: 'string' },
        'password-stdin': { type: 'boolean' },
      });
      const email = required(values, 'email').trim();
      requirePasswordStdin(values);
      const password = await readPassword(stdin());
      const { database, where } = await open(env);
      try {
        const reset = await resetUserPassword(
          database.db,
          SYSTEM_ACTOR,
          email,
          password,
          OPERATOR_PASSWORDS,
        ).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'NOT_FOUND') {
            throw new CommandError(`No user has the email ${email} in ${where}.`);
          }
          throw error;
        });
        const ended = reset.endedSessionIds.length;
        output.out(
          `Changed the password of ${email} (user ${reset.userId}); ${ended === 1 ? '1 session' : `${ended} sessions`} ended.`,
        );
      } finally {
        await database.close();
      }
      return;
    }
    case 'remove-demo': {
      parse(args, {});
      const { database, where } = await open(env);
      try {
        const removed = await removeDemoLogins(database.db);
        if (removed.users.length === 0 && !removed.apiKey) {
          output.out(`Nothing of the demo seed is in ${where}.`);
          return;
        }
        if (removed.users.length > 0) {
          // As `npm run remove-demo` says it.
          const ended = removed.sessions === 1 ? '1 session' : `${removed.sessions} sessions`;
          const sessions = removed.sessions > 0 ? ` (and their ${ended})` : '';
          output.out(
            `Removed the demo seed's logins ${removed.users.join(', ')}${sessions} from ${where}.`,
          );
        }
        if (removed.apiKey) output.out(`Removed the demo API key from ${where}.`);
      } finally {
        await database.close();
      }
      return;
    }
    case 'assign-number': {
      const values = parse(args, { account: { type: 'string' }, number: { type: 'string' } });
      const accountId = accountIdOf(required(values, 'account'));
      const phoneNumber = numberOf(required(values, 'number'));
      const { database, where, config } = await open(env);
      try {
        const { assignment, created } = await assignNumber(
          database.db,
          SYSTEM_ACTOR,
          accountId,
          phoneNumber,
          inventoryOf(config),
        );
        const account = `the account ${accountId} (${JSON.stringify(assignment.account_name)})`;
        output.out(
          created
            ? `Assigned ${phoneNumber} to ${account} in ${where}.`
            : `${phoneNumber} was already assigned to ${account} in ${where}.`,
        );
        output.out(assignmentJson(assignment));
      } finally {
        await database.close();
      }
      return;
    }
    case 'unassign-number': {
      const values = parse(args, { number: { type: 'string' } });
      const phoneNumber = numberOf(required(values, 'number'));
      const { database, where } = await open(env);
      try {
        const before = await unassignNumber(database.db, SYSTEM_ACTOR, phoneNumber);
        output.out(
          `Unassigned ${phoneNumber} from the account ${before.account_id} (${JSON.stringify(before.account_name)}) in ${where}.`,
        );
        output.out(JSON.stringify({ phone_number: phoneNumber, account_id: before.account_id }));
      } finally {
        await database.close();
      }
      return;
    }
    case 'list-numbers': {
      const values = parse(args, { account: { type: 'string' } });
      const accountId =
        typeof values['account'] === 'string' ? accountIdOf(values['account']) : undefined;
      const { database, where } = await open(env);
      try {
        const assignments = await listAssignments(
          database.db,
          accountId === undefined ? {} : { accountId },
        );
        const counted =
          assignments.length === 1 ? '1 number is' : `${assignments.length} numbers are`;
        output.out(
          `${counted} assigned${accountId === undefined ? '' : ` to the account ${accountId}`} in ${where}.`,
        );
        output.out(JSON.stringify({ numbers: assignments }));
      } finally {
        await database.close();
      }
      return;
    }
    default:
      throw new CommandError(
        command ? `Unknown command ${command}.\n\n${USAGE}` : `No command given.\n\n${USAGE}`,
      );
  }
}

/** The sentence a failure is reported with (no stack trace). */
export function sentenceOf(error: unknown): string {
  if (error instanceof CommandError || error instanceof ConfigError) return error.message;
  if (error instanceof AppError) return error.message;
  return sentence(`The command failed: ${rootMessage(error)}`);
}

async function main(): Promise<void> {
  // npm runs a workspace's script in the workspace's folder; a relative DATA_DIR is the caller's.
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  try {
    await runAdminCommand(process.argv.slice(2), () => process.stdin, {
      out: (line) => console.log(line),
    });
  } catch (error) {
    console.error(sentenceOf(error));
    process.exit(1);
  }
  process.exit(0);
}

// Run as a script (not when a test imports it).
if (process.argv[1] && /admin-command\.[cm]?[jt]s$/.test(process.argv[1])) await main();
