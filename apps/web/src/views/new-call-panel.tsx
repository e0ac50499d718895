/**
 * The New Call panel (spec section 2), loaded on demand with the phone input and its country
 * list so the login page does not carry them: First Name, Last Name, Phone Number (the
 * international phone input, defaulting to the user's `country_code`), a Caller ID selector
 * when the account has caller numbers, and Call Now, disabled while the call is being placed.
 * The server's refusal shows in the panel's banner.
 */
import type { CallerNumber, User } from '@leadline/contracts';
import { toE164 } from '@leadline/contracts/phone';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { callerIdsQuery } from '../api/queries';
import type { PhoneStatus } from '../console/console-controller';
import { callerIdLabel, type PlaceCallRequest } from '../console/outbound-call';
import { errorMessage } from '../errors';
import { PhoneInput, type PhoneInputValidation } from '../phone-input/phone-input';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { LeadNameFields } from './lead-name-fields';
import { PhoneStatusLine } from './phone-status-line';
import { useFocusOnMount } from '../ui/use-focus-on-mount';
import { PanelHead, closeOnEscape } from '../ui/panel-head';

/** Props of {@link NewCallPanel}. */
export interface NewCallPanelProps {
  /** The signed-in agent (its `country_code` is the phone input's default country). */
  readonly user: User;
  /** The panel element's id (the Call button controls it). */
  readonly id: string;
  /** The softphone's status (a call can be placed once it is ready). */
  readonly phone: PhoneStatus;
  /** A number to start with (from a `?url=tel:/…` link). */
  readonly initialPhone?: string;
  /** Closes the panel (Close button, Escape). */
  readonly onClose: () => void;
}

/** What the hint under the phone field says about a number that cannot be dialled. */
function phoneHint(validation: PhoneInputValidation): string | null {
  switch (validation.error) {
    case 'NOT_A_NUMBER':
      return 'Enter the phone number in digits.';
    case 'TOO_SHORT':
      return 'The number is too short.';
    case 'TOO_LONG':
      return 'The number is too long.';
    case 'INVALID_COUNTRY':
      return 'The country calling code is not known.';
    case null:
      // A possible number (such as the sandbox's +1 555 numbers) is dialled as it is.
      return validation.possible
        ? null
        : `The number has too few or too many digits for ${validation.country.name}.`;
  }
}

/** See the module comment. */
export function NewCallPanel({
  user,
  id,
  phone: phoneStatus,
  initialPhone = '',
  onClose,
}: NewCallPanelProps) {
  const { api, controller, platform } = useServices();
  const titleId = useId();
  const firstNameRef = useFocusOnMount<HTMLInputElement>();
  const callerIds = useQuery(callerIdsQuery(api));
  const [fname, setFname] = useState('');
  const [lname, setLname] = useState('');
  const [phone, setPhone] = useState(initialPhone);
  const [validation, setValidation] = useState<PhoneInputValidation | null>(null);
  const [callerId, setCallerId] = useState('');
  const place = useMutation({
    mutationFn: (request: PlaceCallRequest) => controller.placeCall(request),
  });

  const numbers: readonly CallerNumber[] = callerIds.data ?? [];

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (place.isPending) return;
    const chosen = numbers.find((number) => String(number.id) === callerId);
    place.mutate({
      fname,
      lname,
      // Anything the input could not read goes as typed: the server says what is wrong.
      phoneNumber: validation?.e164 ?? phone.trim(),
      callerId: chosen
        ? {
            number: chosen,
            e164:
              toE164(chosen.phone_number_formatted, user.country_code) ??
              chosen.phone_number_formatted,
          }
        : null,
    });
  };

  return (
    <section
      id={id}
      className="panel new-call"
      aria-labelledby={titleId}
      // The country list handles its own Escape first (and marks it handled).
      onKeyDown={closeOnEscape(onClose)}
    >
      <PanelHead titleId={titleId} title="New Call" onClose={onClose} focusTitle={false} />
      <ErrorBanner message={place.error ? errorMessage(place.error) : null} />
      <form className="form" onSubmit={onSubmit} noValidate>
        <LeadNameFields
          fname={fname}
          lname={lname}
          onFname={setFname}
          onLname={setLname}
          firstRef={firstNameRef}
        />
        <PhoneInput
          label="Phone Number"
          name="phone_number"
          value={phone}
          defaultCountry={user.country_code}
          search
          timers={platform.timers}
          invalidMessage={phoneHint}
          onChange={(text, result) => {
            setPhone(text);
            setValidation(result);
          }}
        />
        {numbers.length > 0 && (
          <label className="field">
            <span className="field-label">Caller ID</span>
            <select
              className="input select"
              name="caller_id"
              value={callerId}
              onChange={(event) => setCallerId(event.target.value)}
            >
              <option value="">Default</option>
              {numbers.map((number) => (
                <option key={number.id} value={String(number.id)}>
                  {callerIdLabel(number)}
                </option>
              ))}
            </select>
          </label>
        )}
        <button
          type="submit"
          className="btn btn-accept btn-large btn-block"
          disabled={place.isPending}
          aria-busy={place.isPending || undefined}
        >
          <span className="btn-label">Call Now</span>
        </button>
      </form>
      <PhoneStatusLine phone={phoneStatus} />
    </section>
  );
}
