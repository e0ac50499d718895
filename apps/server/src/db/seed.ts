/**
 * The embedded demo: one account with teams, agents, a supervisor, a profile with tags, caller
 * numbers and leads (README lists the logins). Idempotent: it seeds only an empty database,
 * and makes sure the configured lead-intake API key exists.
 */
import { createHash } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
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

const AGENT_PERMISSIONS = ['app-sms', 'app-retry', 'app-autoaccept'];
const SUPERVISOR_PERMISSIONS = [...AGENT_PERMISSIONS, 'listen', 'whisper', 'barge'];

/** Seeds the demo account if the database is empty; returns whether it did. */
export async function seedDemo(db: Db): Promise<boolean> {
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(accounts);
  if (n > 0) return false;
  const password = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({ name: 'Acme Solar (demo)', settings: {} })
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
