/** Database access for leads. */
import { and, desc, eq, gt, inArray, notExists, sql } from 'drizzle-orm';
import { formatPhone, type Lead, type LeadIntakeBody } from '@leadline/contracts';
import type { Db, DbOrTx } from '../db/database';
import { prepared } from '../db/prepared';
import { calls, leads } from '../db/schema';
import { REACHED_NOBODY_STATUSES } from '../calls/call-status';

/** A lead row. */
export type LeadRow = typeof leads.$inferSelect;

/**
 * The account's oldest lead with this (E.164) phone number, its names brought up to date with
 * the non-empty `fname`/`lname` given; null when the account has no lead with that number.
 */
export async function findLeadByPhone(
  db: DbOrTx,
  accountId: number,
  body: { fname: string; lname: string; phone_number: string },
): Promise<LeadRow | null> {
  const [existing] = await db
    .select()
    .from(leads)
    .where(and(eq(leads.accountId, accountId), eq(leads.phoneNumber, body.phone_number)))
    .orderBy(leads.id)
    .limit(1);
  if (!existing) return null;
  const names = { fname: body.fname || existing.fname, lname: body.lname || existing.lname };
  if (names.fname === existing.fname && names.lname === existing.lname) return existing;
  await db.update(leads).set(names).where(eq(leads.id, existing.id));
  return { ...existing, ...names };
}

/** The profile of the account's oldest lead with this (E.164) number; null when it has none. */
export async function findLeadProfile(
  db: Db,
  accountId: number,
  phoneNumber: string,
): Promise<{ profileId: number | null } | null> {
  const [row] = await db
    .select({ profileId: leads.profileId })
    .from(leads)
    .where(and(eq(leads.accountId, accountId), eq(leads.phoneNumber, phoneNumber)))
    .orderBy(leads.id)
    .limit(1);
  return row ?? null;
}

/** Stores a new lead of the account. */
export async function insertLead(
  db: DbOrTx,
  accountId: number,
  profileId: number | null,
  body: LeadIntakeBody,
): Promise<LeadRow> {
  const statement = prepared(db as Db, 'insert-lead', () =>
    (db as Db)
      .insert(leads)
      .values({
        accountId: sql.placeholder('accountId'),
        profileId: sql.placeholder('profileId'),
        fname: sql.placeholder('fname'),
        lname: sql.placeholder('lname'),
        phoneNumber: sql.placeholder('phoneNumber'),
        email: sql.placeholder('email'),
        company: sql.placeholder('company'),
        category: sql.placeholder('category'),
        sourceId: sql.placeholder('sourceId'),
      })
      .returning()
      .prepare('insert_lead'),
  );
  const [row] = await statement.execute(leadColumns(accountId, profileId, body));
  return row!;
}

/** The columns a lead is stored with, from an intake body (absent fields as null). */
export function leadColumns(accountId: number, profileId: number | null, body: LeadIntakeBody) {
  return {
    accountId,
    profileId,
    fname: body.fname,
    lname: body.lname,
    phoneNumber: body.phone_number,
    email: body.email ?? null,
    company: body.company ?? null,
    category: body.category ?? null,
    sourceId: body.source_id ?? null,
  };
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

/** How far back 'Check for lead' looks. */
export const WAITING_LEAD_WINDOW_MS = 24 * 3_600_000;

/**
 * 'Check for lead': the lead of the account's newest call of the last day that reached nobody
 * (missed, busy or offline) and that has not been called since, or null.
 */
export async function findWaitingLead(
  db: Db,
  accountId: number,
  now: Date = new Date(),
): Promise<LeadRow | null> {
  const later = db
    .select({ one: sql`1` })
    .from(sql`${calls} as later`)
    .where(sql`later.lead_id = ${calls.leadId} and later.id > ${calls.id}`);
  const [row] = await db
    .select({ lead: leads })
    .from(calls)
    .innerJoin(leads, eq(leads.id, calls.leadId))
    .where(
      and(
        eq(calls.accountId, accountId),
        inArray(calls.status, REACHED_NOBODY_STATUSES),
        gt(calls.createdAt, new Date(now.getTime() - WAITING_LEAD_WINDOW_MS)),
        notExists(later),
      ),
    )
    .orderBy(desc(calls.createdAt), desc(calls.id))
    .limit(1);
  return row?.lead ?? null;
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
