/**
 * Every coded error the SDK raises or receives, as data (spec section 8; names, descriptions
 * and codes as the official Voice SDK has them, so both SDKs report the same thing).
 */

/** The area an error belongs to; each has its class (`errors.ts`). */
export type ErrorArea =
  'authorization' | 'general' | 'malformed-request' | 'signaling' | 'media' | 'user-media' | 'sip';

/** One row of the table. */
export interface ErrorRow {
  name: string;
  area: ErrorArea;
  description: string;
  explanation: string;
}

/** The table, by code. */
export const ERROR_TABLE = {
  20101: {
    name: 'AccessTokenInvalid',
    area: 'authorization',
    description: 'Invalid access token',
    explanation: 'Twilio was unable to validate your Access Token',
  },
  20104: {
    name: 'AccessTokenExpired',
    area: 'authorization',
    description: 'Access token expired or expiration date invalid',
    explanation: 'The Access Token provided has expired or its expiration time was invalid.',
  },
  31000: {
    name: 'UnknownError',
    area: 'general',
    description: 'Unknown Error',
    explanation: 'An unknown error has occurred. See error details for more information.',
  },
  31003: {
    name: 'ConnectionTimeoutError',
    area: 'general',
    description: 'Connection Timeout',
    explanation: 'The server could not produce a response within a suitable amount of time.',
  },
  31005: {
    name: 'ConnectionError',
    area: 'general',
    description: 'Connection error',
    explanation: 'A connection error occurred during the call',
  },
  31008: {
    name: 'CallCancelledError',
    area: 'general',
    description: 'Call cancelled',
    explanation: 'Unable to answer because the call has ended',
  },
  31009: {
    name: 'TransportError',
    area: 'general',
    description: 'Transport error',
    explanation: 'No transport available to send or receive messages',
  },
  31100: {
    name: 'MalformedRequestError',
    area: 'malformed-request',
    description: 'The request had malformed syntax.',
    explanation: 'The request could not be understood due to malformed syntax.',
  },
  31201: {
    name: 'AuthorizationError',
    area: 'authorization',
    description: 'Authorization error',
    explanation:
      'The request requires user authentication. The server understood the request, but is refusing to fulfill it.',
  },
  31204: {
    name: 'InvalidJWTTokenError',
    area: 'authorization',
    description: 'Invalid JWT token',
    explanation: 'The access token is not a valid token.',
  },
  31205: {
    name: 'JWTTokenExpiredError',
    area: 'authorization',
    description: 'JWT token expired',
    explanation: 'The access token has expired.',
  },
  31401: {
    name: 'PermissionDeniedError',
    area: 'user-media',
    description: 'UserMedia Permission Denied Error',
    explanation:
      'The browser or end-user denied permissions to user media. Therefore we were unable to acquire input audio.',
  },
  31402: {
    name: 'AcquisitionFailedError',
    area: 'user-media',
    description: 'UserMedia Acquisition Failed Error',
    explanation: 'The browser and end-user allowed permissions, however getting the media failed.',
  },
  31404: {
    name: 'NotFound',
    area: 'sip',
    description: 'Not Found (HTTP/SIP)',
    explanation: 'The server has not found anything matching the request.',
  },
  31408: {
    name: 'RequestTimeout',
    area: 'sip',
    description: 'Request Timeout (SIP)',
    explanation: 'The callee did not answer in time.',
  },
  31480: {
    name: 'TemporarilyUnavailable',
    area: 'sip',
    description: 'Temporarily Unavailable (SIP)',
    explanation: 'The callee is currently unavailable.',
  },
  31486: {
    name: 'BusyHere',
    area: 'sip',
    description: 'Busy Here (SIP)',
    explanation: 'The callee is busy.',
  },
  53000: {
    name: 'ConnectionError',
    area: 'signaling',
    description: 'Signaling connection error',
    explanation:
      'Raised whenever a signaling connection error occurs that is not covered by a more specific error code.',
  },
  53001: {
    name: 'ConnectionDisconnected',
    area: 'signaling',
    description: 'Signaling connection disconnected',
    explanation: 'Raised whenever the signaling connection is unexpectedly disconnected.',
  },
  53400: {
    name: 'ClientLocalDescFailed',
    area: 'media',
    description: 'Client is unable to create or apply a local media description',
    explanation: 'Raised whenever a Client is unable to create or apply a local media description.',
  },
  53402: {
    name: 'ClientRemoteDescFailed',
    area: 'media',
    description: 'Client is unable to apply a remote media description',
    explanation:
      'Raised whenever the Client receives a remote media description but is unable to apply it.',
  },
  53405: {
    name: 'ConnectionError',
    area: 'media',
    description: 'Media connection failed',
    explanation: 'Raised by the Client or Server whenever a media connection fails.',
  },
} as const satisfies Record<number, ErrorRow>;

/** A code of the table. */
export type ErrorCode = keyof typeof ERROR_TABLE;
