/**
 * The web console's errors: one base class with a numeric `code` and a stable `name`, and one
 * table of codes. The softphone's own codes (31xxx, 20xxx) are handled in `phone/phone-errors.ts`;
 * these are the console's, in a range of their own (9xxx).
 */

/** Every error the console raises, by stable name. */
export const WEB_ERROR_CODES = {
  /** The console state machine was sent an event its current state does not accept. */
  IllegalTransitionError: 9001,
  /** The server answered with an error (`{ error }` or `{ success: false, error }`, or a bad status). */
  ApiError: 9101,
  /** The session ended (a 401 after the user was loaded); the page is reloading. */
  SessionExpiredError: 9102,
  /** The request never reached the server. */
  NetworkError: 9103,
  /** An incoming call's caller id is not `client:<call_user_id>`. */
  MalformedIncomingCallError: 9201,
  /** The softphone could not be created (no adapter, or the adapter failed). */
  PhoneUnavailableError: 9202,
  /** A call was to be placed before the softphone was registered. */
  PhoneNotReadyError: 9203,
  /** A call was to be placed while another one is being handled. */
  AgentBusyError: 9204,
  /** The network test was to place its call while the console is not waiting with the phone ready. */
  NetworkTestRefusedError: 9205,
  /** The phone input could not look up the visitor's country ('unable to fetch the country'). */
  CountryLookupError: 9301,
} as const;

/** A stable error name of the console. */
export type WebErrorName = keyof typeof WEB_ERROR_CODES;

/** Base class of the console's errors: `Name (code): message`. */
export class WebError extends Error {
  /** The numeric code from {@link WEB_ERROR_CODES}. */
  readonly code: number;
  override readonly name: WebErrorName;

  constructor(name: WebErrorName, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = name;
    this.code = WEB_ERROR_CODES[name];
  }

  override toString(): string {
    return `${this.name} (${this.code}): ${this.message}`;
  }
}

/** The text to show a person for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
