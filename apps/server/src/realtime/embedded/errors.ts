/**
 * The `pusher:error` codes of the embedded endpoint, in one table. The 4000–4099 codes are
 * Pusher's own close codes (the socket is closed with them and pusher-js does not reconnect);
 * 4201 is Pusher's "pong not received" (pusher-js reconnects at once); the 43xx codes are sent
 * in a `pusher:error` frame and the socket stays open.
 */

/** Every error the endpoint reports, with its code and whether the socket is closed. */
export const PUSHER_ERRORS = {
  /** The key in `/app/{key}` is not this server's. */
  appNotFound: { code: 4001, close: true, message: 'App key does not exist.' },
  /** The `protocol` query parameter names a version this server does not speak. */
  unsupportedProtocol: { code: 4007, close: true, message: 'Unsupported protocol version.' },
  /** A private or presence subscription with a missing or forged `auth`. */
  unauthorized: { code: 4009, close: false, message: 'Subscription refused: invalid auth.' },
  /** The login that let the socket into its channels ended (a logout, a removed user). */
  accessWithdrawn: { code: 4009, close: true, message: 'Signed out: this session has ended.' },
  /**
   * No authorised subscription within the deadline (`AUTH_DEADLINE_S`); a 41xx code: pusher-js
   * reconnects after a back-off and subscribes again.
   */
  authDeadline: {
    code: 4101,
    close: true,
    message: 'Not authorised: subscribe to a private or presence channel within 30 seconds.',
  },
  /**
   * The login that let the socket in let in more sockets since (`MAX_REALTIME_SOCKETS_PER_LOGIN`):
   * its oldest is closed, and pusher-js does not reconnect it.
   */
  superseded: {
    code: 4009,
    close: true,
    message: 'Closed: this login opened more realtime connections than it may keep.',
  },
  /** No `pusher:pong` came back within the pong timeout. */
  pongTimeout: { code: 4201, close: true, message: 'Pong reply not received.' },
  /** A `client-*` event: client events are not enabled on this app. */
  clientEventRefused: {
    code: 4301,
    close: false,
    message: 'Client events are not enabled on this app.',
  },
  /** A frame that is not JSON, not text, or not `{ event, channel?, data }`. */
  invalidFrame: { code: 4302, close: false, message: 'Invalid frame.' },
  /** An event name this server does not know. */
  unknownEvent: { code: 4303, close: false, message: 'Unknown event.' },
  /** A subscribe/unsubscribe whose data or channel name is invalid. */
  invalidChannel: { code: 4304, close: false, message: 'Invalid channel or channel data.' },
} as const;

/** The name of an error of the table. */
export type PusherErrorName = keyof typeof PUSHER_ERRORS;
