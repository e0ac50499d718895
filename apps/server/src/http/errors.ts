/**
 * The server's one registry of error codes: each with its HTTP status, message and the body
 * shape the console expects. Route code throws `AppError`s by code; the error handler
 * (`http/error-handler.ts`) turns them into responses.
 */
import { LOGIN_FAILED_MESSAGE } from '@leadline/contracts';

/**
 * `error`: `{ error }`, for requests the client got wrong (validation, auth).
 * `refusal`: `{ success: false, error }`, for domain refusals the spec's views show in a banner.
 */
type BodyShape = 'error' | 'refusal';

interface ErrorDefinition {
  status: number;
  message: string;
  shape: BodyShape;
}

/** Every error the API answers with, by stable code. */
export const ERRORS = {
  VALIDATION_FAILED: { status: 422, message: 'The given data was invalid.', shape: 'error' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.', shape: 'error' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'The request body must be JSON (Content-Type: application/json).',
    shape: 'error',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.', shape: 'error' },
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    message: 'The Idempotency-Key header must be 8 to 255 visible characters.',
    shape: 'error',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    message: 'This Idempotency-Key was already used for a different request.',
    shape: 'error',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
    shape: 'refusal',
  },
  UNAUTHENTICATED: { status: 401, message: 'Unauthenticated.', shape: 'refusal' },
  LOGIN_FAILED: { status: 401, message: LOGIN_FAILED_MESSAGE, shape: 'refusal' },
  CSRF_MISMATCH: {
    status: 403,
    message: 'CSRF token mismatch: send the csrf_token of GET /api/v1/user as X-CSRF-TOKEN.',
    shape: 'error',
  },
  INVALID_API_KEY: {
    status: 401,
    message: 'A valid API key is required: Authorization: Bearer <api key>.',
    shape: 'error',
  },
  FORBIDDEN: { status: 403, message: 'You do not have permission to do this.', shape: 'refusal' },
  NOT_FOUND: { status: 404, message: 'Not found.', shape: 'error' },
  CALL_NOT_ACTIVE: { status: 409, message: 'This call is no longer active.', shape: 'refusal' },
  NOT_ON_CALL: { status: 409, message: 'You are not on this call.', shape: 'refusal' },
  NOT_ON_ANY_CALL: { status: 409, message: 'You are not on a call.', shape: 'refusal' },
  ALREADY_ON_CALL: { status: 409, message: 'You are already on a call.', shape: 'refusal' },
  AGENT_UNAVAILABLE: { status: 409, message: 'This agent is not available.', shape: 'refusal' },
  TEAM_UNAVAILABLE: {
    status: 409,
    message: 'No agent of this team is available.',
    shape: 'refusal',
  },
  CALL_HAS_LEAD: { status: 409, message: 'This call already has a lead.', shape: 'refusal' },
  NOT_RINGING: {
    status: 409,
    message: 'This call is not ringing for you.',
    shape: 'refusal',
  },
  NETWORK_TEST_RUNNING: {
    status: 409,
    message: 'A network test is already running.',
    shape: 'refusal',
  },
  NETWORK_TEST_UNAVAILABLE: {
    status: 409,
    message: 'The network test needs the embedded voice engine; this server calls through Twilio.',
    shape: 'refusal',
  },
  PHONE_OFFLINE: {
    status: 409,
    message: 'Your phone is not connected: open the console first.',
    shape: 'refusal',
  },
  DIAL_REFUSED: {
    status: 403,
    message: 'Calls to this number are not allowed for this account.',
    shape: 'refusal',
  },
  DIAL_RATE_LIMITED: {
    status: 429,
    message: 'Too many calls or texts just now. Try again in a minute.',
    shape: 'refusal',
  },
  DIAL_IN_PROGRESS: {
    status: 409,
    message: 'You are already placing a call: wait until it connects, or hang it up first.',
    shape: 'refusal',
  },
  // 403, not 409: the console's outbox retries a 409 (an SMS would wait behind it for good).
  NO_OWN_CALLER_NUMBER: {
    status: 403,
    message:
      'This account has no caller number of its own: an administrator must add one before its agents can call.',
    shape: 'refusal',
  },
  NO_PHONE_NUMBER: {
    status: 409,
    message: 'This call has no phone number to text.',
    shape: 'refusal',
  },
  SSO_ONLY: {
    status: 403,
    message: 'Your account signs in with single sign-on only. Use Log in with Google.',
    shape: 'refusal',
  },
  TOO_MANY_LOGINS: {
    status: 429,
    message: 'Too many login attempts. Try again in 15 minutes.',
    shape: 'refusal',
  },
  SIGN_IN_BUSY: {
    status: 429,
    message: 'Too many sign-ins at once just now. Try again in a few seconds.',
    shape: 'refusal',
  },
  DEMO_PASSWORD: {
    status: 403,
    message:
      "This password is the public demo's: it signs nobody in here. Ask your administrator for a new one.",
    shape: 'refusal',
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests from your address. Try again in a minute.',
    shape: 'refusal',
  },
  ADMIN_ONLY: {
    status: 403,
    message: 'Only an administrator of this account can do this.',
    shape: 'error',
  },
  SUPERVISORS_ONLY: {
    status: 403,
    message: 'Only a supervisor or an administrator of this account can see this.',
    shape: 'error',
  },
  ALREADY_EXISTS: { status: 409, message: 'This already exists.', shape: 'error' },
  LAST_ADMIN: {
    status: 409,
    message: 'The account must keep at least one active administrator.',
    shape: 'error',
  },
  CALL_SERVICE_UNREACHABLE: {
    status: 503,
    message: 'The call service cannot be reached just now. Try again in a moment.',
    shape: 'refusal',
  },
  BAD_REQUEST_TARGET: {
    status: 400,
    message:
      'The request target must be a path such as /api/v1/user, without a scheme or host, dot segments or backslashes.',
    shape: 'error',
  },
  RELAY_SIGNATURE_INVALID: {
    status: 401,
    message:
      'This request says another instance relayed it, but its signature does not hold: it was changed, replayed, too old, or signed with another secret.',
    shape: 'error',
  },
  RELAY_MISDIRECTED: {
    status: 421,
    message:
      'This request was relayed for another leader of the media (another epoch): the relaying instance reads who leads again and resends it.',
    shape: 'error',
  },
  INTERNAL: { status: 500, message: 'Something went wrong on our side.', shape: 'error' },
} as const satisfies Record<string, ErrorDefinition>;

/** A code of the registry. */
export type ErrorCode = keyof typeof ERRORS;

/** An error with a registry code; `message` overrides the registry's text when more specific. */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly shape: BodyShape;
  /** How long the client should wait before asking again (a 429's `Retry-After`), if known. */
  readonly retryAfterS: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    options?: { cause?: unknown; retryAfterS?: number },
  ) {
    super(message ?? ERRORS[code].message, options);
    this.status = ERRORS[code].status;
    this.shape = ERRORS[code].shape;
    this.retryAfterS = options?.retryAfterS;
  }

  /** The response body for this error. */
  body(): { error: string } | { success: false; error: string } {
    return this.shape === 'refusal'
      ? { success: false, error: this.message }
      : { error: this.message };
  }
}
