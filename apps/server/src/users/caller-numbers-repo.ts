/** Database access for the account's caller numbers. */
import { and, asc, eq, sql } from 'drizzle-orm';
import { formatPhone, type CallerNumber } from '@leadline/contracts';
import type { Db } from '../db/database';
import { callerNumbers, numberAssignments } from '../db/schema';

/** A caller-number row. */
export type CallerNumberRow = typeof callerNumbers.$inferSelect;

/** The account's caller numbers as the New Call panel lists them. */
export async function listCallerNumbers(db: Db, accountId: number): Promise<CallerNumber[]> {
  const rows = await db
    .select()
    .from(callerNumbers)
    .where(eq(callerNumbers.accountId, accountId))
    .orderBy(asc(callerNumbers.name), asc(callerNumbers.id));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    phone_number_formatted: formatPhone(r.phoneNumber),
  }));
}

/** A caller number of the account, or null. */
export async function findCallerNumber(
  db: Db,
  accountId: number,
  id: number,
): Promise<CallerNumberRow | null> {
  const [row] = await db
    .select()
    .from(callerNumbers)
    .where(and(eq(callerNumbers.accountId, accountId), eq(callerNumbers.id, id)));
  return row ?? null;
}

/** The caller number with this E.164 number, whichever account it belongs to, or null. */
export async function findCallerNumberByPhone(
  db: Db,
  phoneNumber: string,
): Promise<CallerNumberRow | null> {
  const [row] = await db
    .select()
    .from(callerNumbers)
    .where(eq(callerNumbers.phoneNumber, phoneNumber));
  return row ?? null;
}

/**
 * The caller number with this E.164 number when the number is assigned to the caller number's
 * own account (`admin/number-assignments.ts`), or null: with Twilio an inbound call to a number
 * goes to the account the operator assigned it to, and to no other.
 */
export async function findAssignedCallerNumber(
  db: Db,
  phoneNumber: string,
): Promise<CallerNumberRow | null> {
  const [row] = await db
    .select({ number: callerNumbers })
    .from(callerNumbers)
    .innerJoin(
      numberAssignments,
      and(
        eq(numberAssignments.phoneNumber, callerNumbers.phoneNumber),
        eq(numberAssignments.accountId, callerNumbers.accountId),
      ),
    )
    .where(eq(callerNumbers.phoneNumber, phoneNumber));
  return row?.number ?? null;
}

/**
 * The number the account calls from when the agent chose none: the first caller number of the
 * call's profile, else the account's first; null when the account has none.
 */
export async function defaultCallerNumber(
  db: Db,
  accountId: number,
  profileId: number | null,
): Promise<CallerNumberRow | null> {
  const [row] = await db
    .select()
    .from(callerNumbers)
    .where(eq(callerNumbers.accountId, accountId))
    .orderBy(
      profileId === null
        ? asc(callerNumbers.id)
        : sql`(${callerNumbers.profileId} is distinct from ${profileId}) asc`,
      asc(callerNumbers.id),
    )
    .limit(1);
  return row ?? null;
}
