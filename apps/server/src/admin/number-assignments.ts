/**
 * The operator's assignment of the telephony provider's numbers to accounts (docs/deployment.md,
 * Twilio). With Twilio every account calls through the operator's one Twilio account, so the
 * numbers it holds are not every tenant's to take: the operator assigns each to one account
 * (`npm run admin -- assign-number`), a tenant's admin lists and makes caller numbers only of the
 * numbers assigned to its own account (`admin-caller-numbers.ts`), and an inbound call to a
 * number goes only to the account it is assigned to (`users/caller-numbers-repo.ts`).
 *
 * The rules kept here, so that every caller number of a Twilio install stays on a number of its
 * own account:
 * - a number is assigned to one account at most; moving it is explicit: `unassign-number`, then
 *   `assign-number` to the other account;
 * - a number another account uses as a caller number is not assigned elsewhere;
 * - a number is not unassigned while its account uses it as a caller number (its admin removes
 *   that caller number, or changes its number, first).
 *
 * With Twilio a number must be one the Twilio account holds. The embedded engine's sandbox
 * network has no inventory and carries any number: there an assignment is recorded unchecked
 * (the demo seed assigns its accounts' numbers) and caller numbers are not limited to assigned
 * ones. Each assignment and unassignment is in its account's audit log (`number.assign`,
 * `number.unassign`), the actor being the system.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import { phoneNumberField } from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { accounts, callerNumbers, numberAssignments } from '../db/schema';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { appendAudit, type AuditActor } from './audit';
import { isUniqueViolation } from './catalog-admin-lists';
import { ANY_NUMBER, heldNumbersOf, type NumberInventory } from './number-inventory';

/**
 * The refusal of a caller number on a number not assigned to the admin's account: the same
 * sentence whether another account has it or nobody does, so that no tenant learns which
 * numbers other tenants have.
 */
export const NUMBER_NOT_ASSIGNED =
  'This number is not assigned to your account: ask your Leadline operator to assign it to you.';

/** An assignment as `list-numbers` prints it. */
export interface NumberAssignment {
  /** E.164. */
  phone_number: string;
  account_id: number;
  account_name: string;
  /** The account's caller number on it, if it made one. */
  caller_number: { id: number; name: string } | null;
  assigned_at: string;
}

/** A number as the operator typed it: any common notation, E.164 out (422 with a sentence). */
export function parseOperatorNumber(input: string): string {
  return parseWith(phoneNumberField('number'), input);
}

/** How a number and an account are named in the operator's sentences (E.164, as typed). */
const numberText = (phoneNumber: string) => phoneNumber;
const accountText = (account: { id: number; name: string }) =>
  `account ${account.id} (${JSON.stringify(account.name)})`;

async function accountOf(db: DbOrTx, accountId: number) {
  const [account] = await db
    .select({ id: accounts.id, name: accounts.name })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return account ?? null;
}

/**
 * The account `phoneNumber` is assigned to, or null. `lock`: the assignment row is held (FOR
 * SHARE) until the transaction ends, so it cannot be unassigned meanwhile.
 */
export async function assignedAccountOf(
  db: DbOrTx,
  phoneNumber: string,
  lock = false,
): Promise<number | null> {
  const query = db
    .select({ accountId: numberAssignments.accountId })
    .from(numberAssignments)
    .where(eq(numberAssignments.phoneNumber, phoneNumber));
  const [row] = lock ? await query.for('share') : await query;
  return row?.accountId ?? null;
}

/** The numbers assigned to the account (E.164). */
export async function numbersAssignedTo(db: DbOrTx, accountId: number): Promise<Set<string>> {
  const rows = await db
    .select({ phoneNumber: numberAssignments.phoneNumber })
    .from(numberAssignments)
    .where(eq(numberAssignments.accountId, accountId));
  return new Set(rows.map((row) => row.phoneNumber));
}

/**
 * Assigns `phoneNumber` to the account; resolves with the assignment and whether it is new (an
 * assignment already there is kept as it was). Refused with a sentence: an account that does not
 * exist (404), a number the provider's account does not hold (422; with Twilio), a number
 * assigned to another account or used by one as a caller number (409). Audit `number.assign`.
 */
