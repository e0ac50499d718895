/**
 * The embedded demo: one account with teams, agents, a supervisor, an admin, a profile with tags,
 * caller numbers and leads (README lists the logins). Idempotent: it seeds only an empty
 * database, and makes sure the configured lead-intake API key exists.
 *
 * The seed marks what it makes that the public demo gives away (`demo` on its accounts, its users
 * and the demo API key): a production start refuses the marked users and key, and `remove-demo`
 * removes them (`demo-removal.ts`). Only this file sets the marker; no admin action or API can,
 * so nothing a tenant does looks like the demo.
 *
 * Everything an admin could make goes through the admin services (`admin/`), the ones the admin
 * API and `npm run admin` use, with their checks and audit entries (the seed's actor is the
 * system): every embedded start proves them. The seed is its accounts' operator too: it
 * assigns each caller number's number to its account first (`npm run admin -- assign-number`),
 * so the numbers keep working on a provider whose numbers are assigned (Twilio). Leads are not
 * an admin's to make; they are inserted as lead intake would store them.
 */
import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { AccountSettings, PermissionString } from '@leadline/contracts';
import { createApiKey, apiKeyHash } from '../admin/admin-api-keys';
import { createCallerNumber } from '../admin/admin-caller-numbers';
import { assignNumber } from '../admin/number-assignments';
import { createProfile } from '../admin/admin-profiles';
import { createAdminTeam } from '../admin/admin-teams';
import { createAdminUser } from '../admin/admin-users-write';
import { SYSTEM_ACTOR } from '../admin/audit';
import { insertAccount } from '../admin/create-account';
import { hashPassword } from '../auth/password';
import type { Db, DbOrTx } from './database';
import { DEMO_API_KEY, DEMO_PASSWORD } from './demo-logins';
import { accounts, apiKeys, leads, users } from './schema';

export { DEMO_PASSWORD };

/**
 * The demo password's hash, made once per process (each costs half a second): the demo logins
 * share their password anyway, so they may share its salt.
 */
let demoPasswordHash: Promise<string> | undefined;
const hashDemoPassword = (): Promise<string> => (demoPasswordHash ??= hashPassword(DEMO_PASSWORD));
const demoHashing = { hashPassword: hashDemoPassword };

const AGENT_PERMISSIONS: PermissionString[] = ['app-sms', 'app-retry', 'app-autoaccept'];
const SUPERVISOR_PERMISSIONS: PermissionString[] = [
  ...AGENT_PERMISSIONS,
  'listen',
  'whisper',
  'barge',
];

/** The demo's tags (Tags & Stages), in the order the console shows them. */
const DEMO_TAGS = [
  { key: 'hot', name: 'Hot lead', color: '#d93025' },
  { key: 'quote-sent', name: 'Quote sent', color: '#f29900' },
  { key: 'follow-up', name: 'Follow up', color: '#1a73e8' },
  { key: 'not-interested', name: 'Not interested', color: '#5f6368' },
];

/**
 * Accounts whose behaviour the spec hard-codes by id, seeded with that behaviour as settings
 * (spec sections 2, 6 and 8): each gets one agent, `agent@a<id>.example.com`.
 */
export const SPECIAL_ACCOUNTS: ReadonlyArray<{
  id: number;
  name: string;
  settings: AccountSettings;
}> = [
  {
    id: 6671,
    name: 'Account 6671 (lead names, hidden e-mail, CRM link)',
    settings: {
      hide_lead_email: true,
      history_shows_lead_name: true,
      external_crm_link_template:
        'https://crm.example.com/agents/{agent_id}/leads/{lead_id}?phone={phone}&call={call_id}',
    },
  },
  {
    id: 9920,
    name: 'Account 9920 (phone on the lead card)',
    settings: { lead_card_shows_phone: true },
  },
  {
    id: 9420,
    name: 'Account 9420 (number in the inbound banner)',
    settings: { inbound_banner_shows_number: true },
  },
  {
    id: 781,
    name: 'Account 781 (no automatic token re-fetch)',
    settings: { no_token_refetch: true },
  },
];

/** The profile that does not auto-answer (spec section 6), in account 6671. */
export const NO_AUTO_ANSWER_PROFILE_ID = 7703;

/**
 * Seeds what is missing of the demo: the demo account (on an empty database), and each special
 * account by id. Returns whether anything was created.
 */
