/**
 * Seeds the routing bench's agents into the demo account, as the scale seed does
 * (`apps/server/src/test-support/scale-seed.ts`: one set-based insert), but with a real password
 * hash so that each agent logs in over HTTP like a person: `routing-agent-<n>@example.com` with
 * the demo password, agent permissions, in the account's first team.
 */
import { sql } from 'drizzle-orm';
import { hashPassword } from '../../apps/server/src/auth/password';
import { queryRows, type Db } from '../../apps/server/src/db/database';
import { DEMO_PASSWORD } from '../../apps/server/src/db/seed';

/** The agents' login e-mail, by number (1-based). */
export const agentEmail = (n: number): string => `routing-agent-${n}@example.com`;

/** Their full names start with this (the bench counts them by name). */
export const AGENT_NAME_PREFIX = 'Routing agent';

/** Inserts `count` agents into the demo account (seeded already); returns their e-mails. */
export async function seedAgents(db: Db, count: number): Promise<string[]> {
  const [account] = await queryRows<{ id: number }>(
    db,
    sql`select id from accounts order by id limit 1`,
  );
  if (!account) throw new Error('the demo account is not seeded');
  // One hash for all: scrypt per agent would only slow the seed down.
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  // The benches post leads by the hundred a minute, each counted in the account's calls a minute
  // (the dial guard's; the operator's ceiling is raised by ONE_ADDRESS_LOAD).
  await db.execute(sql`
    update accounts set policy = policy || '{"calls_per_minute_per_account": 100000}'::jsonb
    where id = ${account.id}`);
  await db.execute(sql`
    insert into users (account_id, email, password_hash, full_name, permissions)
    select ${account.id}, 'routing-agent-' || g || '@example.com', ${passwordHash},
           ${AGENT_NAME_PREFIX} || ' ' || lpad(g::text, 3, '0'),
           '["app-sms","app-retry","app-autoaccept"]'::jsonb
    from generate_series(1, ${count}) g`);
  await db.execute(sql`
    insert into team_members (team_id, user_id)
    select (select id from teams where account_id = ${account.id} order by id limit 1), u.id
    from users u where u.email like 'routing-agent-%'`);
  return Array.from({ length: count }, (_, i) => agentEmail(i + 1));
}
