/**
 * What the console does with a softphone error, by code (spec section 8). The table is data;
 * any code not in it is logged with a timestamp and resets the call state: among them the media
 * errors, 31000 ('Error creating the offer', 'Error processing answer', 'Cannot establish
 * connection. Client is disconnected') and 31003 (media connection interrupted), which both
 * SDKs' ports report in those codes (the official SDK's 53xxx are restated in
 * `twilio-adapter.ts`).
 */

/** The console's reaction to a softphone error. */
export type PhoneErrorPolicy =
  /** Nothing at all (transient signalling noise). */
  | 'ignore'
  /** Fetch a new access token and hand it to the device (unless the account opts out). */
  | 'refreshToken'
  /** Alert that the microphone cannot be accessed, log, and reset the call state. */
  | 'microphone'
  /** Log with a timestamp and reset the call state. */
  | 'reset'
  /**
   * The server refused the call with a sentence for the agent (the dial guard: a number the
   * account may not call, a login that ended): log, reset the call state, and show the sentence
   * in the waiting view; no connection-error alert, the connection is fine.
   */
  | 'declined';

/** Softphone error codes with a policy other than `reset` (spec section 8). */
export const PHONE_ERROR_POLICIES: Readonly<Record<number, PhoneErrorPolicy>> = {
  /** TransportError: the socket is gone; the SDK reconnects on its own. */
  31009: 'ignore',
  /** ConnectionError: generic signalling failure; the SDK reconnects on its own. */
  31005: 'ignore',
  /** AccessTokenExpired. */
  31205: 'refreshToken',
  /** AccessTokenInvalid (20101). */
  20101: 'refreshToken',
  /** AccessTokenExpired (20104). */
  20104: 'refreshToken',
  /** UserMedia PermissionDeniedError. */
  31401: 'microphone',
  /** UserMedia AcquisitionFailedError. */
  31402: 'microphone',
  /** PermissionDeniedError as our SDK raises it (spec section 8, "Microphone"). */
  31208: 'microphone',
  /** Decline: the server refused the call (its message is the sentence the agent reads). */
  31603: 'declined',
};

/** The policy for a softphone error code. */
export function phoneErrorPolicy(code: number): PhoneErrorPolicy {
  return PHONE_ERROR_POLICIES[code] ?? 'reset';
}

/**
 * The words of a softphone error for a person: both SDKs put `Name (code): ` before the message
 * itself ('ConnectionError (31005): Could not send DTMF: …'); that prefix is for the log.
 */
export function phoneErrorText(error: {
  readonly name: string;
  readonly code: number;
  readonly message: string;
}): string {
  const prefix = `${error.name} (${error.code}): `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}
