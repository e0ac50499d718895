import { useState } from 'react';
import { actionsOf } from '../console/actions';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { useConsoleActions } from './use-console-actions';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

const NOTE_ACTIONS = actionsOf('note');

/** Add Note: a text area, Skip, and Save (disabled while the note is empty). */
export function NoteView() {
  const [note, setNote] = useState('');
  const actions = useConsoleActions(NOTE_ACTIONS, { text: note });
  const textRef = useFocusOnMount<HTMLTextAreaElement>();
  return (
    <section className="panel note" aria-labelledby="note-title">
      <h1 id="note-title" className="panel-title">
        Add Note
      </h1>
      <ErrorBanner message={actions.error} />
      <div className="form">
        <label className="field">
          <span className="field-label">Note</span>
          <textarea
            ref={textRef}
            className="input textarea"
            name="note"
            rows={5}
            value={note}
            aria-keyshortcuts="Control+Enter Meta+Enter"
            onChange={(event) => setNote(event.target.value)}
          />
        </label>
        <div className="action-row">
          {NOTE_ACTIONS.map((action) => (
            <ActionButton key={action.name} action={action} actions={actions} />
          ))}
        </div>
      </div>
    </section>
  );
}
