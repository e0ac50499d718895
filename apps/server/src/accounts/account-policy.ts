/**
 * The account's security policy (`accounts.policy`, issue 36) read with its defaults. The policy
 * is JSON an operator writes (SQL or the seed today, the administration screens later), so each
 * field is checked on its own: a field of the wrong shape is applied as its strictest value and
 * named in `problems` for the log, never ignored (a typo must not open what it meant to close)
 * and never a 500.
 *
 * The dialling part lives under the operator's ceiling (`DialCeiling`, from the environment):
 * a tenant's policy only narrows it, and a policy stored before the ceiling was lowered is
 * applied as the narrower of the two (`withinCeiling`).
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/database';
import { accounts, type AccountPolicy } from '../db/schema';

/** One field of the policy as read: absent, a value of its type, or something unreadable. */
export type PolicyField<T> =
  { kind: 'absent' } | { kind: 'set'; value: T } | { kind: 'unreadable'; raw: unknown };

/** Reads the field `key` of a stored policy (any JSON) with the field's schema. */
export function readPolicyField<K extends keyof AccountPolicy>(
  policy: unknown,
  key: K,
  schema: z.ZodType<NonNullable<AccountPolicy[K]>>,
): PolicyField<NonNullable<AccountPolicy[K]>> {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    return { kind: 'unreadable', raw: policy };
  }
  if (!Object.hasOwn(policy, key)) return { kind: 'absent' };
  const raw = (policy as Record<string, unknown>)[key];
  if (raw === undefined || raw === null) return { kind: 'absent' };
  const parsed = schema.safeParse(raw);
  return parsed.success ? { kind: 'set', value: parsed.data } : { kind: 'unreadable', raw };
}

/** The stored policy of an account (`{}` for an account that does not exist). */
export async function loadAccountPolicy(db: Db, accountId: number): Promise<unknown> {
  const [row] = await db
    .select({ policy: accounts.policy })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row?.policy ?? {};
}

// ── Single sign-on ───────────────────────────────────────────────────────────────────────────

/** Which values of an ID token's claim an account allows. */
export type AllowedClaimValues = 'any' | ReadonlySet<string>;

/** The single sign-on part of an account's policy, with its defaults. */
export interface SsoPolicy {
  /** `sso_only` (default false): password login is refused for the account's users. */
  ssoOnly: boolean;
  /** `sso_hosted_domains`, lower case: the Google Workspace domains (`hd` claim) allowed. */
  hostedDomains: AllowedClaimValues;
  /** `sso_tenant_ids`, lower case: the Microsoft Entra tenants (`tid` claim) allowed. */
  tenantIds: AllowedClaimValues;
  /** The fields that could not be read (applied as their strictest value), for the log. */
  problems: string[];
}

const claimValues = z.array(z.string().trim().min(1));

/**
 * The single sign-on policy of a stored policy. Defaults: password login allowed, any workspace,
 * any tenant (an empty list is no list). Strictest, for a field of the wrong shape: single
 * sign-on only, no workspace, no tenant.
 */
export function ssoPolicyOf(policy: unknown): SsoPolicy {
  const problems: string[] = [];
  const ssoOnly = readPolicyField(policy, 'sso_only', z.boolean());
  if (ssoOnly.kind === 'unreadable') problems.push('sso_only must be true or false');
  const allowed = (key: 'sso_hosted_domains' | 'sso_tenant_ids'): AllowedClaimValues => {
    const field = readPolicyField(policy, key, claimValues);
    if (field.kind === 'unreadable') {
      problems.push(`${key} must be a list of strings`);
      return new Set();
    }
    if (field.kind === 'absent' || field.value.length === 0) return 'any';
    return new Set(field.value.map((value) => value.toLowerCase()));
  };
  return {
    ssoOnly: ssoOnly.kind === 'unreadable' || (ssoOnly.kind === 'set' && ssoOnly.value),
    hostedDomains: allowed('sso_hosted_domains'),
    tenantIds: allowed('sso_tenant_ids'),
    problems,
  };
}

/** Whether a claim's value (absent: null) is one `allowed` lets in. */
export function claimAllowed(allowed: AllowedClaimValues, value: unknown): boolean {
  if (allowed === 'any') return true;
  return typeof value === 'string' && allowed.has(value.trim().toLowerCase());
}

// ── Sessions ─────────────────────────────────────────────────────────────────────────────────

/** The idle timeouts an account may set, in minutes (`session_idle_minutes`). */
export const SESSION_IDLE_MINUTES_RANGE = { min: 5, max: 30 * 24 * 60 } as const;

const idleMinutes = z
  .number()
  .int()
  .min(SESSION_IDLE_MINUTES_RANGE.min)
  .max(SESSION_IDLE_MINUTES_RANGE.max);

