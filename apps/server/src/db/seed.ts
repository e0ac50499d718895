/**
 * The embedded demo: one account with teams, agents, a supervisor, a profile with tags, caller
 * numbers and leads (README lists the logins). Idempotent: it seeds only an empty database,
 * and makes sure the configured lead-intake API key exists.
 */
import { createHash } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import type { AccountSettings } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import type { Db } from './database';
import {
  accounts,
  apiKeys,
  callerNumbers,
  leads,
  profiles,
  tags,
  teamMembers,
  teams,
  users,
} from './schema';

/** The demo logins' password. */
export const DEMO_PASSWORD = 'leadline-demo';

/**
 * The demo password's hash, made once per process (each costs half a second): the demo logins
 * share their password anyway, so they may share its salt.
 */
let demoPasswordHash: Promise<string> | undefined;
const hashDemoPassword = (): Promise<string> => (demoPasswordHash ??= hashPassword(DEMO_PASSWORD));

const AGENT_PERMISSIONS = ['app-sms', 'app-retry', 'app-autoaccept'];
const SUPERVISOR_PERMISSIONS = [...AGENT_PERMISSIONS, 'listen', 'whisper', 'barge'];

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
  const password = await hashDemoPassword();
  await db.transaction(async (tx) => {
    const accountId = special.id;
    await tx
      .insert(accounts)
      .values({ id: accountId, name: special.name, settings: special.settings });
    const profileValues =
      accountId === 6671
        ? {
            id: NO_AUTO_ANSWER_PROFILE_ID,
            accountId,
            name: 'Callbacks (no auto-answer)',
            autoAnswer: false,
          }
        : { accountId, name: 'Leads' };
    const [profile] = await tx.insert(profiles).values(profileValues).returning();
    await tx.insert(tags).values([
      { profileId: profile!.id, key: 'hot', name: 'Hot lead', color: '#d93025' },
      { profileId: profile!.id, key: 'follow-up', name: 'Follow up', color: '#1a73e8' },
    ]);
    const [agent] = await tx
      .insert(users)
      .values({
        accountId,
        email: `agent@a${accountId}.example.com`,
        passwordHash: password,
        fullName: `Agent ${accountId}`,
        permissions: AGENT_PERMISSIONS,
      })
      .returning({ id: users.id });
    const [team] = await tx.insert(teams).values({ accountId, name: 'Agents' }).returning();
    await tx.insert(teamMembers).values({ teamId: team!.id, userId: agent!.id });
    await tx.insert(callerNumbers).values({
      accountId,
      profileId: profile!.id,
      name: `${special.name.split(' (')[0]} line`,
      phoneNumber: `+1555015${String(accountId).padStart(4, '0')}`,
    });
    await tx.insert(leads).values({
      accountId,
      profileId: profile!.id,
      fname: 'Casey',
      lname: `Lead ${accountId}`,
      phoneNumber: `+155501${String(accountId).padStart(5, '0').slice(-5)}`,
      email: `casey.${accountId}@example.net`,
      company: 'Example Co',
    });
  });
  return true;
}

/** Seeds the demo account if the database has no account yet; returns whether it did. */
async function seedDemoAccount(db: Db): Promise<boolean> {
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(accounts);
  if (n > 0) return false;
  const password = await hashDemoPassword();
  await db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({
        name: 'Acme Solar (demo)',
        settings: {},
        ssoEnabled: true,
        // A US account that also calls its Canadian and British leads (the dial guard's
        // countries; an account without the field calls its own country only).
        policy: { call_countries: ['US', 'CA', 'GB'] },
      })
      .returning();
    const accountId = account!.id;
    const [profile] = await tx
      .insert(profiles)
      .values({ accountId, name: 'Solar leads', isDealWhispertext: true, autoAnswer: true })
      .returning();
    await tx.insert(tags).values([
      { profileId: profile!.id, key: 'hot', name: 'Hot lead', color: '#d93025' },
      { profileId: profile!.id, key: 'quote-sent', name: 'Quote sent', color: '#f29900' },
      { profileId: profile!.id, key: 'follow-up', name: 'Follow up', color: '#1a73e8' },
      { profileId: profile!.id, key: 'not-interested', name: 'Not interested', color: '#5f6368' },
    ]);
    const people = await tx
      .insert(users)
      .values([
        {
          accountId,
          email: 'agent1@example.com',
          passwordHash: password,
          fullName: 'Alex Rivera',
          phoneNumber: '+15550142001',
          permissions: AGENT_PERMISSIONS,
          // The lead card's CRM buttons for leads that carry a source_id (demo CRM accounts).
          integrations: {
            hubspot_id: '2468013',
            salesforce_domain: 'acme-solar.my.salesforce.com',
            activecampaign_domain: null,
          },
        },
        {
          accountId,
          email: 'agent2@example.com',
          passwordHash: password,
          fullName: 'Blake Chen',
          phoneNumber: '+15550142002',
          permissions: AGENT_PERMISSIONS,
        },
        {
          accountId,
          email: 'supervisor@example.com',
          passwordHash: password,
          fullName: 'Sam Okafor',
          phoneNumber: '+15550142003',
          permissions: SUPERVISOR_PERMISSIONS,
        },
      ])
      .returning({ id: users.id, email: users.email });
    const [sales, support] = await tx
      .insert(teams)
      .values([
        { accountId, name: 'Sales' },
        { accountId, name: 'Support' },
      ])
      .returning();
    const id = (email: string) => people.find((p) => p.email === email)!.id;
    await tx.insert(teamMembers).values([
      { teamId: sales!.id, userId: id('agent1@example.com') },
      { teamId: sales!.id, userId: id('supervisor@example.com') },
      { teamId: support!.id, userId: id('agent2@example.com') },
    ]);
    await tx.insert(callerNumbers).values([
      {
        accountId,
        profileId: profile!.id,
        name: 'Acme Solar main line',
        phoneNumber: '+15550142000',
      },
      {
        accountId,
        profileId: profile!.id,
        name: 'Acme Solar spring campaign',
        phoneNumber: '+15550142010',
      },
    ]);
    await tx.insert(leads).values([
      {
        accountId,
        profileId: profile!.id,
        fname: 'Jordan',
        lname: 'Miles',
        phoneNumber: '+15550100042',
        email: 'jordan.miles@example.net',
        company: 'Miles Roofing',
        category: 'Residential',
      },
      {
        accountId,
        profileId: profile!.id,
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

/** Makes sure the lead-intake API key exists for the first account (embedded mode). */
export async function ensureApiKey(db: Db, key: string): Promise<void> {
  const keyHash = createHash('sha256').update(key).digest('hex');
  const [existing] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  if (existing) return;
  const [account] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .orderBy(accounts.id)
    .limit(1);
  if (!account) return;
  await db.insert(apiKeys).values({ accountId: account.id, name: 'Lead intake', keyHash });
}
