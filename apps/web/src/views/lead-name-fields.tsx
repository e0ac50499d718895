import type { Ref } from 'react';

/** The longest first or last name the server takes (the contracts' limit). */
const NAME_MAX_LENGTH = 100;

/** Props of {@link LeadNameFields}. */
export interface LeadNameFieldsProps {
  readonly fname: string;
  readonly lname: string;
  readonly onFname: (value: string) => void;
  readonly onLname: (value: string) => void;
  /** The First Name input (a form focuses it when it opens). */
  readonly firstRef?: Ref<HTMLInputElement>;
}

/** A lead's First Name and Last Name, side by side (one above the other on a phone). */
export function LeadNameFields({ fname, lname, onFname, onLname, firstRef }: LeadNameFieldsProps) {
  return (
    <div className="field-row">
      <label className="field">
        <span className="field-label">First Name</span>
        <input
          ref={firstRef}
          className="input"
          name="fname"
          autoComplete="off"
          maxLength={NAME_MAX_LENGTH}
          value={fname}
          onChange={(event) => onFname(event.target.value)}
        />
      </label>
      <label className="field">
        <span className="field-label">Last Name</span>
        <input
          className="input"
          name="lname"
          autoComplete="off"
          maxLength={NAME_MAX_LENGTH}
          value={lname}
          onChange={(event) => onLname(event.target.value)}
        />
      </label>
    </div>
  );
}
