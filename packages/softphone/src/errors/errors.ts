/**
 * The SDK's errors. Coded errors (`SoftphoneError` and its area subclasses) carry a numeric
 * `code` and a stable `name`; their message reads `Name (code): message`. Argument and state
 * misuse raise `InvalidArgumentError` / `InvalidStateError`; a browser without WebRTC raises
 * `NotSupportedError`.
 */
import { ERROR_TABLE, type ErrorArea, type ErrorCode, type ErrorRow } from './error-table';

/** A coded error. */
export class SoftphoneError extends Error {
  readonly code: number;
  readonly description: string;
  readonly explanation: string;
  readonly area: ErrorArea;
  /** The error that caused this one, if any. */
  readonly originalError: unknown;

  constructor(code: number, row: ErrorRow, message?: string, options?: { cause?: unknown }) {
    super(`${row.name} (${code}): ${message ?? row.explanation}`, options);
    this.name = row.name;
    this.code = code;
    this.description = row.description;
    this.explanation = row.explanation;
    this.area = row.area;
    this.originalError = options?.cause;
  }
}

/** Errors of tokens and authorization (20101, 20104, 31201, 31204, 31205). */
export class AuthorizationError extends SoftphoneError {}
/** General call errors (31000, 31003, 31005, 31008, 31009). */
export class GeneralError extends SoftphoneError {}
/** Malformed requests (31100). */
export class MalformedRequestError extends SoftphoneError {}
/** Signalling connection errors (53000, 53001). */
export class SignalingError extends SoftphoneError {}
/** Media errors (53400, 53402, 53405). */
export class MediaError extends SoftphoneError {}
/** Microphone errors (31401, 31402). */
export class UserMediaError extends SoftphoneError {}
/** Call outcomes reported by the network (31404, 31408, 31480, 31486). */
export class SipError extends SoftphoneError {}

const AREA_CLASSES: Record<ErrorArea, typeof SoftphoneError> = {
  authorization: AuthorizationError,
  general: GeneralError,
  'malformed-request': MalformedRequestError,
  signaling: SignalingError,
  media: MediaError,
  'user-media': UserMediaError,
  sip: SipError,
};

/** Whether `code` is in the table. */
export const isKnownCode = (code: number): code is ErrorCode => code in ERROR_TABLE;

/**
 * The coded error for `code` (the area's class), with an optional specific message.
 * Unknown codes become a 31005 ConnectionError that keeps the code's number.
 */
export function createError(code: number, message?: string, cause?: unknown): SoftphoneError {
  const row: ErrorRow = isKnownCode(code) ? ERROR_TABLE[code] : ERROR_TABLE[31005];
  const Class = AREA_CLASSES[row.area];
  return new Class(isKnownCode(code) ? code : code || 31005, row, message, { cause });
}

/** A method was called with an argument it does not accept. */
export class InvalidArgumentError extends Error {
  override name = 'InvalidArgumentError';
}

/** A method was called in a state that does not allow it. */
export class InvalidStateError extends Error {
  override name = 'InvalidStateError';
}

/** The browser lacks what the SDK needs (WebRTC). */
export class NotSupportedError extends Error {
  override name = 'NotSupportedError';
}
