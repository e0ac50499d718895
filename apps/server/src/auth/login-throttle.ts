/**
 * Login throttling (issue 36 item 3). Failed attempts are counted in the database (table
 * `login_throttle`), so every instance counts the same failures and a restart forgets none, under
 * two keys:
 *
 * - the e-mail from one address (`ip-email:`): a hard limit. After {@link LOGIN_LIMITS}'
 *   `maxFailures` failures in `windowMs`, that address is refused (429) for that e-mail for
 *   `lockoutMs`, whatever the password.
 * - the e-mail alone (`email:`): only a short, growing delay. Past `freeFailures`, each attempt
 *   at the e-mail, from anywhere, waits a little longer (doubling from `firstDelayMs`, at most
 *   `maxDelayMs`) before its password is checked. It is never refused: an attacker failing from
 *   other addresses slows the owner's login by a few seconds but cannot lock them out.
 *
 * An attempt's failure is reserved before its password is checked (`admit`): the pair's count
 * goes up first and comes back down only for an attempt that was not tried (`release`), or starts
 * again with a success. Attempts in flight at once are thus counted as they come, and a burst
 * against one e-mail from one address has at most `maxFailures` passwords checked before the
 * lockout; the rest are refused without a check.
 *
 * An address trying many e-mails is the anonymous routes' rate limit's to stop. An IPv6 client is
 * keyed by its /64 (one subscriber's whole network). A successful login clears both keys. Rows
 * whose window and lockout are over are deleted (at most once a minute per instance), so the
 * table holds only the keys that failed recently.
 */
