import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { useConsoleActions } from './use-console-actions';

const THANK_YOU_ACTIONS = actionsOf('thankyou');

/** After the call: Add Note, or Done (focused). */
export function ThankYouView() {
  const actions = useConsoleActions(THANK_YOU_ACTIONS);
  return (
    <section className="panel thankyou" aria-labelledby="thankyou-title">
      <h1 id="thankyou-title" className="panel-title">
        Thank you!
      </h1>
      <p className="muted">Add a note about the call, or move on to the next lead.</p>
      <ErrorBanner message={actions.error} />
      <div className="action-row">
        {THANK_YOU_ACTIONS.map((action) => (
          <ActionButton
            key={action.name}
            action={action}
            actions={actions}
            focusOnMount={action.name === 'done'}
          />
        ))}
      </div>
    </section>
  );
}
