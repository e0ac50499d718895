import type { PhoneStatus } from '../console/console-controller';
import { WAITING_TEXT } from '../constants';
import { useFocusOnMount } from './use-focus-on-mount';

const PHONE_STATUS_TEXT: Readonly<Record<PhoneStatus, string>> = {
  idle: 'Phone is starting…',
  connecting: 'Connecting phone…',
  ready: 'Phone ready',
  offline: 'Phone offline: reconnecting…',
  unavailable: 'Phone unavailable: calls cannot ring here. Reload to try again.',
};

/** Waiting for the next lead, with the softphone's status. */
export function WaitingView({ phone }: { readonly phone: PhoneStatus }) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>();
  return (
    <section className="panel waiting" aria-labelledby="waiting-title">
      <div className={`waiting-pulse${phone === 'ready' ? ' is-ready' : ''}`} aria-hidden="true">
        <span />
      </div>
      <h1 id="waiting-title" className="waiting-text" ref={headingRef} tabIndex={-1}>
        {WAITING_TEXT}
      </h1>
      <p className={`phone-status phone-${phone}`} role="status">
        <span className="status-dot" aria-hidden="true" />
        {PHONE_STATUS_TEXT[phone]}
      </p>
    </section>
  );
}

/** Shown while the user is being loaded. */
export function LoadingView() {
  return (
    <section className="panel waiting" aria-busy="true">
      <p className="muted" role="status">
        Loading…
      </p>
    </section>
  );
}
