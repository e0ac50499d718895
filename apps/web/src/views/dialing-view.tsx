import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { useConsoleActions } from './use-console-actions';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

const DIALING_ACTIONS = actionsOf('dialing');

/**
 * An outbound call is being placed (banner 'Dialing...'): the number, and Hang Up. Focus goes
 * to the panel, not to Hang Up, so the Enter that pressed Call Now cannot end the call.
 */
export function DialingView({ number }: { readonly number: string | null }) {
  const actions = useConsoleActions(DIALING_ACTIONS);
  const panelRef = useFocusOnMount<HTMLElement>();
  return (
    <section className="panel dialing" aria-label="Dialing" ref={panelRef} tabIndex={-1}>
      <div className="call-status">
        <span className="dialing-dot" aria-hidden="true" />
        <span className="call-status-text">Calling{number ? ` ${number}` : ''}…</span>
      </div>
      <ErrorBanner message={actions.error} />
      <div className="action-row">
        {DIALING_ACTIONS.map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} size="large" />
        ))}
      </div>
    </section>
  );
}