export async function seedDemo(db: Db): Promise<boolean> {
  const createdDemo = await seedDemoAccount(db);
  let createdSpecial = false;
  for (const special of SPECIAL_ACCOUNTS) {
    createdSpecial = (await seedSpecialAccount(db, special)) || createdSpecial;
  }
  if (createdSpecial) {
    // Rows were inserted with explicit ids: move the sequences past them.
    await db.execute(
      sql`select setval(pg_get_serial_sequence('accounts', 'id'), (select max(id) from accounts))`,
    );
    await db.execute(
      sql`select setval(pg_get_serial_sequence('profiles', 'id'), (select max(id) from profiles))`,
    );
  }
  return createdDemo || createdSpecial;
}

async function seedSpecialAccount(
  db: Db,
  special: { id: number; name: string; settings: AccountSettings },
): Promise<boolean> {
  const [existing] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.id, special.id));
  if (existing) return false;
  await db.transaction(async (tx) => {
    const accountId = await insertAccount(
      tx,
      SYSTEM_ACTOR,
      { name: special.name },
      { id: special.id, settings: special.settings },
    );
    const fixedId = accountId === 6671 ? NO_AUTO_ANSWER_PROFILE_ID : undefined;
    if (fixedId !== undefined) await nextProfileIdIs(tx, fixedId);
    const profile = await createProfile(tx, SYSTEM_ACTOR, accountId, {
      name: fixedId !== undefined ? 'Callbacks (no auto-answer)' : 'Leads',
      is_deal_whispertext: false,
      auto_answer: fixedId === undefined,
      tags: [
        { key: 'hot', name: 'Hot lead', color: '#d93025' },
        { key: 'follow-up', name: 'Follow up', color: '#1a73e8' },
      ],
    });
    if (fixedId !== undefined && profile.id !== fixedId) {
      throw new Error(`The seed's profile ${fixedId} got id ${profile.id}.`);
    }
    if (fixedId !== undefined) await profileSequenceAtMax(tx);
    const team = await createAdminTeam(tx, SYSTEM_ACTOR, accountId, { name: 'Agents' });
    const agent = await createAdminUser(
      tx,
      SYSTEM_ACTOR,
      accountId,
      {
        full_name: `Agent ${accountId}`,
        email: `agent@a${accountId}.example.com`,
        password: DEMO_PASSWORD,
        role: 'agent',
        permissions: AGENT_PERMISSIONS,
        team_ids: [team.id],
      },
      demoHashing,
    );
    const line = `+1555015${String(accountId).padStart(4, '0')}`;
    await assignNumber(tx, SYSTEM_ACTOR, accountId, line);
    await markDemo(tx, accountId, [agent.id]);
    await createCallerNumber(tx, SYSTEM_ACTOR, accountId, {
      name: `${special.name.split(' (')[0]} line`,
      phone_number: line,
      profile_id: profile.id,
    });
    await tx.insert(leads).values({
      accountId,
      profileId: profile.id,
      fname: 'Casey',
      lname: `Lead ${accountId}`,
      phoneNumber: `+155501${String(accountId).padStart(5, '0').slice(-5)}`,
      email: `casey.${accountId}@example.net`,
      company: 'Example Co',
    });
  });
  return true;
}

/** Marks the seed's account and its logins as the demo's (see the file's comment). */
async function markDemo(tx: DbOrTx, accountId: number, userIds: number[]): Promise<void> {
  await tx.update(accounts).set({ demo: true }).where(eq(accounts.id, accountId));
  await tx.update(users).set({ demo: true }).where(inArray(users.id, userIds));
}

/** Moves the profiles' sequence so the next profile gets `id` (free: checked by the caller's insert). */
async function nextProfileIdIs(tx: DbOrTx, id: number): Promise<void> {
  await tx.execute(sql`select setval(pg_get_serial_sequence('profiles', 'id'), ${id - 1})`);
}

/** Moves the profiles' sequence past the largest id again. */
async function profileSequenceAtMax(tx: DbOrTx): Promise<void> {
  await tx.execute(
    sql`select setval(pg_get_serial_sequence('profiles', 'id'), (select max(id) from profiles))`,
  );
}

