/**
 * The SDK's errors, one class hierarchy built from the table (`error-table.ts`):
 *
 * ```
 * Error
 * ├── SoftphoneError (code, name, description, explanation, originalError)
 * │   ├── AuthorizationError ── AuthorizationErrors.AccessTokenInvalid (20101), …
 * │   ├── SipError ──────────── ClientErrors.BusyHere (31486), SIPServerErrors.Decline, …
 * │   ├── GeneralError ──────── GeneralErrors.UnknownError (31000), ConnectionError (31005), …
 * │   ├── MalformedRequestError MalformedRequestErrors.MalformedRequestError (31100)
 * │   ├── UserMediaError ────── UserMediaErrors.PermissionDeniedError (31401), …
 * │   ├── SignalingError ────── SignalingErrors.ConnectionDisconnected (53001), …
 * │   └── MediaError ────────── MediaErrors.ConnectionError (53405), …
 * ├── InvalidArgumentError, InvalidStateError, NotSupportedError (misuse; no code)
 * ```
 * A coded error's message reads `Name (code): message`, the message defaulting to the row's
 * explanation, as in the official SDK. A call's media errors are the spec's (section 8): 31000
 * for a failed offer or answer and for signalling gone before the call opened, 31003 for a media
 * connection lost for good; 53405 and 53001 only say what a `reconnecting` call lost.
 */
import {
  ERROR_TABLE,
  PRECISE_SIGNALING_CODES,
  type ErrorCode,
  type ErrorGroup,
} from './error-table';

/** A coded error. */
export class SoftphoneError extends Error {
  readonly code: number;
  readonly description: string;
  readonly explanation: string;
  /** The error (or wire payload) that caused this one, if any. */
  readonly originalError: unknown;

  /**
   * @param code - a code of the table
   * @param messageOrError - a specific message, or the original error (then the explanation is
   *   the message)
   * @param originalError - the original error when a message is given
   */
  constructor(code: ErrorCode, messageOrError?: string | object, originalError?: unknown) {
    const [, name, description, explanation] = ERROR_TABLE[code];
    const message =
      typeof messageOrError === 'string' ? messageOrError : explanation || description;
    const cause = typeof messageOrError === 'object' ? messageOrError : originalError;
    super(`${name} (${code}): ${message}`, cause === undefined ? undefined : { cause });
    this.name = name;
    this.code = code;
    this.description = description;
    this.explanation = explanation;
    this.originalError = cause;
  }
}

/** Errors of tokens and authorization (20101, 20104, 20151, 31201, 31204, 31205). */
export class AuthorizationError extends SoftphoneError {}
/** Call outcomes reported by the network (31400, 31404, 31480, 31486, 31603). */
export class SipError extends SoftphoneError {}
/** General call errors (31000, 31003, 31005, 31008, 31009). */
export class GeneralError extends SoftphoneError {}
/** Malformed requests (31100). */
export class MalformedRequestError extends SoftphoneError {}
/** Microphone errors (31401, 31402). */
export class UserMediaError extends SoftphoneError {}
/** Signalling connection errors (53000, 53001). */
export class SignalingError extends SoftphoneError {}
/** Media errors (53400, 53402, 53405). */
export class MediaError extends SoftphoneError {}

const GROUP_BASES: Record<ErrorGroup, typeof SoftphoneError> = {
  AuthorizationErrors: AuthorizationError,
  ClientErrors: SipError,
  SIPServerErrors: SipError,
  GeneralErrors: GeneralError,
  MalformedRequestErrors: MalformedRequestError,
  UserMediaErrors: UserMediaError,
  SignalingErrors: SignalingError,
  MediaErrors: MediaError,
};

/** The class of one code: `new GeneralErrors.ConnectionError('message', cause)`. */
export type SoftphoneErrorClass = new (
  messageOrError?: string | object,
  originalError?: unknown,
) => SoftphoneError;