import ipaddr from 'ipaddr.js';
import { eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/database';
import { loginThrottle } from '../db/schema';

/** The throttle's rules. */
export interface LoginLimits {
  /** Failures of one e-mail from one address before that pair is refused. */
  maxFailures: number;
  /** How long failures count (from the first of a window). */
  windowMs: number;
  /** How long a pair that reached `maxFailures` is refused. */
  lockoutMs: number;
  /** Failures of one e-mail (from any address) before its attempts wait. */
  freeFailures: number;
  /** The first wait; each further failure doubles it. */
  firstDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
}

/**
 * The defaults: 10 failures per 15 minutes from one address, then 15 minutes refused; the
 * e-mail's attempts wait 250 ms after its 3rd failure, doubling up to 5 s.
 */
export const LOGIN_LIMITS: LoginLimits = {
  maxFailures: 10,
  windowMs: 15 * 60_000,
  lockoutMs: 15 * 60_000,
  freeFailures: 3,
  firstDelayMs: 250,
  maxDelayMs: 5_000,
};

/** How often an instance deletes the rows that no longer count. */
const SWEEP_EVERY_MS = 60_000;

/** What an attempt meets: refused for a while, or let through (after a wait). */
export type LoginVerdict = { refusedForMs: number } | { waitedMs: number };

/** The throttle's collaborators. */
export interface LoginThrottleOptions {
  limits?: LoginLimits;
  now?: () => Date;
  /** Waits `ms` (the e-mail's delay); tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

/** The key of a client address: an IPv4 address, or the /64 of an IPv6 one. */
export function addressKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${parts.join(':')}::/64`;
}

const emailKeyOf = (email: string): string => `email:${email.trim().toLowerCase()}`;
const pairKeyOf = (email: string, address: string): string =>
  `ip-email:${addressKeyOf(address)}|${email.trim().toLowerCase()}`;

/** The throttle, over the database. */
export class LoginThrottle {
  readonly #db: Db;
  readonly #limits: LoginLimits;
  readonly #now: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(db: Db, options: LoginThrottleOptions = {}) {
    this.#db = db;
    this.#limits = options.limits ?? LOGIN_LIMITS;
    this.#now = options.now ?? (() => new Date());
    this.#sleep =
      options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()));
  }

  /**
   * Decides an attempt at `email` from `address` before its password is checked, and reserves its
   * failure. Refused while the pair is locked out, or when the attempts already counted (those
   * in flight too) have used the pair's `maxFailures` (its lockout begins when the last of them
   * fails). Otherwise it waits the e-mail's delay here, and is let through counted as a failure
   * until `succeeded` (or `release`).
   */
  async admit(email: string, address: string): Promise<LoginVerdict> {
    await this.#sweep();
    const pairKey = pairKeyOf(email, address);
    const { maxFailures, lockoutMs, maxDelayMs } = this.#limits;
    const now = this.#now();
    const reserved = await this.#reserve(pairKey, now);
    const lockedForMs = (reserved.blockedUntil?.getTime() ?? 0) - now.getTime();
    if (lockedForMs > 0) return { refusedForMs: lockedForMs };
    if (reserved.failures > maxFailures) {
      // The budget went to attempts still in flight: this one is not tried, and not counted.
      await this.#giveBack(pairKey);
      return { refusedForMs: lockoutMs };
    }
    const [emailRow] = await this.#db
      .select({ blockedUntil: loginThrottle.blockedUntil })
      .from(loginThrottle)
      .where(eq(loginThrottle.key, emailKeyOf(email)));
    const emailUntil = emailRow?.blockedUntil?.getTime() ?? Number.NEGATIVE_INFINITY;
    const waitedMs = Math.min(maxDelayMs, Math.max(0, emailUntil - now.getTime()));
    if (waitedMs > 0) await this.#sleep(waitedMs);
    return { waitedMs };
  }

  /**
   * Records a failed attempt at `email` from `address` (admitted before: the pair's failure was
   * counted then). With the pair's `maxFailures` used, its lockout begins; the e-mail's count
   * grows, and with it the delay of its next attempts from anywhere.
   */
  async failed(email: string, address: string): Promise<void> {
    const { maxFailures, lockoutMs, freeFailures, firstDelayMs, maxDelayMs } = this.#limits;
    await this.#sweep();
    const now = this.#now();
    const pairKey = pairKeyOf(email, address);
    const [pair] = await this.#db
      .select({ failures: loginThrottle.failures })
      .from(loginThrottle)
      .where(eq(loginThrottle.key, pairKey));
    if (pair && pair.failures >= maxFailures) {
      await this.#block(pairKey, new Date(now.getTime() + lockoutMs));
    }
    const emailKey = emailKeyOf(email);
    const emailFailures = await this.#count(emailKey);
    if (emailFailures > freeFailures) {
      const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** (emailFailures - freeFailures - 1));
      await this.#block(emailKey, new Date(now.getTime() + delayMs));
    }
  }

  /**
   * An attempt admitted and then not tried (the password check was refused as too busy, or the
   * account signs in with single sign-on only): its reserved failure is given back.
   */
  async release(email: string, address: string): Promise<void> {
    await this.#giveBack(pairKeyOf(email, address));
  }

  /** A successful login at `email` from `address`: both its keys start again. */
  async succeeded(email: string, address: string): Promise<void> {
    await this.#db
      .delete(loginThrottle)
      .where(inArray(loginThrottle.key, [pairKeyOf(email, address), emailKeyOf(email)]));
  }

  /**
   * Counts an attempt of the pair `key` as a failure, unless the pair is locked out (then nothing
   * is written); a new window starts when the last one is over, or once a lockout earned in it
   * has been served. Resolves with the count and the lockout, after the change.
   */
  async #reserve(key: string, now: Date): Promise<{ failures: number; blockedUntil: Date | null }> {
    const at = sql`${now.toISOString()}::timestamptz`;
    const [row] = await this.#addFailure(key, now, {
      fresh: sql`(${this.#windowOver(now)} or (${loginThrottle.failures} >= ${this.#limits.maxFailures}
        and ${loginThrottle.blockedUntil} <= ${at}))`,
      // Locked out: the attempt changes nothing.
      unless: sql`${loginThrottle.blockedUntil} is null or ${loginThrottle.blockedUntil} <= ${at}`,
    });
    if (row) return row;
    const [locked] = await this.#db
      .select({ failures: loginThrottle.failures, blockedUntil: loginThrottle.blockedUntil })
      .from(loginThrottle)
      .where(eq(loginThrottle.key, key));
    // Gone meanwhile (a success elsewhere cleared it): nothing holds this attempt back.
    return locked ?? { failures: 0, blockedUntil: null };
  }

  /**
   * Adds a failure to the pair or e-mail `key`, or starts its window again where `fresh` holds;
   * where `unless` is given and does not hold, the row is left as it is (nothing returned).
   */
  #addFailure(key: string, now: Date, when: { fresh: SQL; unless?: SQL }) {
    const at = sql`${now.toISOString()}::timestamptz`;
    const { fresh } = when;
    return this.#db
      .insert(loginThrottle)
      .values({ key, failures: 1, windowStartedAt: now, blockedUntil: null })
      .onConflictDoUpdate({
        target: loginThrottle.key,
        set: {
          failures: sql`case when ${fresh} then 1 else ${loginThrottle.failures} + 1 end`,
          windowStartedAt: sql`case when ${fresh} then ${at}
            else ${loginThrottle.windowStartedAt} end`,
          blockedUntil: sql`case when ${fresh} then null else ${loginThrottle.blockedUntil} end`,
        },
        ...(when.unless ? { setWhere: when.unless } : {}),
      })
      .returning({ failures: loginThrottle.failures, blockedUntil: loginThrottle.blockedUntil });
  }

  /** Takes one reserved failure off the pair `key` (its attempt was not tried). */
  async #giveBack(key: string): Promise<void> {
    await this.#db
      .update(loginThrottle)
      .set({ failures: sql`greatest(${loginThrottle.failures} - 1, 0)` })
      .where(eq(loginThrottle.key, key));
  }

  /** Adds a failure to the e-mail's `key`, or starts a new window; resolves with the count. */
  async #count(key: string): Promise<number> {
    const now = this.#now();
    const [row] = await this.#addFailure(key, now, { fresh: this.#windowOver(now) });
    return row?.failures ?? 1;
  }

  /** Whether a row's window started `windowMs` or more before `now`. */
  #windowOver(now: Date) {
    const windowStart = new Date(now.getTime() - this.#limits.windowMs).toISOString();
    return sql`${loginThrottle.windowStartedAt} <= ${windowStart}::timestamptz`;
  }

  async #block(key: string, until: Date): Promise<void> {
    await this.#db
      .update(loginThrottle)
      .set({ blockedUntil: until })
      .where(eq(loginThrottle.key, key));
  }

  /** Deletes the rows whose window and lockout are both over (at most once a minute). */
  async #sweep(): Promise<void> {
    const now = this.#now().getTime();
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = now;
    const { windowMs, lockoutMs, maxDelayMs } = this.#limits;
    const before = new Date(now - windowMs - Math.max(lockoutMs, maxDelayMs));
    await this.#db.delete(loginThrottle).where(lt(loginThrottle.windowStartedAt, before));
  }
}
