/**
 * A new web lead's rows in one statement: the lead, its call and, when an agent was rung, the
 * agent's call user. Built by Drizzle and read back through its `returning()`, the three
 * inserts cost about 2.5 ms of PGlite's (the main thread's) time per lead, most of it in the
 * driver's per-statement work and the rows' mapping; one statement with data-modifying CTEs that
 * answers the three rows as JSON costs a fraction of that, and the rows are mapped back by the
 * schema's own column decoders (`rowFromJson`), so they are the same rows `returning()` gives.
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import type { CallRow, CallUserRow } from '../calls/calls-repo';
import { OPEN_CALL_STATUSES, statusListSql } from '../calls/call-status';
import { driverQuery, type Db } from '../db/database';
import {
  callUsers,
  calls,
  leads,
  LIVE_RESERVATION_PREDICATE,
  type CallReason,
  type CallStatus,
  type CallUserOutcome,
} from '../db/schema';
import type { LeadRow } from './leads-repo';

/** The lead's columns as intake stores them. */
export interface IntakeLead {
  accountId: number;
  profileId: number | null;
  fname: string;
  lname: string;
  phoneNumber: string;
  email: string | null;
  company: string | null;
  category: string | null;
  sourceId: string | null;
}

/** The call's columns as intake stores them (the lead's id is the new lead's). */
export interface IntakeCall {
  sid: string;
  status: CallStatus;
  reason: CallReason | null;
  callerNumberId: number | null;
  waitingSince: Date | null;
  endedAt: Date | null;
}

/** The rung agent's call user (its id taken ahead of time, see `IdBlocks`). */
export interface IntakeCallUser {
  id: number;
  userId: number;
  autoaccept: boolean;
  outcome: CallUserOutcome;
  /** When the ring's reservation expires (any instance's sweeper moves it on then). */
  expiresAt: Date;
}

/**
 * The statement: built once as text with numbered parameters and sent to the driver as it is
 * (through Drizzle's `sql` it is built anew for every lead, a third of its cost in PGlite).
 * `$20` is 1 when a call user is to be stored. The call user is the agent's reservation (issue
 * 38): stored only if the agent is not rung for or on a live call in the database (whatever the
 * router's memory said), their row is not being reserved by another statement right now
 * (`skip locked`), and no other live ring of theirs exists (the unique index
 * `call_users_one_live_ring_idx`); otherwise the lead and its call are stored without it
 * (`callUser` null) and the router offers the call to the next agent.
 */
const INTAKE_SQL = `with l as (
  insert into leads (account_id, profile_id, fname, lname, phone_number, email, company, category, source_id)
  values ($1::int, $2::int, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text)
  returning *
), c as (
  insert into calls (account_id, sid, type, direction, status, reason, source, waiting_since,
    lead_id, profile_id, caller_number_id, phone_number, ended_at)
  select l.account_id, $10::text, 'lead', 'outbound', $11::text, $12::text, 'web',
    $13::timestamptz, l.id, l.profile_id, $14::int, l.phone_number, $15::timestamptz
  from l
  returning *
), u as (
  insert into call_users (id, call_id, user_id, type, autoaccept, outcome, expires_at)
  select $16::int, c.id, $17::int, 'lead', $18::boolean, $19::text, $21::timestamptz
  from c
  where $20::int = 1
    and exists (select 1 from users ru where ru.id = $17::int for update skip locked)
    and not exists (select 1 from call_users busy_cu
      inner join calls busy_c on busy_c.id = busy_cu.call_id
      where busy_cu.user_id = $17::int
        and busy_c.status in ${statusListSql(OPEN_CALL_STATUSES)}
        and (busy_cu.outcome = 'ringing'
          or (busy_cu.outcome = 'accepted' and busy_cu.left_at is null)))
  on conflict (user_id) where ${LIVE_RESERVATION_PREDICATE} do nothing
  returning *
)
select row_to_json(l) as lead, row_to_json(c) as call, (select row_to_json(u) from u) as call_user
from l, c`;

/**
 * Inserts the lead, its web lead call (`type` lead, outbound, `source` web) and, when given,
 * the rung agent's call user, in one statement; resolves with the three rows as stored.
 */
export async function insertIntake(
  db: Db,
  lead: IntakeLead,
  call: IntakeCall,
  callUser: IntakeCallUser | null,
): Promise<{ lead: LeadRow; call: CallRow; callUser: CallUserRow | null }> {
  const [row] = await driverQuery<{ lead: unknown; call: unknown; call_user: unknown }>(
    db,
    INTAKE_SQL,
    [
      lead.accountId,
      lead.profileId,
      lead.fname,
      lead.lname,
      lead.phoneNumber,
      lead.email,
      lead.company,
      lead.category,
      lead.sourceId,
      call.sid,
      call.status,
      call.reason,
      call.waitingSince?.toISOString() ?? null,
      call.callerNumberId,
      call.endedAt?.toISOString() ?? null,
      callUser?.id ?? null,
      callUser?.userId ?? null,
      callUser?.autoaccept ?? false,
      callUser?.outcome ?? 'ringing',
      callUser === null ? 0 : 1,
      callUser?.expiresAt.toISOString() ?? null,
    ],
  );
  if (!row) throw new Error('The lead intake stored nothing.');
  return {
    lead: rowFromJson(leads, row.lead) as LeadRow,
    call: rowFromJson(calls, row.call) as CallRow,
    callUser:
      row.call_user === null ? null : (rowFromJson(callUsers, row.call_user) as CallUserRow),
  };
}

/**
 * A row of `table` from its `row_to_json` form (SQL column names; JSON values, timestamps as
 * ISO text), decoded by each column as Drizzle decodes what the driver returns.
 */
export function rowFromJson(table: Table, json: unknown): Record<string, unknown> {
  const source = (typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = source[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row;
}
