/**
 * What the tabs of one agent say to each other on their `BroadcastChannel`: the owning tab
 * publishes its phone's status and what the agent is doing there; a tab that became a follower
 * asks for it; a tab that logged out says so. Messages from another tab are data from outside:
 * {@link parsePhoneOwnerMessage} checks each one before it is used.
 */
import type { PhoneStatus } from '../console/console-controller';
import type { ConsoleView } from '../console/console-machine';

/** What the agent is doing in the owning tab, as the other tabs show it. */
export type OwnerActivity = 'waiting' | 'ringing' | 'onCall' | 'afterCall';

/** The owner's activity in each console view. */
export const ACTIVITY_BY_VIEW: Readonly<Record<ConsoleView, OwnerActivity>> = {
  login: 'waiting',
  waiting: 'waiting',
  ringing: 'ringing',
  dialing: 'onCall',
  oncall: 'onCall',
  disposition: 'afterCall',
  disposition2: 'afterCall',
  sms: 'afterCall',
  thankyou: 'afterCall',
  note: 'afterCall',
};

/** What a tab says about its phone; the owner publishes its own. */
export interface OwnerReport {
  readonly phone: PhoneStatus;
  readonly activity: OwnerActivity;
}

/**
 * A message on the channel:
 * - `state`: the owner's {@link OwnerReport}; `term` is when it got the phone (ms since the
 *   epoch), so a report of a tab that has lost the phone since never overrides its successor's;
 * - `ask`: a new follower wants the owner's state;
 * - `loggedOut`: the agent logged out in the sending tab (the session is gone for every tab).
 */
export type PhoneOwnerMessage =
  | ({ readonly type: 'state'; readonly term: number } & OwnerReport)
  | { readonly type: 'ask' }
  | { readonly type: 'loggedOut' };

const PHONE_STATUS_SET = {
  idle: true,
  connecting: true,
  ready: true,
  offline: true,
  unavailable: true,
} as const satisfies Record<PhoneStatus, true>;

const ACTIVITY_SET = {
  waiting: true,
  ringing: true,
  onCall: true,
  afterCall: true,
} as const satisfies Record<OwnerActivity, true>;

const isKeyOf = <K extends string>(set: Readonly<Record<K, true>>, value: unknown): value is K =>
  typeof value === 'string' && Object.hasOwn(set, value);

/** The message `data` is, or null when it is none of ours. */
export function parsePhoneOwnerMessage(data: unknown): PhoneOwnerMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = data as Record<string, unknown>;
  switch (message.type) {
    case 'ask':
      return { type: 'ask' };
    case 'loggedOut':
      return { type: 'loggedOut' };
    case 'state': {
      const { term, phone, activity } = message;
      if (typeof term !== 'number' || !Number.isFinite(term)) return null;
      if (!isKeyOf(PHONE_STATUS_SET, phone) || !isKeyOf(ACTIVITY_SET, activity)) return null;
      return { type: 'state', term, phone, activity };
    }
    default:
      return null;
  }
}
