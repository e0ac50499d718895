import { actionsOf } from '../console/actions';
import { CALL_TIMER_TICK_MS } from '../constants';
import { useNow } from '../services';
import { ActionButton, ErrorBanner } from './action-button';
import { elapsedSeconds, formatDuration } from './format';
import { useConsoleActions } from './use-console-actions';
import { useFocusOnMount } from './use-focus-on-mount';
import { VolumeMeters } from './volume-meter';

const ON_CALL_ACTIONS = actionsOf('oncall');

/** The mm:ss call timer, ticking each second on the injected clock. */
function CallTimer({ connectedAtMs }: { readonly connectedAtMs: number }) {
  const now = useNow(CALL_TIMER_TICK_MS);
  return (
    <p className="call-timer">
      <span className="sr-only">Call time </span>
      <span role="timer" aria-live="off" aria-atomic="true">
        {formatDuration(elapsedSeconds(connectedAtMs, now))}
      </span>
    </p>
  );
}

/**
 * On a call: the timer, the volume meters, Mute/Muted and Hang Up. Focus goes to the
 * call panel, not to Hang Up, so a second Enter after Accept cannot end the call.
 */
export function OnCallView({ connectedAtMs }: { readonly connectedAtMs: number }) {
  const actions = useConsoleActions(ON_CALL_ACTIONS);
  const panelRef = useFocusOnMount<HTMLElement>();
  return (
    <section className="panel oncall" aria-label="On call" ref={panelRef} tabIndex={-1}>
      <div className="call-status">
        <span className="live-dot" aria-hidden="true" />
        <span className="call-status-text">On call</span>
        <CallTimer connectedAtMs={connectedAtMs} />
      </div>
      <VolumeMeters />
      <ErrorBanner message={actions.error} />
      <div className="action-row">
        {ON_CALL_ACTIONS.map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} size="large" />
        ))}
      </div>
    </section>
  );
}
