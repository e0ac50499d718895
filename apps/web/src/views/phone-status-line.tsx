import type { PhoneStatus } from '../console/console-controller';

const PHONE_STATUS_TEXT: Readonly<Record<PhoneStatus, string>> = {
  idle: 'Phone is starting…',
  connecting: 'Connecting phone…',
  ready: 'Phone ready',
  offline: 'Phone offline: reconnecting…',
  unavailable: 'Phone unavailable: calls cannot ring here. Reload to try again.',
};

/** The softphone's status as a short line with a coloured dot (a polite live region). */
export function PhoneStatusLine({ phone }: { readonly phone: PhoneStatus }) {
  return (
    <p className={`phone-status phone-${phone}`} role="status">
      <span className="status-dot" aria-hidden="true" />
      {PHONE_STATUS_TEXT[phone]}
    </p>
  );
}
