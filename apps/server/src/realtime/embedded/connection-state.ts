/**
 * The keep-alive lifecycle of one client socket. Any frame from the client is `activity`; after
 * the activity timeout without one the server pings (`idle`) and waits for any frame; without
 * one within the pong timeout the socket is closed (`pongTimeout`).
 *
 * ```text
 *   open ──idle──▶ awaitingPong ──pongTimeout──▶ closed
 *    ▲  ◀──activity──┘
 *    └─ close (from either) ──▶ closed
 * ```
 */
import { StateMachine, statesOf, type TransitionTable } from '@leadline/contracts/lib';

/** Events of the connection lifecycle. */
export type ConnectionEvent = 'activity' | 'idle' | 'pongTimeout' | 'close';

/** The transition table of a client socket. */
export const CONNECTION_TABLE = {
  open: { activity: 'open', idle: 'awaitingPong', close: 'closed' },
  awaitingPong: { activity: 'open', pongTimeout: 'closed', close: 'closed' },
  closed: {},
} as const satisfies TransitionTable<string, ConnectionEvent>;

/** A state of a client socket. */
export type ConnectionState = keyof typeof CONNECTION_TABLE;

/** Every state, derived from the table. */
export const CONNECTION_STATES: ConnectionState[] = statesOf(CONNECTION_TABLE);

/** A new socket's lifecycle, starting open. */
export const connectionMachine = (): StateMachine<ConnectionState, ConnectionEvent> =>
  new StateMachine<ConnectionState, ConnectionEvent>('PusherConnection', CONNECTION_TABLE, 'open');
