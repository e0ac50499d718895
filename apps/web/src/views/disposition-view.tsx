import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { useConsoleActions } from './use-console-actions';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

const DISPOSITION_ACTIONS = actionsOf('disposition');

/**
 * Call Result: Contacted, Voicemail, Missed, Remove, and Retry (app-retry) and SMS (app-sms)
 * for agents who have them. Focus goes to the group, not to a choice,
 * so the Enter that hung up cannot also record a result.
 */
export function DispositionView() {
  const actions = useConsoleActions(DISPOSITION_ACTIONS);
  const groupRef = useFocusOnMount<HTMLDivElement>();
  return (
    <section className="panel disposition" aria-labelledby="disposition-title">
      <h1 id="disposition-title" className="panel-title">
        Call Result
      </h1>
      <ErrorBanner message={actions.error} />
      <div
        className="choice-grid"
        role="group"
        aria-labelledby="disposition-title"
        ref={groupRef}
        tabIndex={-1}
      >
        {DISPOSITION_ACTIONS.filter(
          (action) => action.visible?.(actions.context.state) ?? true,
        ).map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} />
        ))}
      </div>
    </section>
  );
}
