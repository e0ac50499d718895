import type { User } from '@leadline/contracts';
import { Suspense, lazy } from 'react';
import { actionsOf } from '../console/actions';
import { callStatusText } from '../console/call-rules';
import { CALL_TIMER_TICK_MS } from '../constants';
import { useNow, useServices } from '../use-services';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { elapsedSeconds, formatDuration } from '../ui/format';
import { useConsoleActions } from './use-console-actions';
import { AudioDeviceSettings } from './audio-device-settings';
import { CallQualityNotices } from './call-quality-notices';
import { ConferencePanel } from './conference-panel';
import { KeypadPanel } from './keypad-panel';
import { SuperviseSwitch } from './supervise-switch';
import { TransferPanel } from './transfer-panel';
import { useFocusOnMount } from '../ui/use-focus-on-mount';
import { VolumeMeters } from './volume-meter';

const ON_CALL_ACTIONS = actionsOf('oncall');

// With the phone input, as the New Call panel: not part of the first load.
const AddLeadPanel = lazy(() =>
  import('./add-lead-panel').then((module) => ({ default: module.AddLeadPanel })),
);

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

/** 'Reconnecting…' with the seconds since the call lost its connection. */
function ReconnectingBanner({ sinceMs }: { readonly sinceMs: number }) {
  const now = useNow(CALL_TIMER_TICK_MS);
  return (
    <div className="banner banner-warning" role="status">
      Reconnecting… {elapsedSeconds(sinceMs, now)} s
    </div>
  );
}

/**
 * On a call: the timer, the volume meters, the call quality notices, the on-call controls the call's rules show
 * (Hold/Resume, Keypad, Mute/Muted, Hang Up) and the panel one of them opened. Focus goes to the
 * call panel, not to Hang Up, so a second Enter after Accept cannot end the call.
 */
export function OnCallView({
  connectedAtMs,
  user,
}: {
  readonly connectedAtMs: number;
  readonly user: User;
}) {
  const actions = useConsoleActions(ON_CALL_ACTIONS);
  const { controller, platform } = useServices();
  const { call, panel } = actions.context.state;
  const panelRef = useFocusOnMount<HTMLElement>();
  return (
    <section className="panel oncall" aria-label="On call" ref={panelRef} tabIndex={-1}>
      <div className="call-status">
        <span className="live-dot" aria-hidden="true" />
        <span className="call-status-text">{callStatusText(call, actions.context.state.held)}</span>
        <CallTimer connectedAtMs={connectedAtMs} />
      </div>
      <VolumeMeters />
      {actions.context.state.reconnectingSinceMs === null ? null : (
        <ReconnectingBanner sinceMs={actions.context.state.reconnectingSinceMs} />
      )}
      <CallQualityNotices state={actions.context.state} />
      <ErrorBanner message={actions.error} />
      <div className="action-row">
        {ON_CALL_ACTIONS.filter((action) => action.visible?.(actions.context.state) ?? true).map(
          (action) => (
            <ActionButton key={action.name} action={action} actions={actions} size="large" />
          ),
        )}
      </div>
      {panel === 'keypad' ? <KeypadPanel /> : null}
      {panel === 'transfer' && call ? (
        <TransferPanel
          call={call}
          selfId={user.id}
          onDone={() => controller.togglePanel('transfer')}
        />
      ) : null}
      {panel === 'conference' ? (
        <ConferencePanel user={user} onCall onDone={() => controller.conferenced()} />
      ) : null}
      {panel === 'audio' ? (
        <section className="subpanel" aria-label="Audio devices">
          <AudioDeviceSettings audio={controller.audio} storage={platform.storage} />
        </section>
      ) : null}
      {call ? <SuperviseSwitch call={call} user={user} /> : null}
      {panel === 'addLead' && call ? (
        <Suspense fallback={<p className="list-empty">Loading…</p>}>
          <AddLeadPanel call={call} user={user} />
        </Suspense>
      ) : null}
    </section>
  );
}
