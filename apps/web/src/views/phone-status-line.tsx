import type { PhoneStatus } from '../console/console-controller';
import type { OwnerActivity, OwnerReport } from '../phone-owner/phone-owner-messages';
import { ELSEWHERE_STATES } from '../phone-owner/phone-owner-lifecycle';
import { usePhoneOwner } from '../phone-owner/use-phone-owner';

const PHONE_STATUS_TEXT: Readonly<Record<PhoneStatus, string>> = {
  idle: 'Phone is starting…',
  connecting: 'Connecting phone…',
  ready: 'Phone ready',
  offline: 'Phone offline: reconnecting…',
  unavailable: 'Phone unavailable: calls cannot ring here. Reload to try again.',
};

/** The line of a tab whose phone runs in another tab (before that tab has said how it is). */
export const PHONE_ELSEWHERE_TEXT = 'Phone in another tab';

/** The other tab's phone, while the agent waits there. */
const ELSEWHERE_PHONE_TEXT: Readonly<Record<PhoneStatus, string>> = {
  idle: 'Starting…',
  connecting: 'Connecting…',
  ready: 'Ready',
  offline: 'Offline, reconnecting…',
  unavailable: 'Unavailable',
};

/** What the agent is doing in the other tab, once not just waiting there. */
const ELSEWHERE_ACTIVITY_TEXT: Readonly<Record<Exclude<OwnerActivity, 'waiting'>, string>> = {
  ringing: 'Ringing',
  onCall: 'On a call',
  afterCall: 'After a call',
};

/** "Use phone here" is offered unless the other tab is ringing or on a call (it would drop it). */
const BUSY_ACTIVITIES: ReadonlySet<OwnerActivity> = new Set(['ringing', 'onCall']);

/** The follower's line: 'Phone in another tab — Ready', '… — On a call'. */
export function phoneElsewhereText(owner: OwnerReport | null): string {
  if (!owner) return PHONE_ELSEWHERE_TEXT;
  const detail =
    owner.activity === 'waiting'
      ? ELSEWHERE_PHONE_TEXT[owner.phone]
      : ELSEWHERE_ACTIVITY_TEXT[owner.activity];
  return `${PHONE_ELSEWHERE_TEXT} — ${detail}`;
}

/**
 * The softphone's status as a short line with a coloured dot (a polite live region). In a tab
 * whose phone runs in another of the agent's tabs: that tab's state, and "Use phone here".
 */
export function PhoneStatusLine({ phone }: { readonly phone: PhoneStatus }) {
  const phoneOwner = usePhoneOwner();
  if (phoneOwner && ELSEWHERE_STATES.has(phoneOwner.ownership.state)) {
    const { ownership, takeOver } = phoneOwner;
    const takingOver = ownership.state === 'takingOver';
    const busy = ownership.owner !== null && BUSY_ACTIVITIES.has(ownership.owner.activity);
    return (
      <div className="phone-elsewhere">
        <p className="phone-status phone-in-other-tab" role="status">
          <span className="status-dot" aria-hidden="true" />
          {phoneElsewhereText(ownership.owner)}
        </p>
        <button
          type="button"
          className="btn btn-secondary use-phone-here"
          disabled={takingOver || busy}
          aria-busy={takingOver || undefined}
          onClick={takeOver}
        >
          Use phone here
        </button>
      </div>
    );
  }
  return (
    <p className={`phone-status phone-${phone}`} role="status">
      <span className="status-dot" aria-hidden="true" />
      {PHONE_STATUS_TEXT[phone]}
    </p>
  );
}
