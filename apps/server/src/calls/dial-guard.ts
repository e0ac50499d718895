/**
 * The toll-fraud guard (docs/api.md, Dialling rules): every call placed and every SMS sent passes
 * here first, whichever way it was asked for (New Call, Retry, Add Lead, the SDK's `connect`
 * parameters through the embedded gateway or Twilio's `/twilio/voice`, the SMS route, a web
 * lead's intake by API key, and again when an agent takes a lead and its number is dialled) and
 * whichever provider carries it.
 *
 * - Where: the number's type and country (`dial-destination.ts`) against the account's policy
 *   (`call_countries`, default its own country), within the operator's ceiling (`DialCeiling`,
 *   `DIAL_ALLOWED_COUNTRIES`): a policy is applied as the narrower of the two.
 * - From: an account without a caller number of its own never calls or texts from another
 *   number of the provider's account (`requireOwnCallerNumber`, on with Twilio, whose account is
 *   shared by every Leadline account).
 * - How often: calls per minute and SMS per hour, per agent and per account (the policy's limits,
 *   `DIAL_POLICY_DEFAULTS` otherwise, never above the ceiling's), and one call being placed at a
 *   time per agent (a New Call not yet connected, a Retry not yet taken). Calls are counted from
 *   the `dials` rows each admission writes (the asking agent's, or for a web lead the account's
 *   only), SMS from `sms_messages`, in the database's time (their `created_at`), so every
 *   instance counts the same.
 * - Who: a device dials only while its user has a login session that has not ended (a Twilio
 *   access token outlives a logout by up to an hour).
 *
 * An admission is one transaction that holds the account's dial lock (a PostgreSQL advisory
 * lock, so two instances do not both admit the last call of a minute), checks, and stores what
 * the next admission counts (the call and its `dials` row, the SMS) before the lock is let go. A
 * refusal is an `AppError` with the sentence the agent reads, and changes nothing.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import {
  DEFAULT_DIAL_CEILING,
  dialPolicyOf,
  withinCeiling,
  type DialCeiling,
  type DialPolicy,
} from '../accounts/account-policy';
import { liveSessionTags } from '../auth/socket-access';
import type { Db, DbOrTx } from '../db/database';
import { accounts, dials } from '../db/schema';
import { AppError } from '../http/errors';
import { QUEUED, RINGING, statusListSql } from './call-status';
import { destinationRefusal, type DialKind } from './dial-destination';

export type { DialKind };

/** Who dials: an agent, or (`id` null) the account itself, for a web lead posted by API key. */
export interface Dialer {
  id: number | null;
  accountId: number;
}

/** What a device is told when its user's login has ended. */
export const LOGIN_ENDED_MESSAGE = 'Your login has ended: log in again to place calls.';

/** The refusal of an SMS from an account without a number of its own. */
export const NO_OWN_NUMBER_FOR_TEXTS =
  'This account has no caller number of its own: an administrator must add one before its agents can text.';

/** The namespace of the dial locks (`pg_advisory_xact_lock(namespace, account id)`). */
export const DIAL_LOCK_NAMESPACE = 36_002;

/**
 * A call still `queued` or `ringing` this long after it was admitted is not "being placed" any
 * more (the flows withdraw a New Call the console did not connect within 30 s, a Retry nobody
 * took is over after its rings; a crash's are recovered).
 */
export const PLACING_WINDOW_MS = 10 * 60_000;

/** The rate windows. */
const CALL_WINDOW = "interval '1 minute'";
const TEXT_WINDOW = "interval '1 hour'";

/** Logs a policy that could not be read. */
interface Log {
  warn(details: object, message: string): void;
}

/** What the guard needs. */
export interface DialGuardOptions {
  db: Db;
  /** On with a provider whose account several Leadline accounts share (Twilio). */
  requireOwnCallerNumber?: boolean;
  /**
   * Whether the user has a login session that has not ended. Default: a session of theirs that
   * has not expired (`liveSessionTags`).
   */
  hasLiveLogin?: (userId: number) => Promise<boolean>;
  /** What no account may exceed (`DIAL_*` settings); default `DEFAULT_DIAL_CEILING`. */
  ceiling?: DialCeiling;
  log?: Log;
}

