/**
 * The Add Lead panel (spec section 2), for a call that has no lead yet: First Name, Last Name,
 * Phone Number (the international phone input, defaulting to the user's `country_code`) and
 * Call. It posts `conferencelead`; the lead is dialled into the call, and once it answers the
 * lead card fills in. A lead that does not answer (or a refusal) shows the server's `error` in
 * the panel's banner, and the call goes on. Loaded on demand, with the phone input.
 */
import type { User } from '@leadline/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ConsoleCall } from '../console/call-rules';
import { errorMessage } from '../errors';
import { PhoneInput, type PhoneInputValidation } from '../phone-input/phone-input';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { LeadNameFields } from './lead-name-fields';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

/** Props of {@link AddLeadPanel}. */
export interface AddLeadPanelProps {
  readonly call: ConsoleCall;
  /** The signed-in agent (its `country_code` is the phone input's default country). */
  readonly user: User;
}

/** See the module comment. */
export function AddLeadPanel({ call, user }: AddLeadPanelProps) {
  const { api, controller, platform } = useServices();
  const firstNameRef = useFocusOnMount<HTMLInputElement>();
  const [fname, setFname] = useState('');
  const [lname, setLname] = useState('');
  const [phone, setPhone] = useState('');
  const [validation, setValidation] = useState<PhoneInputValidation | null>(null);
  const add = useMutation({
    mutationFn: () =>
      api.addLeadToCall({
        call_id: call.call.id,
        fname: fname.trim(),
        lname: lname.trim(),
        // Anything the input could not read goes as typed: the server says what is wrong.
        phone_number: validation?.e164 ?? phone.trim(),
      }),
    onSuccess: (lead) => controller.leadAdded(lead),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!add.isPending) add.mutate();
  };

  return (
    <section className="add-lead" aria-label="Add Lead">
      <ErrorBanner message={add.error ? errorMessage(add.error) : null} />
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
          onChange={(text, result) => {
            setPhone(text);
            setValidation(result);
          }}
        />
        <button
          type="submit"
          className="btn btn-accept btn-large btn-block"
          disabled={add.isPending}
          aria-busy={add.isPending || undefined}
        >
          <span className="btn-label">Call</span>
        </button>
      </form>
    </section>
  );
}