type Table = typeof ERROR_TABLE;
type NamesIn<G extends ErrorGroup> = {
  [C in ErrorCode]: Table[C][0] extends G ? Table[C][1] : never;
}[ErrorCode];
/** A group's classes by name. */
export type ErrorNamespace<G extends ErrorGroup> = Readonly<
  Record<NamesIn<G>, SoftphoneErrorClass>
>;

const CLASSES = new Map<number, SoftphoneErrorClass>();
const NAMESPACES = {} as Record<ErrorGroup, Record<string, SoftphoneErrorClass>>;
for (const key of Object.keys(ERROR_TABLE)) {
  const code = Number(key) as ErrorCode;
  const [group, name] = ERROR_TABLE[code];
  const Class = class extends GROUP_BASES[group] {
    constructor(messageOrError?: string | object, originalError?: unknown) {
      super(code, messageOrError, originalError);
    }
  };
  Object.defineProperty(Class, 'name', { value: name });
  CLASSES.set(code, Class);
  (NAMESPACES[group] ??= {})[name] = Class;
}

/** Token and authorization errors, by name (`AuthorizationErrors.AccessTokenExpired`). */
export const AuthorizationErrors =
  NAMESPACES.AuthorizationErrors as ErrorNamespace<'AuthorizationErrors'>;
/** Call outcomes of the network, by name (`ClientErrors.BusyHere`). */
export const ClientErrors = NAMESPACES.ClientErrors as ErrorNamespace<'ClientErrors'>;
/** SIP server errors, by name (`SIPServerErrors.Decline`). */
export const SIPServerErrors = NAMESPACES.SIPServerErrors as ErrorNamespace<'SIPServerErrors'>;
/** General errors, by name (`GeneralErrors.ConnectionError`). */
export const GeneralErrors = NAMESPACES.GeneralErrors as ErrorNamespace<'GeneralErrors'>;
/** Malformed request errors, by name. */
export const MalformedRequestErrors =
  NAMESPACES.MalformedRequestErrors as ErrorNamespace<'MalformedRequestErrors'>;
/** Microphone errors, by name (`UserMediaErrors.PermissionDeniedError`). */
export const UserMediaErrors = NAMESPACES.UserMediaErrors as ErrorNamespace<'UserMediaErrors'>;
/** Signalling connection errors, by name (`SignalingErrors.ConnectionDisconnected`). */
export const SignalingErrors = NAMESPACES.SignalingErrors as ErrorNamespace<'SignalingErrors'>;
/** Media errors, by name (`MediaErrors.ConnectionError`). */
export const MediaErrors = NAMESPACES.MediaErrors as ErrorNamespace<'MediaErrors'>;

/** Whether `code` is in the table. */
export const isKnownCode = (code: number): code is ErrorCode => CLASSES.has(code);

/** The coded error of a table code, with an optional specific message and cause. */
export function createError(code: ErrorCode, message?: string, cause?: unknown): SoftphoneError {
  return new (CLASSES.get(code)!)(message, cause);
}

/**
 * The error for a coded error the gateway sent (`hangup.error`, `error.error`), as the official
 * SDK makes it: the code's class with the gateway's message, except that unknown codes, and the
 * "precise" codes unless `precise` is set, become a 31005 ConnectionError carrying the payload.
 */
export function gatewayError(
  wire: { code: number; message: string },
  precise: boolean,
  fallbackMessage: string,
): SoftphoneError {
  if (isKnownCode(wire.code) && (precise || !PRECISE_SIGNALING_CODES.has(wire.code))) {
    return createError(wire.code, wire.message, wire);
  }
  return createError(31005, fallbackMessage, wire);
}

/** A method was called with an argument it does not accept. */
export class InvalidArgumentError extends Error {
  override name = 'InvalidArgumentError';
}

/** A method was called in a state that does not allow it. */
export class InvalidStateError extends Error {
  override name = 'InvalidStateError';
}

/** The browser lacks what the SDK needs (WebRTC), or a feature it was asked for. */
export class NotSupportedError extends Error {
  override name = 'NotSupportedError';
}