/** One dial to admit. */
export interface DialRequest {
  kind: DialKind;
  /** The number called or texted (E.164). */
  to: string;
  /** The account's number it goes out from; null when the account has none. */
  from: string | null;
  /**
   * Refused while a call the agent asked for is still being placed, not yet connected or taken
   * (New Call, a device's call with only `To`, Add Lead, Retry; not an SMS nor a web lead).
   */
  oneAtATime?: boolean;
}

/** How a rate window counted. */
interface WindowCount extends Record<string, unknown> {
  account_count: number;
  agent_count: number;
  /** Seconds until the oldest counted row leaves the window (null: none counted). */
  account_wait_s: number | null;
  agent_wait_s: number | null;
}

/** See the module comment. */
export class DialGuard {
  readonly #db: Db;
  readonly #requireOwnCallerNumber: boolean;
  readonly #hasLiveLogin: (userId: number) => Promise<boolean>;
  readonly #log: Log | undefined;
  /** What no account may exceed. */
  readonly ceiling: DialCeiling;

  constructor(options: DialGuardOptions) {
    this.#db = options.db;
    this.ceiling = options.ceiling ?? DEFAULT_DIAL_CEILING;
    this.#requireOwnCallerNumber = options.requireOwnCallerNumber ?? false;
    this.#hasLiveLogin =
      options.hasLiveLogin ??
      (async (userId) => (await liveSessionTags(this.#db, [userId], new Date())).size > 0);
    this.#log = options.log;
  }

  /** Whether the user still has a login that has not ended (a device's call needs one). */
  hasLiveLogin(userId: number): Promise<boolean> {
    return this.#hasLiveLogin(userId);
  }

  /**
   * Checks where a dial goes and where from, without counting it (a call admitted before, now
   * connected by the device): throws the refusal.
   */
  async check(dialer: Dialer, request: Omit<DialRequest, 'oneAtATime'>): Promise<void> {
    const policy = await this.#policy(this.#db, dialer.accountId);
    this.#checkWhere(policy, request);
  }

  /**
   * The accounts the ceiling leaves no country to call (their own policy's countries, or their
   * own country, all outside it): an install upgraded to a ceiling, or a tenant of another
   * country on an install that kept the default one. The start names them to the operator.
   */
  async accountsCallingNowhere(): Promise<
    Array<{ id: number; name: string; countries: string[] }>
  > {
    const rows = await this.#db
      .select({
        id: accounts.id,
        name: accounts.name,
        countryCode: accounts.countryCode,
        policy: accounts.policy,
      })
      .from(accounts);
    return rows
      .map((row) => ({ row, policy: dialPolicyOf(row.policy ?? {}, row.countryCode ?? 'US') }))
      .filter(({ policy }) => withinCeiling(policy, this.ceiling).callCountries.size === 0)
      .map(({ row, policy }) => ({
        id: row.id,
        name: row.name,
        countries: [...policy.callCountries].sort(),
      }));
  }

  /** Why `dialer` may not dial `request` now (the guard's sentence, not counted), or null. */
  async refusal(dialer: Dialer, request: Omit<DialRequest, 'oneAtATime'>): Promise<string | null> {
    try {
      await this.check(dialer, request);
      return null;
    } catch (error) {
      if (error instanceof AppError) return error.message;
      throw error;
    }
  }

  /**
   * Admits a web lead of `accountId` as the call it will become (it is dialled when an agent
   * takes it, with Auto Accept without anyone deciding): where it goes, from a number of the
   * account's own, and the account's calls a minute, counted now (no agent asked for it). A
   * number the account may not call is the lead's invalid data: 422 with the guard's sentence, as
   * New Call words it.
   */
  async admitLead(accountId: number, to: string, from: string | null): Promise<void> {
    try {
      await this.admit({ id: null, accountId }, { kind: 'call', to, from }, async () => undefined);
    } catch (error) {
      if (error instanceof AppError && error.code === 'DIAL_REFUSED') {
        throw new AppError('VALIDATION_FAILED', error.message, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Admits a dial: under the account's dial lock, in one transaction, checks where it goes, that
   * the account has a number of its own to send it from, one at a time and the rate limits; then
   * `store` writes, in the same transaction (`tx`, never the database itself: PGlite has one
   * connection), what it stores, and a call is counted (its `dials` row, linked to the call
   * `callOf` names in what `store` returned). Resolves with what `store` returned; a refusal
   * throws and nothing is stored.
   */
  admit<T>(
    dialer: Dialer,
    request: DialRequest,
    store: (tx: DbOrTx) => Promise<T>,
    callOf?: (stored: T) => number | null,
  ): Promise<T> {
    return this.#db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(${DIAL_LOCK_NAMESPACE}::int, ${dialer.accountId}::int)`,
      );
      const policy = await this.#policy(tx, dialer.accountId);
      this.#checkWhere(policy, request);
      if (request.oneAtATime && (await this.#placing(tx, dialer))) {
        throw new AppError('DIAL_IN_PROGRESS');
      }
      await this.#checkRate(tx, dialer, policy, request.kind);
      const stored = await store(tx);
      if (request.kind === 'call') {
        await tx.insert(dials).values({
          accountId: dialer.accountId,
          userId: dialer.id,
          callId: callOf?.(stored) ?? null,
        });
      }
      return stored;
    });
  }

  #checkWhere(policy: DialPolicy, request: Omit<DialRequest, 'oneAtATime'>): void {
    const refusal = destinationRefusal(request.to, policy.callCountries, request.kind);
    if (refusal) throw new AppError('DIAL_REFUSED', refusal.message);
    if (this.#requireOwnCallerNumber && !request.from) {
      throw request.kind === 'call'
        ? new AppError('NO_OWN_CALLER_NUMBER')
        : new AppError('NO_OWN_CALLER_NUMBER', NO_OWN_NUMBER_FOR_TEXTS);
    }
  }

  async #policy(db: DbOrTx, accountId: number): Promise<DialPolicy> {
    const [account] = await db
      .select({ countryCode: accounts.countryCode, policy: accounts.policy })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    const policy = withinCeiling(
      dialPolicyOf(account?.policy ?? {}, account?.countryCode ?? 'US'),
      this.ceiling,
    );
    if (policy.problems.length > 0) {
      this.#log?.warn(
        { accountId, problems: policy.problems },
        "the account's dialling policy has fields that could not be read: applied as their strictest",
      );
    }
    return policy;
  }

  /**
   * Whether a call the agent asked for is still being placed: admitted, and not yet connected
   * (a New Call), taken (a Retry) or over.
   */
  async #placing(tx: DbOrTx, dialer: Dialer): Promise<boolean> {
    if (dialer.id === null) return false;
    const [row] = await rowsOf<{ placing: boolean }>(
      tx,
      sql`select exists (
        select 1 from dials d join calls c on c.id = d.call_id
        where d.account_id = ${dialer.accountId} and d.user_id = ${dialer.id}
          and d.created_at > now() - ${PLACING_WINDOW_MS / 1000} * interval '1 second'
          and c.status in ${sql.raw(statusListSql([QUEUED, RINGING]))}
      ) as placing`,
    );
    return row?.placing === true;
  }

  async #checkRate(tx: DbOrTx, dialer: Dialer, policy: DialPolicy, kind: DialKind): Promise<void> {
    const counted = kind === 'call' ? await countCalls(tx, dialer) : await countTexts(tx, dialer);
    const limits =
      kind === 'call'
        ? { agent: policy.callsPerMinutePerAgent, account: policy.callsPerMinutePerAccount }
        : { agent: policy.smsPerHourPerAgent, account: policy.smsPerHourPerAccount };
    const [verb, noun, per] =
      kind === 'call' ? ['place', 'call', 'a minute'] : ['send', 'text', 'an hour'];
    const most = (n: number) => `${n} ${noun}${n === 1 ? '' : 's'} ${per}`;
    // A web lead has no agent: only the account's limit counts it.
    if (dialer.id !== null && counted.agent_count >= limits.agent) {
      throw new AppError(
        'DIAL_RATE_LIMITED',
        `You may ${verb} at most ${most(limits.agent)}: try again in ${wait(counted.agent_wait_s)}.`,
        { retryAfterS: counted.agent_wait_s ?? 1 },
      );
    }
    if (counted.account_count >= limits.account) {
      throw new AppError(
        'DIAL_RATE_LIMITED',
        `Your account may ${verb} at most ${most(limits.account)}: try again in ${wait(counted.account_wait_s)}.`,
        { retryAfterS: counted.account_wait_s ?? 1 },
      );
    }
  }
}

