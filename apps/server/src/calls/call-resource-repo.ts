/**
 * The call as the API presents it (`Call` of the contracts): one prepared statement joins what
 * the call row points at. Storage of calls is `calls-repo.ts`.
 */
import { and, eq, sql } from 'drizzle-orm';
import { formatPhone, type Call, type CallType } from '@leadline/contracts';
import type { Db } from '../db/database';
import { prepared } from '../db/prepared';
import { callerNumbers, calls, leads, profiles, users } from '../db/schema';
import { toLeadResource } from '../leads/leads-repo';
import type { CallRow } from './calls-repo';

/** A tag of the call resource's profile. */
type TagResource = NonNullable<Call['profile']>['tags'][number];

/**
 * The joined profile's tags in their order (the admin's, `position`; then id), as one JSON
 * column (no second statement for them).
 */
const PROFILE_TAGS = sql<TagResource[] | null>`(
  select coalesce(
    json_agg(json_build_object('id', t.id, 'key', t.key, 'name', t.name, 'color', t.color)
      order by t.position, t.id),
    '[]'::json)
  from tags t where t.profile_id = ${profiles.id})`;

/**
 * The call as the console loads it: lead, profile with tags, caller number, agent. One prepared
 * statement joins what the call points at, the profile's tags included (the ringing console
 * waits for this: 'load the call user, then go to ringing'). The joins are keyed by the row's
 * own values, so a row just changed in memory is shown as it is. (Folding the call-user lookup
 * in as well, joins keyed by the call's columns, costs PGlite more planning than the statement
 * it saves.)
 */
export async function toCallResource(db: Db, call: CallRow, now: Date = new Date()): Promise<Call> {
  const p = (name: string) => sql.placeholder(name);
  const statement = prepared(db, 'call-resource', () =>
    db
      .select({
        lead: leads,
        profile: profiles,
        tags: PROFILE_TAGS,
        number: callerNumbers,
        agentName: users.fullName,
      })
      .from(calls)
      .leftJoin(leads, and(eq(leads.id, p('leadId')), eq(leads.accountId, p('accountId'))))
      .leftJoin(profiles, eq(profiles.id, p('profileId')))
      .leftJoin(callerNumbers, eq(callerNumbers.id, p('callerNumberId')))
      .leftJoin(users, eq(users.id, p('userId')))
      .where(eq(calls.id, p('callId')))
      .prepare('call_resource'),
  );
  const [joined] = await statement.execute({
    callId: call.id,
    leadId: call.leadId,
    accountId: call.accountId,
    profileId: call.profileId,
    callerNumberId: call.callerNumberId,
    userId: call.userId,
  });
  const lead = joined?.lead ?? null;
  const profileRow = joined?.profile ?? null;
  const numberRow = joined?.number ?? null;
  const profile: Call['profile'] = profileRow
    ? {
        id: profileRow.id,
        is_deal_whispertext: profileRow.isDealWhispertext,
        auto_answer: profileRow.autoAnswer,
        tags: joined?.tags ?? [],
      }
    : null;
  const number: Call['number'] = numberRow
    ? {
        name: numberRow.name,
        account_id: numberRow.accountId,
        phone_number_formatted: formatPhone(numberRow.phoneNumber),
      }
    : null;
  const agent = joined?.agentName != null ? { name: joined.agentName } : undefined;
  return {
    id: call.id,
    type: call.type as CallType,
    direction: call.direction,
    status: call.status,
    lead: lead ? toLeadResource(lead) : null,
    lead_id: call.leadId,
    account_id: call.accountId,
    profile_id: call.profileId,
    profile,
    number,
    phone_number: call.phoneNumber,
    phone_number_formatted: call.phoneNumber ? formatPhone(call.phoneNumber) : null,
    seconds_since_started_at: Math.max(
      0,
      Math.floor((now.getTime() - (call.answeredAt ?? call.createdAt).getTime()) / 1000),
    ),
    held: call.held,
    agent_name: agent?.name ?? null,
  };
}
