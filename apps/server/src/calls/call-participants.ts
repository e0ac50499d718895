/** Who is on a call, as the flows see it: which participants keep it going, who wraps up. */
import type { CallType } from '@leadline/contracts';

/** Participants whose presence keeps a call going (supervisors listening or whispering do not). */
export const KEEPS_CALL: ReadonlySet<CallType> = new Set([
  'lead',
  'transfer',
  'conference',
  'barge',
]);
/** Participants who wrap up after the call (they worked it). */
export const WRAPS_UP: ReadonlySet<CallType> = new Set(['lead', 'transfer', 'conference']);

/** The user id a device identity stands for (`identityOf`'s inverse), or null. */
export const userIdOf = (identity: string): number | null => {
  const id = Number(identity);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
};
