import { useFocusOnMount } from './use-focus-on-mount';

/** Props of {@link PanelHead}. */
export interface PanelHeadProps {
  /** The heading's id (the panel is labelled by it). */
  readonly titleId: string;
  readonly title: string;
  readonly onClose: () => void;
  /** Focus the title when the panel opens (default); off when a field takes focus instead. */
  readonly focusTitle?: boolean;
}

/**
 * A waiting-view panel's head: its title (focused when the panel opens, so keyboard and
 * screen-reader users land in it) and a close icon.
 */
export function PanelHead({ titleId, title, onClose, focusTitle = true }: PanelHeadProps) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>(focusTitle);
  return (
    <div className="panel-head">
      <h1 id={titleId} className="panel-title" ref={headingRef} tabIndex={-1}>
        {title}
      </h1>
      <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M3.5 3.5l9 9m0-9l-9 9" stroke="currentColor" strokeWidth="1.8" />
        </svg>
      </button>
    </div>
  );
}

/** Closes the panel on Escape (unless something inside handled the key). */
export function closeOnEscape(onClose: () => void) {
  return (event: React.KeyboardEvent) => {
    if (event.key === 'Escape' && !event.defaultPrevented) {
      event.preventDefault();
      onClose();
    }
  };
}
