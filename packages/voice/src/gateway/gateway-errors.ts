/** The refusals the gateway sends on the wire (`signalling-gateway.ts`). */
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';

/** An invite for a call the client is on already. */
export const CALL_IN_PROGRESS: WireError = {
  code: SignallingErrorCode.BadRequest,
  message: 'This call is already in progress.',
};

/** A reconnect whose token names no call that can still be taken over. */
export const RECONNECT_REFUSED: WireError = {
  code: SignallingErrorCode.CallNotFound,
  message: 'This call can no longer be reconnected.',
};

/** A socket whose login ended. */
export const ACCESS_WITHDRAWN: WireError = {
  code: SignallingErrorCode.AccessTokenInvalid,
  message: 'Signed out: this session has ended.',
};
