/**
 * The account's caller numbers as its admin manages them (issue 37): the numbers its calls go
 * out from and inbound calls come in on. A number belongs to one account only (the database's
 * `caller_numbers_phone_unique`); with Twilio only a number the operator assigned to the account
 * (`number-assignments.ts`) and the Twilio account still holds (`NumberInventory`) may be added,
 * and the numbers offered are those alone. A number that past calls went out from is never
 * deleted: its calls' history names it, so the DELETE is refused with a sentence (rename it, or
 * move it to another profile, instead). Every write appends its audit entry in its own
 * transaction.
 */
import { and, asc, count, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import {
  ADMIN_PAGE_SIZE,
  formatPhone,
  type AdminAvailableNumbers,
  type AdminCallerNumber,
  type AdminCallerNumberBody,
  type AdminCallerNumberList,
  type AdminCallerNumberUpdateBody,
  type AdminListQuery,
} from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { callerNumbers, calls, profiles } from '../db/schema';
import { AppError } from '../http/errors';
import { appendAudit, diffFields, type AuditActor } from './audit';
import { containing, isUniqueViolation, pageOf, violates } from './catalog-admin-lists';
import { NUMBER_NOT_ASSIGNED, assignedAccountOf, numbersAssignedTo } from './number-assignments';
import {
  ANY_NUMBER,
  INVENTORY_UNREACHABLE,
  heldNumbersOf,
  type NumberInventory,
} from './number-inventory';

export { INVENTORY_UNREACHABLE, NUMBER_NOT_ASSIGNED };

type CallerNumberRow = typeof callerNumbers.$inferSelect;

/** The sentence of a number that is already a caller number (of any account). */
export const NUMBER_TAKEN = 'This number is already a caller number.';
/** The sentence of a number the Twilio account does not hold. */
export const NUMBER_NOT_HELD = "This number is not one of your Twilio account's numbers.";
/** The sentence of a `profile_id` that is not a profile of the account. */
export const PROFILE_NOT_FOUND = 'The profile does not exist.';
/** The sentence of a DELETE of a number that past calls used. */
export const NUMBER_IN_HISTORY =
  'This number was used by past calls and stays in their history: rename it or move it to another profile instead.';

/** The caller number as the admin screens show it. */
export function toAdminCallerNumber(row: CallerNumberRow): AdminCallerNumber {
  return {
    id: row.id,
    name: row.name,
    phone_number: row.phoneNumber,
    phone_number_formatted: formatPhone(row.phoneNumber),
    profile_id: row.profileId,
    created_at: row.createdAt.toISOString(),
  };
}

/** A page of the account's caller numbers (by name); `search` matches the name or the number. */
export async function listCallerNumbers(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminCallerNumberList> {
  const digits = query.search?.replace(/[^\d]/g, '') ?? '';
  const where = and(
    eq(callerNumbers.accountId, accountId),
    query.search
      ? or(
          ilike(callerNumbers.name, containing(query.search)),
          digits ? ilike(callerNumbers.phoneNumber, containing(digits)) : undefined,
        )
      : undefined,
  );
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(callerNumbers)
    .where(where);
  const { offset, meta } = pageOf(query.page, total);
  const rows = await db
    .select()
    .from(callerNumbers)
    .where(where)
    .orderBy(sql`lower(${callerNumbers.name})`, asc(callerNumbers.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset(offset);
  return { data: rows.map(toAdminCallerNumber), meta };
}

/**
 * The numbers the account may make caller numbers of: with Twilio, those the operator assigned to
 * it that the Twilio account holds, each marked when it is already one of the account's caller
 * numbers (no other account's number, assigned or not, is ever listed). Embedded: an empty list,
 * `provider_checked` false (any number may be added).
 */
export async function availableNumbers(
  db: DbOrTx,
  accountId: number,
  inventory: NumberInventory = ANY_NUMBER,
): Promise<AdminAvailableNumbers> {
  if (!inventory.providerChecked) return { data: [], provider_checked: false };
  const assigned = await numbersAssignedTo(db, accountId);
  // Twilio is asked only when the account has numbers to offer.
  const held = assigned.size === 0 ? [] : await heldNumbersOf(inventory);
  const offered = held.filter((number) => assigned.has(number.phoneNumber));
  const used =
    offered.length === 0
      ? []
      : await db
          .select({ phoneNumber: callerNumbers.phoneNumber })
          .from(callerNumbers)
          .where(
            and(
              eq(callerNumbers.accountId, accountId),
              inArray(
                callerNumbers.phoneNumber,
                offered.map((number) => number.phoneNumber),
              ),
            ),
          );
  const inUse = new Set(used.map((row) => row.phoneNumber));
  return {
    data: offered.map((number) => ({
      phone_number: number.phoneNumber,
      phone_number_formatted: formatPhone(number.phoneNumber),
      friendly_name: number.friendlyName,
      in_use: inUse.has(number.phoneNumber),
    })),
    provider_checked: true,
  };
}

/**
 * With a provider's inventory (Twilio), refuses (422 `NUMBER_NOT_ASSIGNED`) a number not
 * assigned to the account, with one sentence whoever has it. `lock`: within the transaction that
 * stores the caller number, the assignment is held so it cannot be unassigned meanwhile.
 */
async function checkAssigned(
  db: DbOrTx,
  inventory: NumberInventory,
  accountId: number,
  phoneNumber: string,
  lock = false,
): Promise<void> {
  if (!inventory.providerChecked) return;
  if ((await assignedAccountOf(db, phoneNumber, lock)) !== accountId) {
    throw new AppError('VALIDATION_FAILED', NUMBER_NOT_ASSIGNED);
  }
}

/** Refuses (422) a number the provider's account does not hold (asked after the assignment). */
async function checkHeld(inventory: NumberInventory, phoneNumber: string): Promise<void> {
  if (!inventory.providerChecked) return;
  const held = await heldNumbersOf(inventory);
  if (!held.some((number) => number.phoneNumber === phoneNumber)) {
    throw new AppError('VALIDATION_FAILED', NUMBER_NOT_HELD);
  }
}

/** Refuses (422) a profile id that is not one of the account's profiles. */
async function checkProfile(db: DbOrTx, accountId: number, profileId: number | null | undefined) {
  if (profileId === null || profileId === undefined) return;
  const [profile] = await db
    .select({ id: profiles.id })
    .from(profiles)
    .where(and(eq(profiles.accountId, accountId), eq(profiles.id, profileId)));
  if (!profile) throw new AppError('VALIDATION_FAILED', PROFILE_NOT_FOUND);
}

function numberTaken(error: unknown): never {
  if (isUniqueViolation(error)) throw new AppError('ALREADY_EXISTS', NUMBER_TAKEN);
  throw error;
}

async function numberRowOf(db: DbOrTx, accountId: number, id: number): Promise<CallerNumberRow> {
  const [row] = await db
    .select()
    .from(callerNumbers)
    .where(and(eq(callerNumbers.accountId, accountId), eq(callerNumbers.id, id)));
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

const audited = (number: AdminCallerNumber) => ({
  name: number.name,
  phone_number: number.phone_number,
  profile_id: number.profile_id,
});

/** Adds a caller number; audit `caller_number.create`. */
export async function createCallerNumber(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminCallerNumberBody,
  inventory: NumberInventory = ANY_NUMBER,
): Promise<AdminCallerNumber> {
  await checkAssigned(db, inventory, accountId, body.phone_number);
  await checkHeld(inventory, body.phone_number);
  return db
    .transaction(async (tx) => {
      await checkAssigned(tx, inventory, accountId, body.phone_number, true);
      await checkProfile(tx, accountId, body.profile_id);
      const [row] = await tx
        .insert(callerNumbers)
        .values({
          accountId,
          name: body.name,
          phoneNumber: body.phone_number,
          profileId: body.profile_id ?? null,
        })
        .returning();
      const number = toAdminCallerNumber(row!);
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'caller_number.create',
        target: `caller_number:${number.id}`,
        changes: diffFields(null, audited(number)),
      });
      return number;
    })
    .catch(numberTaken);
}

/** Changes the fields given of one of the account's caller numbers; audit `caller_number.update`. */
export async function updateCallerNumber(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  id: number,
  body: AdminCallerNumberUpdateBody,
  inventory: NumberInventory = ANY_NUMBER,
): Promise<AdminCallerNumber> {
  // 404 before asking the provider about a number of a caller number that is not there.
  await numberRowOf(db, accountId, id);
  if (body.phone_number !== undefined) {
    await checkAssigned(db, inventory, accountId, body.phone_number);
    await checkHeld(inventory, body.phone_number);
  }
  return db
    .transaction(async (tx) => {
      const before = await numberRowOf(tx, accountId, id);
      if (body.phone_number !== undefined) {
        await checkAssigned(tx, inventory, accountId, body.phone_number, true);
      }
      await checkProfile(tx, accountId, body.profile_id);
      const patch: Partial<typeof callerNumbers.$inferInsert> = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.phone_number !== undefined) patch.phoneNumber = body.phone_number;
      if (body.profile_id !== undefined) patch.profileId = body.profile_id;
      let row = before;
      if (Object.keys(patch).length > 0) {
        [row = before] = await tx
          .update(callerNumbers)
          .set(patch)
          .where(eq(callerNumbers.id, id))
          .returning();
      }
      const number = toAdminCallerNumber(row);
      const changes = diffFields(audited(toAdminCallerNumber(before)), audited(number));
      if (Object.keys(changes).length > 0) {
        await appendAudit(tx, {
          accountId,
          actor,
          action: 'caller_number.update',
          target: `caller_number:${id}`,
          changes,
        });
      }
      return number;
    })
    .catch(numberTaken);
}

/**
 * Removes one of the account's caller numbers that no call went out from or came in on (409
 * `NUMBER_IN_HISTORY` otherwise: history keeps naming it); audit `caller_number.delete`.
 */
export async function deleteCallerNumber(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  id: number,
): Promise<{ id: number }> {
  return db
    .transaction(async (tx) => {
      const before = await numberRowOf(tx, accountId, id);
      const [used] = await tx
        .select({ id: calls.id })
        .from(calls)
        .where(eq(calls.callerNumberId, id))
        .limit(1);
      if (used) throw new AppError('ALREADY_EXISTS', NUMBER_IN_HISTORY);
      await tx.delete(callerNumbers).where(eq(callerNumbers.id, id));
      const old = audited(toAdminCallerNumber(before));
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'caller_number.delete',
        target: `caller_number:${id}`,
        changes: Object.fromEntries(
          Object.entries(old).map(([field, value]) => [field, [value, null]]),
        ),
      });
      return { id };
    })
    .catch((error: unknown) => {
      // A call stored meanwhile from this number (foreign_key_violation): the same refusal.
      if (violates(error, '23503')) throw new AppError('ALREADY_EXISTS', NUMBER_IN_HISTORY);
      throw error;
    });
}
