/**
 * A button whose action asks first: pressing it shows the question in its place with the
 * confirming button (focused) and Cancel (or Escape), which puts the first button back
 * (focused). For deletes and deactivations.
 */
import { useEffect, useRef, useState } from 'react';

/** Props of {@link ConfirmButton}. */
export interface ConfirmButtonProps {
  /** The first button's text ('Delete'). */
  readonly label: string;
  /** Who or what it acts on, for the first button's accessible name ('Delete Sales'). */
  readonly subject: string;
  /** The question ('Delete the team Sales?'). */
  readonly question: string;
  /** The confirming button's text ('Yes, delete'). */
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly pending?: boolean;
  /** A destructive action (the confirming button is red). */
  readonly danger?: boolean;
}

/** See the module comment. */
export function ConfirmButton({
  label,
  subject,
  question,
  confirmLabel,
  onConfirm,
  pending = false,
  danger = true,
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [asked, setAsked] = useState(false);
  const firstRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (asked) firstRef.current?.focus();
  }, [asking, asked]);
  const cancel = () => setAsking(false);
  if (!asking) {
    return (
      <button
        ref={firstRef}
        type="button"
        className="btn btn-secondary btn-compact"
        aria-label={`${label} ${subject}`}
        disabled={pending}
        onClick={() => {
          setAsked(true);
          setAsking(true);
        }}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      className="admin-confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          cancel();
        }
      }}
    >
      <span className="admin-confirm-question">{question}</span>
      <button
        ref={confirmRef}
        type="button"
        className={`btn btn-compact ${danger ? 'btn-danger' : 'btn-primary'}`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="btn btn-secondary btn-compact" onClick={cancel}>
        Cancel
      </button>
    </span>
  );
}
