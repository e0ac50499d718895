/**
 * How the console reaches the realtime service (`realtime` of GET /api/v1/user) and the events
 * the server publishes on it. Types only: the browser bundle takes nothing else from here.
 */
import type { PresenceStatus } from './presence-status';

/**
 * What the console passes to `new Pusher(key, options)` unchanged (pusher-js 8 option names).
 * Hosted Pusher: `cluster` and `forceTLS`; a self-hosted or the embedded endpoint also `wsHost`
 * and `wsPort`/`wssPort`.
 */
export interface RealtimeClientOptions {
  cluster: string;
  forceTLS: boolean;
  wsHost?: string;
  wsPort?: number;
  wssPort?: number;
  enabledTransports?: Array<'ws' | 'wss'>;
  disableStats?: boolean;
  /** `POST /api/v1/pusher/auth`, with the session cookie and the CSRF header. */
  channelAuthorization: {
    endpoint: string;
    transport: 'ajax';
    headers: Record<string, string>;
  };
  /** Spec section 9: 120 s, 30 s, 10 s. */
  activityTimeout: number;
  pongTimeout: number;
  unavailableTimeout: number;
}

/** The channels the console subscribes to. */
export interface RealtimeChannels {
  /** The user's presence channel, `presence-user-<id>` (spec: the result is only logged). */
  user: string;
  /** The account's private channel, `private-account-<id>`: teammates' status, floor changes. */
  account: string;
}

/** `realtime` of GET /api/v1/user. */
export interface RealtimeSettings {
  key: string;
  options: RealtimeClientOptions;
  channels: RealtimeChannels;
}

/** Events on the account channel, by name. */
export const ACCOUNT_EVENTS = {
  agentStatus: 'agent-status',
  floorChanged: 'floor-changed',
} as const;

/** `agent-status`: an agent of the account is somewhere else now. */
export interface AgentStatusEvent {
  user_id: number;
  status: PresenceStatus;
  /** The agent's choice (Available / Away). */
  is_available: boolean;
  /** ISO time of the change. */
  at: string;
}

/**
 * What changed on the floor (issue 39), as `floor-changed` says it:
 * - `queued`: the call waits in the queue (a web lead nobody can take yet, or put back);
 * - `ringing`: a user is rung for the call (it left the queue if it waited);
 * - `ring-ended`: a ring ended unanswered (refused, timed out, the device gone);
 * - `answered`: a user took the call, its lead's phone answered (a web lead's talk starts then:
 *   two in a row for one call), or an agent's own call connected;
 * - `ended`: the call is over (answered or not: abandoned, expired, withdrawn, completed).
 */
export const FLOOR_CHANGE_REASONS = [
  'queued',
  'ringing',
  'ring-ended',
  'answered',
  'ended',
] as const;
export type FloorChangeReason = (typeof FLOOR_CHANGE_REASONS)[number];

/**
 * `floor-changed`: a call of the account moved on the floor (`GET /api/v1/floor` reads
 * otherwise now). A hint to read the floor again, published once the change is stored, by
 * whichever instance made it; the account channel reaches every user of the account, so it says
 * no more than which call and how (no lead, number or agent).
 */
export interface FloorChangedEvent {
  call_id: number;
  reason: FloorChangeReason;
  /** ISO time of the change. */
  at: string;
}
