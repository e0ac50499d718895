/**
 * The account as its admin sees and changes it (issue 37): name, country and time zone; the
 * account behaviours (`settings`, the flags the spec ties to accounts 6671, 9920, 9420 and 781);
 * single sign-on (`sso_enabled`, `sso_domain`, policy `sso_only`); the toll-fraud guard's
 * countries and limits, the session idle timeout and the CRM defaults (all in `policy`); the
 * floor's service level threshold (`service_level_seconds`).
 *
 * What is read back is the effective value: the dial policy with the server's defaults filled
 * in, within the operator's ceiling (`accounts/account-policy.ts`: a policy stored before the
 * ceiling was lowered is shown, and applied, as the narrower of the two). A change beyond the
 * ceiling is refused (422, naming it) and stores nothing. The readers of these columns (sessions, the dial guard,
 * single sign-on, the user resource) read them from the database at each use, so a change holds
 * on every instance from the next request; the caller still announces it (`admin-changes.ts`).
 */
import { eq } from 'drizzle-orm';
import type { AdminAccount, AdminAccountUpdateBody } from '@leadline/contracts';
import {
  ceilingRefusal,
  dialPolicyOf,
  ssoPolicyOf,
  withinCeiling,
  type DialCeiling,
} from '../accounts/account-policy';
import type { DbOrTx } from '../db/database';
import { accounts, type AccountPolicy } from '../db/schema';
import { AppError } from '../http/errors';
import { appendAudit, diffFields, type AuditActor } from './audit';

type AccountRow = typeof accounts.$inferSelect;

/** The stored policy as an object (`{}` when it is not one). */
const policyObject = (policy: unknown): AccountPolicy =>
  typeof policy === 'object' && policy !== null && !Array.isArray(policy) ? policy : {};

/** An account row as the admin API shows it, its dial policy as applied under `ceiling`. */
export function toAdminAccount(row: AccountRow, ceiling: DialCeiling): AdminAccount {
  const policy = policyObject(row.policy);
  const dial = withinCeiling(dialPolicyOf(row.policy, row.countryCode), ceiling);
  const idle = policy.session_idle_minutes;
  const crm = policy.crm_defaults ?? {};
  return {
    id: row.id,
    name: row.name,
    country_code: row.countryCode,
    time_zone: row.timeZone,
    settings: row.settings,
    single_sign_on: {
      enabled: row.ssoEnabled,
      domain: row.ssoDomain,
      sso_only: ssoPolicyOf(row.policy).ssoOnly,
    },
    dial_policy: {
      call_countries: [...dial.callCountries].sort(),
      calls_per_minute_per_agent: dial.callsPerMinutePerAgent,
      calls_per_minute_per_account: dial.callsPerMinutePerAccount,
      sms_per_hour_per_agent: dial.smsPerHourPerAgent,
      sms_per_hour_per_account: dial.smsPerHourPerAccount,
    },
    session_idle_minutes: typeof idle === 'number' && Number.isInteger(idle) ? idle : null,
    service_level_seconds: row.serviceLevelSeconds,
    crm_defaults: {
      hubspot_id: crm.hubspot_id ?? null,
      salesforce_domain: crm.salesforce_domain ?? null,
      activecampaign_domain: crm.activecampaign_domain ?? null,
    },
  };
}

async function accountRow(db: DbOrTx, accountId: number, lock: boolean): Promise<AccountRow> {
  const query = db.select().from(accounts).where(eq(accounts.id, accountId));
  const [row] = lock ? await query.for('no key update') : await query;
  if (!row) throw new AppError('NOT_FOUND', 'Account not found.');
  return row;
}

/** The account as GET /api/v1/admin/account shows it. */
export async function getAdminAccount(
  db: DbOrTx,
  accountId: number,
  ceiling: DialCeiling,
): Promise<AdminAccount> {
  return toAdminAccount(await accountRow(db, accountId, false), ceiling);
}

/** The policy with the dial, session and CRM fields of `body` written over it. */
function nextPolicy(policy: AccountPolicy, body: AdminAccountUpdateBody): AccountPolicy {
  const next: AccountPolicy = { ...policy, ...body.dial_policy };
  if (body.single_sign_on?.sso_only !== undefined) next.sso_only = body.single_sign_on.sso_only;
  if (body.session_idle_minutes === null) delete next.session_idle_minutes;
  else if (body.session_idle_minutes !== undefined) {
    next.session_idle_minutes = body.session_idle_minutes;
  }
  if (body.crm_defaults !== undefined) {
    next.crm_defaults = { ...policy.crm_defaults, ...body.crm_defaults };
  }
  return next;
}

/**
 * Changes the account (PATCH /api/v1/admin/account): only the fields given; `settings`,
 * `single_sign_on`, `dial_policy` and `crm_defaults` change the keys they carry and keep the
 * others. A dial policy beyond the operator's `ceiling` is refused (422) and nothing changes.
 * Resolves with the account as it is now.
 */
export async function updateAdminAccount(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminAccountUpdateBody,
  ceiling: DialCeiling,
): Promise<AdminAccount> {
  const beyond = body.dial_policy ? ceilingRefusal(body.dial_policy, ceiling) : null;
  if (beyond !== null) throw new AppError('VALIDATION_FAILED', beyond);
  return db.transaction(async (tx) => {
    const row = await accountRow(tx, accountId, true);
    const sso = body.single_sign_on;
    const [updated] = await tx
      .update(accounts)
      .set({
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.country_code === undefined ? {} : { countryCode: body.country_code }),
        ...(body.time_zone === undefined ? {} : { timeZone: body.time_zone }),
        ...(body.settings === undefined ? {} : { settings: { ...row.settings, ...body.settings } }),
        ...(sso?.enabled === undefined ? {} : { ssoEnabled: sso.enabled }),
        ...(sso?.domain === undefined ? {} : { ssoDomain: sso.domain }),
        // A new threshold counts the floor's figures again (migration 0016's trigger).
        ...(body.service_level_seconds === undefined
          ? {}
          : { serviceLevelSeconds: body.service_level_seconds }),
        policy: nextPolicy(policyObject(row.policy), body),
      })
      .where(eq(accounts.id, accountId))
      .returning();
    const before = toAdminAccount(row, ceiling);
    const after = toAdminAccount(updated!, ceiling);
    const changes = diffFields({ ...before }, { ...after });
    if (Object.keys(changes).length > 0) {
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'account.update',
        target: `account:${accountId}`,
        changes,
      });
    }
    return after;
  });
}
