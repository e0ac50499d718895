/**
 * Every coded error the SDK raises or receives, as data (spec section 8). Codes, names, groups,
 * descriptions and explanations are the official Voice SDK's, so both SDKs report the same
 * thing and a console written for one handles the other. `errors.ts` makes one class per row.
 */

/** The group (namespace) an error belongs to, as the official SDK exports them. */
export type ErrorGroup =
  | 'AuthorizationErrors'
  | 'ClientErrors'
  | 'SIPServerErrors'
  | 'GeneralErrors'
  | 'MalformedRequestErrors'
  | 'UserMediaErrors'
  | 'SignalingErrors'
  | 'MediaErrors';

/** One row of the table: [group, name, description, explanation]. */
export type ErrorRow = readonly [
  group: ErrorGroup,
  name: string,
  description: string,
  explanation: string,
];

/** The table, by code. */
export const ERROR_TABLE = {
  20101: [
    'AuthorizationErrors',
    'AccessTokenInvalid',
    'Invalid access token',
    'Twilio was unable to validate your Access Token',
  ],
  20104: [
    'AuthorizationErrors',
    'AccessTokenExpired',
    'Access token expired or expiration date invalid',
    'The Access Token provided to the Twilio API has expired, the expiration time specified in the token was invalid, or the expiration time specified was too far in the future',
  ],
  20151: [
    'AuthorizationErrors',
    'AuthenticationFailed',
    'Authentication Failed',
    'The Authentication with the provided JWT failed',
  ],
  31201: [
    'AuthorizationErrors',
    'AuthorizationError',
    'Authorization error',
    'The request requires user authentication. The server understood the request, but is refusing to fulfill it.',
  ],
  31204: ['AuthorizationErrors', 'InvalidJWTTokenError', 'Invalid JWT token', ''],
  31205: ['AuthorizationErrors', 'JWTTokenExpiredError', 'JWT token expired', ''],
  31400: [
    'ClientErrors',
    'BadRequest',
    'Bad Request (HTTP/SIP)',
    'The request could not be understood due to malformed syntax.',
  ],
  31404: [
    'ClientErrors',
    'NotFound',
    'Not Found (HTTP/SIP)',
    'The server has not found anything matching the request.',
  ],
  31480: [
    'ClientErrors',
    'TemporarilyUnavailable',
    'Temporarily Unavailable (SIP)',
    'The callee is currently unavailable.',
  ],
  31486: ['ClientErrors', 'BusyHere', 'Busy Here (SIP)', 'The callee is busy.'],
  31603: [
    'SIPServerErrors',
    'Decline',
    'Decline (SIP)',
    'The callee does not wish to participate in the call.',
  ],
  /**
   * Raised by the SDK for the spec's media errors (section 8), with what failed as the message:
   * 'Error creating the offer', 'Error processing answer' (and the incoming side's 'Error
   * processing the offer', 'Error creating the answer'), 'Cannot establish connection. Client is
   * disconnected'. The official SDK gives these its legacy code 31000 too, but raises them as
   * 53400, 53402 and 53001 (the console's phone port maps them back; docs/signalling.md).
   */
  31000: [
    'GeneralErrors',
    'UnknownError',
    'Unknown Error',
    'An unknown error has occurred. See error details for more information.',
  ],
  /**
   * A connection that timed out: the gateway's, or the call's media connection lost for good
   * (its ICE checks failed and no restart brought it back; spec section 8, "media connection
   * interrupted"). The official SDK's legacy code for the latter is 31003 too; it raises 53405.
   */
  31003: [
    'GeneralErrors',
    'ConnectionTimeoutError',
    'Connection Timeout',
    'The server could not produce a response within a suitable amount of time.',
  ],
  31005: [
    'GeneralErrors',
    'ConnectionError',
    'Connection error',
    'A connection error occurred during the call',
  ],
  31008: [
    'GeneralErrors',
    'CallCancelledError',
    'Call cancelled',
    'Unable to answer because the call has ended',
  ],
  31009: [
    'GeneralErrors',
    'TransportError',
    'Transport error',
    'No transport available to send or receive messages',
  ],
  31100: [
    'MalformedRequestErrors',
    'MalformedRequestError',
    'The request had malformed syntax.',
    'The request could not be understood due to malformed syntax.',
  ],
  31401: [
    'UserMediaErrors',
    'PermissionDeniedError',
    'UserMedia Permission Denied Error',
    'The browser or end-user denied permissions to user media. Therefore we were unable to acquire input audio.',
  ],
  31402: [
    'UserMediaErrors',
    'AcquisitionFailedError',
    'UserMedia Acquisition Failed Error',
    'The browser and end-user allowed permissions, however getting the media failed. Usually this is due to bad constraints, but can sometimes fail due to browser, OS or hardware issues.',
  ],
  53000: [
    'SignalingErrors',
    'ConnectionError',
    'Signaling connection error',
    'Raised whenever a signaling connection error occurs that is not covered by a more specific error code.',
  ],
  /** An open call lost its signalling (`reconnecting`; the call ends if it stays away). */
  53001: [
    'SignalingErrors',
    'ConnectionDisconnected',
    'Signaling connection disconnected',
    'Raised whenever the signaling connection is unexpectedly disconnected.',
  ],
  /** Not raised by this SDK (its failed offers and answers are 31000); the official API's. */
  53400: [
    'MediaErrors',
    'ClientLocalDescFailed',
    'Client is unable to create or apply a local media description',
    'Raised whenever a Client is unable to create or apply a local media description.',
  ],
  /** Not raised by this SDK (as 53400). */
  53402: [
    'MediaErrors',
    'ClientRemoteDescFailed',
    'Client is unable to apply a remote media description',
    'Raised whenever the Client receives a remote media description but is unable to apply it.',
  ],
  /**
   * An open call lost its media and restarts ICE (`reconnecting`, as the official SDK says it);
   * if the media stays away the call ends with 31003.
   */
  53405: [
    'MediaErrors',
    'ConnectionError',
    'Media connection failed',
    'Raised by the Client or Server whenever a media connection fails.',
  ],
} as const satisfies Record<number, ErrorRow>;

/** A code of the table. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/**
 * Codes the gateway may send that the official SDK turns into a generic 31005 ConnectionError
 * unless `enableImprovedSignalingErrorPrecision` is set (its `PRECISE_SIGNALING_ERROR_CODES`).
 */
export const PRECISE_SIGNALING_CODES: ReadonlySet<number> = new Set([
  31001, 31002, 31003, 31101, 31102, 31103, 31104, 31105, 31107, 31201, 31202, 31203, 31204, 31205,
  31207, 31404, 31480, 31486, 31603,
]);
