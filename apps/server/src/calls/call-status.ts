/**
 * The lifecycle of a call row as one transition table (like every other lifecycle of the
 * product): the flows never write a status directly, they send an event and store what the
 * table answers; an event the current status does not accept is a bug and throws.
 *
 * ```text
 *                 ┌────────wait────────┐
 *                 ▼                    │
 *  queued ──ring──▶ ringing ──answer──▶ in-progress ──complete──▶ completed
 *    │  ▲           │  ▲                  │
 *    │  └───wait────┘  └─ring (next agent) ├─lead-busy──▶ lead-busy
 *    │                                     ├─lead-no-answer──▶ no-answer
 *    │                                     └─lead-failed──▶ failed
 *    │
 *    └──connect──▶ in-progress (outbound: the agent placed it)
 *
 *  queued / ringing ──all-busy──▶ busy   ──no-agents / closed──▶ offline
 *                   ──nobody-answered / abandon──▶ missed     ──cancel──▶ canceled
 * ```
 * `queued` is a new call, or a web lead waiting in the queue (`waiting_since` set). `restart`
 * takes a live call that a crash or a shutdown interrupted to its end (`completed` if it was
 * answered, else `missed`); `requeue` puts a web lead that was ringing back in the queue.
 */
import { IllegalTransitionError, statesOf, type TransitionTable } from '@leadline/contracts/lib';

/** What can happen to a call. */
export type CallEvent =
  /** An agent is rung for it. */
  | 'ring'
  /** A web lead waits for an agent to become free. */
  | 'wait'
  /** The agent took it (the talk starts when the lead answers). */
  | 'answer'
  /** An agent placed it (outbound). */
  | 'connect'
  /** It ended after the agent and the lead talked, or the agent hung up first. */
  | 'complete'
  /** Every eligible agent was rung; none took it. */
  | 'nobody-answered'
  /** The inbound caller hung up before an agent took the call. */
  | 'abandon'
  /** Every agent who could take it is on a call. */
  | 'all-busy'
  /** No agent who could take it is online and available. */
  | 'no-agents'
  /** Outside the profile's availability hours. */
  | 'closed'
  /** The lead's line was busy, did not answer, or could not be reached. */
  | 'lead-busy'
  | 'lead-no-answer'
  | 'lead-failed'
  /** Given up without an outcome (a queued lead whose call was withdrawn). */
  | 'cancel'
  /** The server stopped while the call was live: it ends here. */
  | 'restart'
  /** The server stopped while a web lead was ringing: it waits in the queue again. */
  | 'requeue';

const NOT_ANSWERED = {
  'nobody-answered': 'missed',
  abandon: 'missed',
  'all-busy': 'busy',
  'no-agents': 'offline',
  closed: 'offline',
  cancel: 'canceled',
} as const satisfies Partial<Record<CallEvent, CallStatus>>;

/** Lifecycle of a call row (its transition table: `CALL_STATUS_TABLE` below). */
export type CallStatus =
  | 'queued'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'missed'
  | 'busy'
  | 'offline'
  | 'lead-busy'
  | 'no-answer'
  | 'failed'
  | 'canceled';

/** The table. Final statuses accept nothing. */
export const CALL_STATUS_TABLE = {
  queued: { ring: 'ringing', wait: 'queued', connect: 'in-progress', ...NOT_ANSWERED },
  ringing: {
    ring: 'ringing',
    answer: 'in-progress',
    wait: 'queued',
    requeue: 'queued',
    restart: 'missed',
    ...NOT_ANSWERED,
  },
  'in-progress': {
    complete: 'completed',
    'lead-busy': 'lead-busy',
    'lead-no-answer': 'no-answer',
    'lead-failed': 'failed',
    restart: 'completed',
  },
  completed: {},
  missed: {},
  busy: {},
  offline: {},
  'lead-busy': {},
  'no-answer': {},
  failed: {},
  canceled: {},
} as const satisfies TransitionTable<CallStatus, CallEvent>;

/** Every call status, from the table. */
export const CALL_STATUSES: CallStatus[] = statesOf<CallStatus, CallEvent>(CALL_STATUS_TABLE);

/** Statuses a call can no longer leave (the table gives them no event). */
export const FINAL_STATUSES: ReadonlySet<CallStatus> = new Set(
  CALL_STATUSES.filter((status) => Object.keys(CALL_STATUS_TABLE[status]).length === 0),
);

/** Statuses of a call that is on now (someone rung or talking), as a list for SQL. */
export const LIVE_CALL_STATUSES = ['ringing', 'in-progress'] as const satisfies CallStatus[];

/** Statuses of a call that is on now (someone rung or talking). */
export const LIVE_STATUSES: ReadonlySet<CallStatus> = new Set(LIVE_CALL_STATUSES);

/** Statuses of a call that has not ended yet (new or waiting, rung, talking), for SQL. */
export const OPEN_CALL_STATUSES: readonly CallStatus[] = CALL_STATUSES.filter(
  (status) => !FINAL_STATUSES.has(status),
);

/** The status of a new or waiting call (for SQL; see `isQueued`). */
export const QUEUED = 'queued' satisfies CallStatus;
/** The status of a call whose agents are being rung (see `isRinging`). */
export const RINGING = 'ringing' satisfies CallStatus;
/** The status of a call an agent has (see `isConnected`). */
export const CONNECTED = 'in-progress' satisfies CallStatus;

/**
 * Statuses of a call that ended reaching no agent, with the history's reasons (spec section 4):
 * missed ('No agents answered'), busy ('All agents busy'), offline ('Outside availability hours').
 */
export const REACHED_NOBODY_STATUSES = [
  'missed',
  'busy',
  'offline',
] as const satisfies CallStatus[];

/**
 * `('ringing', 'in-progress')`: statuses as a literal SQL list, for raw SQL whose plan must see
 * the values (a partial index on the status matches literals, not parameters).
 */
export function statusListSql(statuses: readonly CallStatus[]): string {
  return `(${statuses.map((status) => `'${status}'`).join(', ')})`;
}

/** Whether a call with this status has ended for good. */
export const isFinal = (status: CallStatus): boolean => FINAL_STATUSES.has(status);

/** Whether someone is rung for, or talking on, a call with this status. */
export const isLive = (status: CallStatus): boolean => LIVE_STATUSES.has(status);

/**
 * Whether the call is new or waiting: not offered yet, a web lead waiting in the queue, or an
 * outbound call the console has not connected yet.
 */
export const isQueued = (status: CallStatus): boolean => status === QUEUED;

/** Whether agents are being rung for the call and none has taken it yet. */
export const isRinging = (status: CallStatus): boolean => status === RINGING;

/** Whether an agent has the call (answered, or placed it): the lead is dialled or talking. */
export const isConnected = (status: CallStatus): boolean => status === CONNECTED;

/** Whether `event` is allowed in `status`. */
export function canTransition(status: CallStatus, event: CallEvent): boolean {
  return (CALL_STATUS_TABLE[status] as Partial<Record<CallEvent, CallStatus>>)[event] !== undefined;
}

/** The status after `event`; throws `IllegalTransitionError` when `status` does not accept it. */
export function nextStatus(status: CallStatus, event: CallEvent): CallStatus {
  const next = (CALL_STATUS_TABLE[status] as Partial<Record<CallEvent, CallStatus>>)[event];
  if (next === undefined) throw new IllegalTransitionError('call', status, event);
  return next;
}
