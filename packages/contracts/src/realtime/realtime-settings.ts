/**
 * How the console reaches the realtime service (`realtime` of GET /api/v1/user) and the events
 * the server publishes on it. Types only: the browser bundle takes nothing else from here.
 */
import type { PresenceStatus } from '../http/users';

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
  /** The account's private channel, `private-account-<id>`: teammates' status. */
  account: string;
}

/** `realtime` of GET /api/v1/user. */
export interface RealtimeSettings {
  key: string;
  options: RealtimeClientOptions;
  channels: RealtimeChannels;
}

/** Events on the account channel, by name. */
export const ACCOUNT_EVENTS = { agentStatus: 'agent-status' } as const;

/** `agent-status`: an agent of the account is somewhere else now. */
export interface AgentStatusEvent {
  user_id: number;
  status: PresenceStatus;
  /** The agent's choice (Available / Away). */
  is_available: boolean;
  /** ISO time of the change. */
  at: string;
}
