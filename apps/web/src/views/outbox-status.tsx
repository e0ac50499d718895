import { useEffect, useState } from 'react';
import { SAVED_SHOWN_MS } from '../constants';
import { useOutboxStatus, useServices } from '../use-services';

/**
 * The discreet Saving… / Saved line of the after-call writes (the outbox): 'Saving…' while a
 * write is on its way or waits for the connection (the title says it is kept on this device),
 * 'Saved' for a moment once everything is on the server, and a refusal with a Dismiss button.
 */
export function OutboxStatus() {
  const { outbox, platform } = useServices();
  const status = useOutboxStatus();
  // The snapshot whose 'Saved' has been shown long enough (snapshots are stable objects).
  const [savedExpired, setSavedExpired] = useState<typeof status | null>(null);

  useEffect(() => {
    if (status.state !== 'saved') return;
    const timer = platform.timers.setTimeout(() => setSavedExpired(status), SAVED_SHOWN_MS);
    return () => platform.timers.clearTimeout(timer);
  }, [status, platform]);
  const savedShown = status.state === 'saved' && savedExpired !== status;

  const waiting = status.state === 'waiting';
  const saving = status.state === 'saving' || waiting;
  const text = saving
    ? status.pending > 1
      ? `Saving ${status.pending} changes…`
      : 'Saving…'
    : savedShown
      ? 'Saved'
      : '';
  return (
    <span className="outbox-status">
      <span
        role="status"
        className={`outbox-line${waiting ? ' is-waiting' : ''}`}
        title={
          waiting
            ? 'Kept on this device: it is sent as soon as the server can be reached.'
            : undefined
        }
      >
        {text}
        {waiting ? (
          <span className="sr-only"> Kept on this device until the connection is back.</span>
        ) : null}
      </span>
      {status.lastError ? (
        <span role="alert" className="outbox-error">
          {status.lastError.label} not saved: {status.lastError.error}{' '}
          <button type="button" className="link-button" onClick={() => outbox.dismissError()}>
            Dismiss
          </button>
        </span>
      ) : null}
    </span>
  );
}
