/**
 * A digest of the rows of every table: equal digests mean no row was added, removed or
 * changed. With an account id, only that account's rows count (tables without an account
 * column are scoped through their parent).
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';

/** How each table's rows of one account are found. */
const SCOPES: Record<string, (accountId: number) => SQL> = {
  accounts: (a) => sql`t.id = ${a}`,
  users: (a) => sql`t.account_id = ${a}`,
  teams: (a) => sql`t.account_id = ${a}`,
  team_members: (a) => sql`t.team_id in (select id from teams where account_id = ${a})`,
  profiles: (a) => sql`t.account_id = ${a}`,
  tags: (a) => sql`t.profile_id in (select id from profiles where account_id = ${a})`,
  caller_numbers: (a) => sql`t.account_id = ${a}`,
  leads: (a) => sql`t.account_id = ${a}`,
  calls: (a) => sql`t.account_id = ${a}`,
  dials: (a) => sql`t.account_id = ${a}`,
  call_users: (a) => sql`t.call_id in (select id from calls where account_id = ${a})`,
  notes: (a) => sql`t.account_id = ${a}`,
  sms_messages: (a) => sql`t.account_id = ${a}`,
  sessions: (a) => sql`t.user_id in (select id from users where account_id = ${a})`,
  api_keys: (a) => sql`t.account_id = ${a}`,
  idempotency_keys: (a) => sql`t.user_id in (select id from users where account_id = ${a})`,
};

/** The digest of the whole database, or of one account's rows. */
export async function fingerprint(db: Db, accountId?: number): Promise<string> {
  const parts: string[] = [];
  for (const [table, scope] of Object.entries(SCOPES)) {
    const where = accountId === undefined ? sql`` : sql`where ${scope(accountId)}`;
    const [row] = await queryRows<{ n: string; h: string }>(
      db,
      sql`select count(*)::text as n, coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as h
          from ${sql.identifier(table)} t ${where}`,
    );
    parts.push(`${table}:${row!.n}:${row!.h}`);
  }
  return parts.join(';');
}
