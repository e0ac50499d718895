/**
 * Error codes carried on the wire and raised by the SDKs (spec section 8).
 * The message texts are the official SDK's, so both SDKs report the same thing.
 */
export const SignallingErrorCode = {
  /** Generic signalling failure. */
  ConnectionError: 31005,
  /** The socket is gone; nothing could be sent. */
  TransportError: 31009,
  /** Malformed message or invite. */
  BadRequest: 31100,
  /** The token could not be verified. */
  AuthenticationFailed: 31201,
  /** The token is not a valid access token. */
  AccessTokenInvalid: 31204,
  /** The token has expired. */
  AccessTokenExpired: 31205,
  /** The call was not found or is no longer live. */
  CallNotFound: 31404,
  /** A dialled number could not be reached. */
  InvalidNumber: 31480,
  /** The far end was busy. */
  Busy: 31486,
  /** The far end did not answer. */
  NoAnswer: 31408,
  /**
   * The call was refused before anything was dialled: the account's dialling rules (the number's
   * country or type, a rate limit, one dial at a time, no caller number of its own) or a login
   * that has ended. The message says which (SIP 603 Decline).
   */
  Declined: 31603,
} as const;
export type SignallingErrorCode = (typeof SignallingErrorCode)[keyof typeof SignallingErrorCode];
