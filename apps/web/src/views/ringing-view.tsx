import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { useConsoleActions } from './use-console-actions';

const RINGING_ACTIONS = actionsOf('ringing');

/** A call is ringing: Accept (focused) and Ignore. */
export function RingingView() {
  const actions = useConsoleActions(RINGING_ACTIONS);
  return (
    <section className="panel ringing" aria-label="Incoming call">
      <ErrorBanner message={actions.error} />
      <div className="action-row">
        {RINGING_ACTIONS.map((action) => (
          <ActionButton
            key={action.name}
            action={action}
            actions={actions}
            size="large"
            focusOnMount={action.name === 'accept'}
          />
        ))}
      </div>
    </section>
  );
}