/**
 * How long a session of the account may go unused before it ends (ms): `session_idle_minutes`
 * (whole minutes, 5 to 43,200), or `defaultMs` (the server's `SESSION_IDLE_MINUTES`) when absent.
 * Strictest, for a value of the wrong shape: the shortest, 5 minutes.
 */
export function sessionIdleMsOf(policy: unknown, defaultMs: number): number {
  const field = readPolicyField(policy, 'session_idle_minutes', idleMinutes);
  if (field.kind === 'absent') return defaultMs;
  const minutes = field.kind === 'set' ? field.value : SESSION_IDLE_MINUTES_RANGE.min;
  return minutes * 60_000;
}

// ── Dialling (the toll-fraud guard, calls/dial-guard.ts) ─────────────────────────────────────

/** The dialling limits when the policy sets none. */
export const DIAL_POLICY_DEFAULTS = {
  /** Outbound calls one agent may place per minute (a person dials a few). */
  callsPerMinutePerAgent: 10,
  /** Outbound calls the whole account may place per minute. */
  callsPerMinutePerAccount: 120,
  /** SMS one agent may send per hour (one follow-up per call). */
  smsPerHourPerAgent: 60,
  /** SMS the whole account may send per hour. */
  smsPerHourPerAccount: 600,
} as const;

/** The largest limit a policy may set (a typo of extra digits is not "no limit"). */
export const DIAL_LIMIT_MAX = 100_000;

/** The dialling part of an account's policy, with its defaults. */
export interface DialPolicy {
  /**
   * `call_countries` (ISO 3166-1 alpha-2, upper case): the countries agents may call and text.
   * Default (absent or empty): the account's own country (`accounts.country_code`).
   */
  callCountries: ReadonlySet<string>;
  /** `calls_per_minute_per_agent`. */
  callsPerMinutePerAgent: number;
  /** `calls_per_minute_per_account`. */
  callsPerMinutePerAccount: number;
  /** `sms_per_hour_per_agent`. */
  smsPerHourPerAgent: number;
  /** `sms_per_hour_per_account`. */
  smsPerHourPerAccount: number;
  /** The fields that could not be read (applied as their strictest value), for the log. */
  problems: string[];
}

const countryCodes = z.array(z.string().regex(/^[A-Za-z]{2}$/));
const dialLimit = z.number().int().min(1).max(DIAL_LIMIT_MAX);

/**
 * The dialling policy of a stored policy for an account of `ownCountry`. Strictest, for a field
 * of the wrong shape: no country for `call_countries`, 1 for a limit.
 */
export function dialPolicyOf(policy: unknown, ownCountry: string): DialPolicy {
  const problems: string[] = [];
  const countries = readPolicyField(policy, 'call_countries', countryCodes);
  let callCountries: ReadonlySet<string>;
  if (countries.kind === 'unreadable') {
    problems.push('call_countries must be a list of two-letter country codes');
    callCountries = new Set();
  } else if (countries.kind === 'absent' || countries.value.length === 0) {
    callCountries = new Set([ownCountry.toUpperCase()]);
  } else {
    callCountries = new Set(countries.value.map((code) => code.toUpperCase()));
  }
  const limit = (
    key:
      | 'calls_per_minute_per_agent'
      | 'calls_per_minute_per_account'
      | 'sms_per_hour_per_agent'
      | 'sms_per_hour_per_account',
    fallback: number,
  ): number => {
    const field = readPolicyField(policy, key, dialLimit);
    if (field.kind === 'set') return field.value;
    if (field.kind === 'absent') return fallback;
    problems.push(`${key} must be a whole number from 1 to ${DIAL_LIMIT_MAX}`);
    return 1;
  };
  return {
    callCountries,
    callsPerMinutePerAgent: limit(
      'calls_per_minute_per_agent',
      DIAL_POLICY_DEFAULTS.callsPerMinutePerAgent,
    ),
    callsPerMinutePerAccount: limit(
      'calls_per_minute_per_account',
      DIAL_POLICY_DEFAULTS.callsPerMinutePerAccount,
    ),
    smsPerHourPerAgent: limit('sms_per_hour_per_agent', DIAL_POLICY_DEFAULTS.smsPerHourPerAgent),
    smsPerHourPerAccount: limit(
      'sms_per_hour_per_account',
      DIAL_POLICY_DEFAULTS.smsPerHourPerAccount,
    ),
    problems,
  };
}

// ── The operator's ceiling (DIAL_* settings, config.ts) ──────────────────────────────────────

