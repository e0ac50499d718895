import { ariaKeyShortcuts, keyHint, type ConsoleAction } from '../console/actions';
import type { ConsoleActionsHandle } from './use-console-actions';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

/** Props of {@link ActionButton}. */
export interface ActionButtonProps {
  readonly action: ConsoleAction;
  readonly actions: ConsoleActionsHandle;
  /** Take focus when the view appears (the view's primary action). */
  readonly focusOnMount?: boolean;
  readonly size?: 'large' | 'normal';
}

/** A real button for an action: its label, its shortcut (shown and announced), its predicate. */
export function ActionButton({
  action,
  actions,
  focusOnMount = false,
  size = 'normal',
}: ActionButtonProps) {
  const ref = useFocusOnMount<HTMLButtonElement>(focusOnMount);
  const { state } = actions.context;
  const label = action.label(state);
  const hint = keyHint(action.key);
  const busy = actions.pending === action.name;
  return (
    <button
      ref={ref}
      type="button"
      className={`btn btn-${action.tone}${size === 'large' ? ' btn-large' : ''}`}
      disabled={!action.predicate(actions.context)}
      aria-pressed={action.pressed ? action.pressed(state) : undefined}
      aria-busy={busy || undefined}
      aria-keyshortcuts={ariaKeyShortcuts(action.key)}
      title={`${label} (${hint})`}
      onClick={() => actions.run(action)}
    >
      <span className="btn-label">{label}</span>
      <kbd className="btn-key" aria-hidden="true">
        {hint}
      </kbd>
    </button>
  );
}
