import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { useConsoleActions } from './use-console-actions';

const TAG_ACTIONS = actionsOf('disposition2');
const SMS_ACTIONS = actionsOf('sms');

/**
 * Tags & Stages (disposition2). The flow does not enter it yet (the tag buttons come with the
 * Tags & Stages issue); it has its Skip so the state is never a dead end.
 */
export function TagsView() {
  const actions = useConsoleActions(TAG_ACTIONS);
  return (
    <section className="panel" aria-labelledby="tags-title">
      <h1 id="tags-title" className="panel-title">
        Tags &amp; Stages
      </h1>
      <div className="action-row">
        {TAG_ACTIONS.map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} focusOnMount />
        ))}
      </div>
    </section>
  );
}

/**
 * Send SMS. The flow does not enter it yet (the SMS form comes with the SMS issue); it has its
 * Cancel so the state is never a dead end.
 */
export function SmsView() {
  const actions = useConsoleActions(SMS_ACTIONS);
  return (
    <section className="panel" aria-labelledby="sms-title">
      <h1 id="sms-title" className="panel-title">
        Send SMS
      </h1>
      <div className="action-row">
        {SMS_ACTIONS.map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} focusOnMount />
        ))}
      </div>
    </section>
  );
}