/** The demo account's people: agents, a supervisor and the admin (`team` by name). */
const DEMO_PEOPLE = [
  {
    email: 'agent1@example.com',
    full_name: 'Alex Rivera',
    phone_number: '+15550142001',
    role: 'agent',
    permissions: AGENT_PERMISSIONS,
    team: 'Sales',
    // The lead card's CRM buttons for leads that carry a source_id (demo CRM accounts).
    integrations: {
      hubspot_id: '2468013',
      salesforce_domain: 'acme-solar.my.salesforce.com',
      activecampaign_domain: null,
    },
  },
  {
    email: 'agent2@example.com',
    full_name: 'Blake Chen',
    phone_number: '+15550142002',
    role: 'agent',
    permissions: AGENT_PERMISSIONS,
    team: 'Support',
  },
  {
    email: 'supervisor@example.com',
    full_name: 'Sam Okafor',
    phone_number: '+15550142003',
    role: 'supervisor',
    permissions: SUPERVISOR_PERMISSIONS,
    team: 'Sales',
  },
  {
    email: 'admin@example.com',
    full_name: 'Morgan Ellis',
    phone_number: null,
    role: 'admin',
    permissions: [],
    team: null,
  },
] as const;

/** Seeds the demo account if the database has no account yet; returns whether it did. */
async function seedDemoAccount(db: Db): Promise<boolean> {
  const [any] = await db.select({ id: accounts.id }).from(accounts).limit(1);
  if (any) return false;
  await db.transaction(async (tx) => {
    const accountId = await insertAccount(
      tx,
      SYSTEM_ACTOR,
      { name: 'Acme Solar (demo)', country_code: 'US', time_zone: 'America/Los_Angeles' },
      {
        ssoEnabled: true,
        // A US account that also calls its Canadian and British leads (the dial guard's
        // countries; an account without the field calls its own country only).
        policy: { call_countries: ['US', 'CA', 'GB'] },
      },
    );
    const profile = await createProfile(tx, SYSTEM_ACTOR, accountId, {
      name: 'Solar leads',
      is_deal_whispertext: true,
      auto_answer: true,
      tags: DEMO_TAGS,
    });
    const teamIds = new Map<string, number>();
    for (const name of ['Sales', 'Support']) {
      teamIds.set(name, (await createAdminTeam(tx, SYSTEM_ACTOR, accountId, { name })).id);
    }
    const people: number[] = [];
    for (const person of DEMO_PEOPLE) {
      const user = await createAdminUser(
        tx,
        SYSTEM_ACTOR,
        accountId,
        {
          full_name: person.full_name,
          email: person.email,
          password: DEMO_PASSWORD,
          role: person.role,
          permissions: [...person.permissions],
          team_ids: person.team ? [teamIds.get(person.team)!] : [],
          phone_number: person.phone_number,
          ...('integrations' in person ? { integrations: person.integrations } : {}),
        },
        demoHashing,
      );
      people.push(user.id);
    }
    await markDemo(tx, accountId, people);
    for (const [name, phone] of [
      ['Acme Solar main line', '+15550142000'],
      ['Acme Solar spring campaign', '+15550142010'],
    ] as const) {
      await assignNumber(tx, SYSTEM_ACTOR, accountId, phone);
      await createCallerNumber(tx, SYSTEM_ACTOR, accountId, {
        name,
        phone_number: phone,
        profile_id: profile.id,
      });
    }
    await tx.insert(leads).values([
      {
        accountId,
        profileId: profile.id,
        fname: 'Jordan',
        lname: 'Miles',
        phoneNumber: '+15550100042',
        email: 'jordan.miles@example.net',
        company: 'Miles Roofing',
        category: 'Residential',
      },
      {
        accountId,
        profileId: profile.id,
        fname: 'Priya',
        lname: 'Natarajan',
        phoneNumber: '+15550100117',
        email: 'priya@example.org',
        company: 'Sunrise Dental',
        category: 'Commercial',
      },
    ]);
  });
  return true;
}

/**
 * Makes sure the lead-intake API key `key` (`LEADLINE_API_KEY`) exists, through the admin service
 * (an audit entry says the system made it). A new key goes to the first account of the operator's
 * (one the demo seed did not make), so that after `remove-demo` it does not land on the leftover
 * demo account; on a database of demo accounts only (an embedded trial, or an operator who kept
 * the demo account as theirs), to the first of those. The demo's own key (`demo-api-key`) goes to
 * the demo account and is marked as the demo's. A key already registered stays where it is.
 */
export async function ensureApiKey(db: Db, key: string): Promise<void> {
  const [existing] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, apiKeyHash(key)))
    .limit(1);
  if (existing) return;
  const demo = key === DEMO_API_KEY;
  const [account] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .orderBy(desc(sql`${accounts.demo} = ${demo}`), accounts.id)
    .limit(1);
  if (!account) return;
  await db.transaction(async (tx) => {
    const created = await createApiKey(tx, SYSTEM_ACTOR, account.id, { name: 'Lead intake' }, key);
    if (demo) await tx.update(apiKeys).set({ demo: true }).where(eq(apiKeys.id, created.id));
  });
}