export async function assignNumber(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  phoneNumber: string,
  inventory: NumberInventory = ANY_NUMBER,
): Promise<{ assignment: NumberAssignment; created: boolean }> {
  const account = await accountOf(db, accountId);
  if (!account) throw new AppError('NOT_FOUND', `There is no account ${accountId}.`);
  if (inventory.providerChecked) {
    const held = await heldNumbersOf(inventory);
    if (!held.some((number) => number.phoneNumber === phoneNumber)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${numberText(phoneNumber)} is not one of the Twilio account's numbers: buy it or port it in first (Phone Numbers → Manage → Active numbers).`,
      );
    }
  }
  const created = await db
    .transaction(async (tx) => {
      const owner = await assignedAccountOf(tx, phoneNumber, true);
      if (owner === accountId) return false;
      if (owner !== null) {
        // An assignment's account exists (a foreign key).
        const other = (await accountOf(tx, owner))!;
        throw new AppError(
          'ALREADY_EXISTS',
          `${numberText(phoneNumber)} is assigned to ${accountText(other)}: to move it, run unassign-number --number ${phoneNumber} first.`,
        );
      }
      const [used] = await tx
        .select({ name: callerNumbers.name, accountId: accounts.id, accountName: accounts.name })
        .from(callerNumbers)
        .innerJoin(accounts, eq(accounts.id, callerNumbers.accountId))
        .where(
          and(eq(callerNumbers.phoneNumber, phoneNumber), ne(callerNumbers.accountId, accountId)),
        );
      if (used) {
        throw new AppError(
          'ALREADY_EXISTS',
          `${numberText(phoneNumber)} is the caller number ${JSON.stringify(used.name)} of ${accountText({ id: used.accountId, name: used.accountName })}: its admin must remove that caller number, or change its number, first.`,
        );
      }
      await tx.insert(numberAssignments).values({ phoneNumber, accountId });
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'number.assign',
        target: `number:${phoneNumber}`,
        changes: { phone_number: [null, phoneNumber] },
      });
      return true;
    })
    .catch((error: unknown) => {
      // Assigned by another command at the same moment.
      if (isUniqueViolation(error)) {
        throw new AppError(
          'ALREADY_EXISTS',
          `${numberText(phoneNumber)} was assigned meanwhile: run list-numbers to see to which account.`,
        );
      }
      throw error;
    });
  const [assignment] = await listAssignments(db, { phoneNumber });
  return { assignment: assignment!, created };
}

/**
 * Takes `phoneNumber` back from its account; resolves with the assignment it was. Refused with a
 * sentence: a number assigned to no account (404), a number its account uses as a caller number
 * (409). Audit `number.unassign`.
 */
export async function unassignNumber(
  db: DbOrTx,
  actor: AuditActor,
  phoneNumber: string,
): Promise<NumberAssignment> {
  const [before] = await listAssignments(db, { phoneNumber });
  if (!before) {
    throw new AppError('NOT_FOUND', `${numberText(phoneNumber)} is not assigned to any account.`);
  }
  await db.transaction(async (tx) => {
    // Deleted first: an admin's caller number on it, made meanwhile, held the row (FOR SHARE)
    // until it was stored, so the check below sees it.
    const [removed] = await tx
      .delete(numberAssignments)
      .where(eq(numberAssignments.phoneNumber, phoneNumber))
      .returning();
    if (!removed) {
      throw new AppError('NOT_FOUND', `${numberText(phoneNumber)} is not assigned to any account.`);
    }
    const [used] = await tx
      .select({ name: callerNumbers.name })
      .from(callerNumbers)
      .where(
        and(
          eq(callerNumbers.phoneNumber, phoneNumber),
          eq(callerNumbers.accountId, removed.accountId),
        ),
      );
    if (used) {
      const account = (await accountOf(tx, removed.accountId))!;
      throw new AppError(
        'ALREADY_EXISTS',
        `${numberText(phoneNumber)} is the caller number ${JSON.stringify(used.name)} of ${accountText(account)}: its admin must remove that caller number, or change its number, before it is unassigned.`,
      );
    }
    await appendAudit(tx, {
      accountId: removed.accountId,
      actor,
      action: 'number.unassign',
      target: `number:${phoneNumber}`,
      changes: { phone_number: [phoneNumber, null] },
    });
  });
  return before;
}

/** The assignments (of one account, or of one number), by account then number. */
export async function listAssignments(
  db: DbOrTx,
  filter: { accountId?: number; phoneNumber?: string } = {},
): Promise<NumberAssignment[]> {
  const rows = await db
    .select({
      phoneNumber: numberAssignments.phoneNumber,
      accountId: accounts.id,
      accountName: accounts.name,
      callerNumberId: callerNumbers.id,
      callerNumberName: callerNumbers.name,
      assignedAt: numberAssignments.createdAt,
    })
    .from(numberAssignments)
    .innerJoin(accounts, eq(accounts.id, numberAssignments.accountId))
    .leftJoin(
      callerNumbers,
      and(
        eq(callerNumbers.phoneNumber, numberAssignments.phoneNumber),
        eq(callerNumbers.accountId, numberAssignments.accountId),
      ),
    )
    .where(
      and(
        filter.accountId === undefined
          ? undefined
          : eq(numberAssignments.accountId, filter.accountId),
        filter.phoneNumber === undefined
          ? undefined
          : eq(numberAssignments.phoneNumber, filter.phoneNumber),
      ),
    )
    .orderBy(asc(numberAssignments.accountId), asc(numberAssignments.phoneNumber));
  return rows.map((row) => ({
    phone_number: row.phoneNumber,
    account_id: row.accountId,
    account_name: row.accountName,
    caller_number:
      row.callerNumberId === null
        ? null
        : { id: row.callerNumberId, name: row.callerNumberName ?? '' },
    assigned_at: row.assignedAt.toISOString(),
  }));
}
