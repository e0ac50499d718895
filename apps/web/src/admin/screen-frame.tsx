import { useId, type MouseEvent, type ReactNode, type Ref } from 'react';
import { errorMessage } from '../errors';
import { ErrorBanner } from '../ui/error-banner';

/**
 * An admin screen: its heading with the create button ('New team'), then its parts (search,
 * form, list, pager) and the refusal of a row action (a delete) above the list.
 */
export function ScreenFrame({
  title,
  createLabel,
  onCreate,
  actionError = null,
  titleRef,
  children,
}: {
  readonly title: string;
  /** The create button's text; no button without it. */
  readonly createLabel?: string;
  readonly onCreate?: (event: MouseEvent<HTMLButtonElement>) => void;
  /** A row action's refusal (its message is the server's sentence). */
  readonly actionError?: Error | null;
  /**
   * The heading, for focus after a row action took its row (or its button) away: keyboard
   * users stay in the screen, and the status line says what happened.
   */
  readonly titleRef?: Ref<HTMLHeadingElement>;
  readonly children: ReactNode;
}) {
  const titleId = useId();
  return (
    <section className="admin-screen" aria-labelledby={titleId}>
      <div className="admin-screen-head">
        <h2 id={titleId} className="admin-screen-title" ref={titleRef} tabIndex={-1}>
          {title}
        </h2>
        {createLabel && onCreate && (
          <button type="button" className="btn btn-primary btn-compact" onClick={onCreate}>
            {createLabel}
          </button>
        )}
      </div>
      <ErrorBanner message={actionError ? errorMessage(actionError) : null} />
      {children}
    </section>
  );
}
