/**
 * Which of the account's caller numbers a call goes out from: the one the agent chose (checked
 * against their account), else the account's default for the lead's profile; none when the
 * account has none.
 */
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import type { SettingsCache } from '../profiles/settings-cache';
import { findCallerNumber } from '../users/caller-numbers-repo';
import type { CallRow } from './calls-repo';

/** A caller number as a call uses it. */
export interface OutgoingNumber {
  id: number;
  phoneNumber: string;
}

/** The caller numbers calls go out from. */
export class OutgoingNumbers {
  readonly #db: Db;
  readonly #settings: Pick<SettingsCache, 'defaultCallerNumber'>;

  constructor(db: Db, settings: Pick<SettingsCache, 'defaultCallerNumber'>) {
    this.#db = db;
    this.#settings = settings;
  }

  /** The caller number of account `accountId`'s call for a lead of `profileId`, or null. */
  async from(
    accountId: number,
    callerNumberId: number | null,
    profileId: number | null,
  ): Promise<OutgoingNumber | null> {
    if (callerNumberId !== null) {
      const chosen = await findCallerNumber(this.#db, accountId, callerNumberId);
      if (chosen) return chosen;
    }
    return (await this.#settings.defaultCallerNumber(accountId, profileId)) ?? null;
  }

  /** The number `call` dials from, or null. */
  async numberOf(call: CallRow): Promise<string | null> {
    return (
      (await this.from(call.accountId, call.callerNumberId, call.profileId))?.phoneNumber ?? null
    );
  }

  /** A caller number the user chose, checked against their account (422 otherwise). */
  async chosenId(
    user: { accountId: number },
    callerId: number | undefined,
  ): Promise<number | null> {
    if (callerId === undefined) return null;
    const number = await findCallerNumber(this.#db, user.accountId, callerId);
    if (!number) {
      throw new AppError('VALIDATION_FAILED', 'The caller id is not one of your caller numbers.');
    }
    return number.id;
  }
}
