/** Database access for leads. */
import { and, eq } from 'drizzle-orm';
import { formatPhone, type Lead, type LeadIntakeBody } from '@leadline/contracts';
import type { Db } from '../db/database';
import { leads } from '../db/schema';

/** A lead row. */
export type LeadRow = typeof leads.$inferSelect;

/** Stores a new lead of the account. */
export async function insertLead(
  db: Db,
  accountId: number,
  profileId: number | null,
  body: LeadIntakeBody,
): Promise<LeadRow> {
  const [row] = await db
    .insert(leads)
    .values({
      accountId,
      profileId,
      fname: body.fname,
      lname: body.lname,
      phoneNumber: body.phone_number,
      email: body.email ?? null,
      company: body.company ?? null,
      category: body.category ?? null,
      sourceId: body.source_id ?? null,
    })
    .returning();
  return row!;
}

/** A lead of the account by id, or null. */
export async function findLead(db: Db, accountId: number, leadId: number): Promise<LeadRow | null> {
  const rows = await db
    .select()
    .from(leads)
    .where(and(eq(leads.accountId, accountId), eq(leads.id, leadId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The lead as the console shows it. */
export function toLeadResource(row: LeadRow): Lead {
  const name = [row.fname, row.lname].filter(Boolean).join(' ');
  return {
    id: row.id,
    label: name || formatPhone(row.phoneNumber),
    fname: row.fname,
    lname: row.lname,
    name,
    phone_number: row.phoneNumber,
    phone_number_formatted: formatPhone(row.phoneNumber),
    company: row.company,
    email: row.email,
    category: row.category,
    crm: row.crm,
    source_id: row.sourceId,
    profile_picture: row.profilePicture,
  };
}