/**
 * What no account may exceed, whatever its admin sets: the operator's, from the environment
 * (`DIAL_ALLOWED_COUNTRIES`, `DIAL_MAX_CALLS_PER_MINUTE_PER_AGENT`,
 * `DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT`, `DIAL_MAX_SMS_PER_HOUR`). Every Leadline account
 * calls and texts on the operator's bill (with Twilio, through one account), so a tenant admin
 * (or a stolen admin login) must not be able to open what the operator closed.
 */
export interface DialCeiling {
  /** The countries any account may call and text (ISO 3166-1 alpha-2, upper case), or any. */
  countries: ReadonlySet<string> | 'any';
  /** The most calls a minute one agent may place. */
  callsPerMinutePerAgent: number;
  /** The most calls a minute one account may place (its agents' and its web leads'). */
  callsPerMinutePerAccount: number;
  /** The most SMS an hour one account may send (so also any one agent of it). */
  smsPerHour: number;
}

/**
 * The ceiling when the operator sets none: the countries New Call allowed the demo account
 * before there was a ceiling (the United States, Canada and the United Kingdom: the seed's
 * `call_countries`), and the limits an account has when its policy sets none, so that out of the
 * box no tenant may go beyond the defaults, only below them.
 */
export const DEFAULT_DIAL_CEILING: DialCeiling = {
  countries: new Set(['US', 'CA', 'GB']),
  callsPerMinutePerAgent: DIAL_POLICY_DEFAULTS.callsPerMinutePerAgent,
  callsPerMinutePerAccount: DIAL_POLICY_DEFAULTS.callsPerMinutePerAccount,
  smsPerHour: DIAL_POLICY_DEFAULTS.smsPerHourPerAccount,
};

/** A ceiling above anything a policy may set (tests of other things; `*` and the maxima). */
export const NO_DIAL_CEILING: DialCeiling = {
  countries: 'any',
  callsPerMinutePerAgent: DIAL_LIMIT_MAX,
  callsPerMinutePerAccount: DIAL_LIMIT_MAX,
  smsPerHour: DIAL_LIMIT_MAX,
};

/** The account's dialling policy as applied: each field the narrower of it and the ceiling. */
export function withinCeiling(policy: DialPolicy, ceiling: DialCeiling): DialPolicy {
  const { countries } = ceiling;
  return {
    callCountries:
      countries === 'any'
        ? policy.callCountries
        : new Set([...policy.callCountries].filter((code) => countries.has(code))),
    callsPerMinutePerAgent: Math.min(policy.callsPerMinutePerAgent, ceiling.callsPerMinutePerAgent),
    callsPerMinutePerAccount: Math.min(
      policy.callsPerMinutePerAccount,
      ceiling.callsPerMinutePerAccount,
    ),
    smsPerHourPerAgent: Math.min(policy.smsPerHourPerAgent, ceiling.smsPerHour),
    smsPerHourPerAccount: Math.min(policy.smsPerHourPerAccount, ceiling.smsPerHour),
    problems: policy.problems,
  };
}

/** The dialling fields an admin may set, as `PATCH /api/v1/admin/account` carries them. */
export interface DialPolicyChange {
  call_countries?: string[] | undefined;
  calls_per_minute_per_agent?: number | undefined;
  calls_per_minute_per_account?: number | undefined;
  sms_per_hour_per_agent?: number | undefined;
  sms_per_hour_per_account?: number | undefined;
}

/** "A, B and C". */
const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * Why an admin's change to the dialling policy goes beyond the ceiling (the sentence the 422
 * answers, naming the ceiling), or null when it stays within it.
 */
export function ceilingRefusal(change: DialPolicyChange, ceiling: DialCeiling): string | null {
  const { countries } = ceiling;
  if (change.call_countries && countries !== 'any') {
    const beyond = change.call_countries.filter((code) => !countries.has(code.toUpperCase()));
    if (beyond.length > 0) {
      const allowed = listed([...countries].sort());
      return `${listed(beyond.map((code) => code.toUpperCase()))} ${beyond.length === 1 ? 'is' : 'are'} beyond this server's limit: the call countries may only be among ${allowed}.`;
    }
  }
  const limits: Array<[keyof DialPolicyChange, string, number]> = [
    ['calls_per_minute_per_agent', 'calls per minute per agent', ceiling.callsPerMinutePerAgent],
    [
      'calls_per_minute_per_account',
      'calls per minute per account',
      ceiling.callsPerMinutePerAccount,
    ],
    ['sms_per_hour_per_agent', 'texts per hour per agent', ceiling.smsPerHour],
    ['sms_per_hour_per_account', 'texts per hour per account', ceiling.smsPerHour],
  ];
  for (const [key, name, most] of limits) {
    const value = change[key];
    if (typeof value === 'number' && value > most) {
      return `The ${name} may be at most ${most.toLocaleString('en-US')}, this server's limit.`;
    }
  }
  return null;
}
