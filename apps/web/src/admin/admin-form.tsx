/**
 * The frame of every admin create / edit form: its heading (focused when it opens), the
 * fields, the server's refusal beside them (role=alert, focused so it is read at once), Save
 * and Cancel. Enter in a field submits (a real form); Escape cancels.
 */
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';
import { errorMessage } from '../errors';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

/** Props of {@link AdminForm}. */
export interface AdminFormProps {
  readonly title: string;
  /** The submit button's text ('Create team', 'Save'). */
  readonly submitLabel: string;
  readonly onSubmit: () => void;
  readonly onCancel: () => void;
  /** The last submit's refusal (its message is the server's sentence), or null. */
  readonly error: Error | null;
  /** A submit is on its way. */
  readonly pending: boolean;
  /** Whether it has Cancel (and Escape): a form that is the whole screen has not. */
  readonly cancellable?: boolean;
  /** Whether its heading takes focus when it appears (default: a form opened by a button). */
  readonly focusTitle?: boolean;
  readonly children: ReactNode;
}

/** See the module comment. */
export function AdminForm({
  title,
  submitLabel,
  onSubmit,
  onCancel,
  error,
  pending,
  cancellable = true,
  focusTitle = cancellable,
  children,
}: AdminFormProps) {
  const titleId = useId();
  const headingRef = useFocusOnMount<HTMLHeadingElement>(focusTitle);
  const errorRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) onSubmit();
  };
  return (
    <form
      className="admin-form panel"
      aria-labelledby={titleId}
      noValidate
      onSubmit={submit}
      onKeyDown={(event) => {
        if (cancellable && event.key === 'Escape' && !event.defaultPrevented) {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <h3 id={titleId} className="admin-form-title" ref={headingRef} tabIndex={-1}>
        {title}
      </h3>
      {error && (
        <div className="banner banner-error admin-error" role="alert" ref={errorRef} tabIndex={-1}>
          {errorMessage(error)}
        </div>
      )}
      {children}
      <div className="admin-form-actions">
        <button
          type="submit"
          className="btn btn-primary"
          aria-busy={pending || undefined}
          aria-disabled={pending || undefined}
        >
          {submitLabel}
        </button>
        {cancellable && (
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** A labelled text field of an admin form. */
export function TextField({
  label,
  value,
  onChange,
  type = 'text',
  hint,
  autoComplete = 'off',
  ...rest
}: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly type?: 'text' | 'email' | 'password' | 'tel' | 'number' | 'url';
  readonly hint?: string;
  readonly autoComplete?: string;
  readonly maxLength?: number;
  readonly min?: number;
  readonly max?: number;
  readonly placeholder?: string;
  readonly inputMode?: 'numeric' | 'tel' | 'email' | 'text';
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="input"
        type={type}
        value={value}
        autoComplete={autoComplete}
        aria-describedby={hint ? hintId : undefined}
        onChange={(event) => onChange(event.target.value)}
        {...rest}
      />
      {hint && (
        <p id={hintId} className="admin-hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A labelled select of an admin form. */
export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly options: ReadonlyArray<{ readonly value: string; readonly label: string }>;
}) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="input"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A labelled checkbox of an admin form. */
export function CheckboxField({
  label,
  checked,
  onChange,
  hint,
}: {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly hint?: string;
}) {
  const id = useId();
  return (
    <div className="admin-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(event) => onChange(event.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="admin-hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A group of checkboxes (a fieldset with its legend) choosing some of `options`. */
export function CheckboxGroup<V extends string | number>({
  legend,
  options,
  chosen,
  onChange,
  empty,
}: {
  readonly legend: string;
  readonly options: ReadonlyArray<{ readonly value: V; readonly label: string }>;
  readonly chosen: readonly V[];
  readonly onChange: (chosen: V[]) => void;
  /** What the group says when there is nothing to choose. */
  readonly empty?: string;
}) {
  return (
    <fieldset className="admin-fieldset">
      <legend className="field-label">{legend}</legend>
      {options.length === 0 && empty ? <p className="muted admin-hint">{empty}</p> : null}
      <div className="admin-checks">
        {options.map((option) => (
          <CheckboxField
            key={option.value}
            label={option.label}
            checked={chosen.includes(option.value)}
            onChange={(checked) =>
              onChange(
                checked
                  ? [...chosen, option.value]
                  : chosen.filter((value) => value !== option.value),
              )
            }
          />
        ))}
      </div>
    </fieldset>
  );
}