/**
 * The calls admitted in the last minute (`dials`): the account's, whoever asked (its agents,
 * its web leads), and of those the agent's (the ones they asked for: New Call, a device's call,
 * Retry from the moment it is asked for, Add Lead).
 */
async function countCalls(tx: DbOrTx, dialer: Dialer): Promise<WindowCount> {
  return windowCount(
    tx,
    sql`from dials c
      where c.account_id = ${dialer.accountId}
        and c.created_at > now() - ${sql.raw(CALL_WINDOW)}`,
    dialer.id === null ? sql`false` : sql`c.user_id = ${dialer.id}`,
    sql.raw(CALL_WINDOW),
  );
}

/** The SMS of the last hour, sent or refused by the provider: the account's, and the agent's. */
async function countTexts(tx: DbOrTx, dialer: Dialer): Promise<WindowCount> {
  return windowCount(
    tx,
    sql`from sms_messages c
      where c.account_id = ${dialer.accountId}
        and c.created_at > now() - ${sql.raw(TEXT_WINDOW)}`,
    sql`c.user_id = ${dialer.id}`,
    sql.raw(TEXT_WINDOW),
  );
}

async function windowCount(tx: DbOrTx, rows: SQL, mine: SQL, window: SQL): Promise<WindowCount> {
  const waitOf = (filter: SQL) =>
    sql`ceil(extract(epoch from (min(c.created_at) ${filter} + ${window} - now())))::int`;
  const [row] = await rowsOf<WindowCount>(
    tx,
    sql`select count(*)::int as account_count,
        count(*) filter (where ${mine})::int as agent_count,
        ${waitOf(sql``)} as account_wait_s,
        ${waitOf(sql`filter (where ${mine})`)} as agent_wait_s
      ${rows}`,
  );
  return row ?? { account_count: 0, agent_count: 0, account_wait_s: null, agent_wait_s: null };
}

/** "42 seconds", "14 minutes": how long until a limit lets one more through. */
function wait(seconds: number | null): string {
  const s = Math.max(1, seconds ?? 1);
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const minutes = Math.ceil(s / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** The rows of a raw statement (both drivers answer `{ rows }`; a transaction too). */
async function rowsOf<T extends Record<string, unknown>>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute<T>(query)) as { rows: T[] };
  return result.rows;
}

/**
 * What a start says of an account the operator's ceiling (`DIAL_ALLOWED_COUNTRIES`) leaves no
 * country to call.
 */
export function callingNowhereWarning(account: {
  id: number;
  name: string;
  countries: string[];
}): string {
  return `The account ${account.id} (${account.name}) calls ${account.countries.join(', ') || 'no country'}, which DIAL_ALLOWED_COUNTRIES does not allow: its agents can call and text nobody. Add its countries to DIAL_ALLOWED_COUNTRIES on every instance (docs/deployment.md), or change its policy's call countries.`;
}
