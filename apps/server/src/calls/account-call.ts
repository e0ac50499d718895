/** The one "a call of the session's account, or 404" rule of the call endpoints. */
import type { DbOrTx } from '../db/database';
import { AppError } from '../http/errors';
import { findAccountCall, type CallRow } from './calls-repo';

/**
 * The call `callId` of account `accountId`; NOT_FOUND ('Call not found.') for any other id,
 * including another account's, so ids don't leak.
 */
export async function requireAccountCall(
  db: DbOrTx,
  accountId: number,
  callId: number,
): Promise<CallRow> {
  const call = await findAccountCall(db, accountId, callId);
  if (!call) throw new AppError('NOT_FOUND', 'Call not found.');
  return call;
}
