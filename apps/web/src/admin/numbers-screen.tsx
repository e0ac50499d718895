/**
 * Admin › Numbers: the account's caller numbers (what leads see calling, and which profile an
 * inbound call to it takes); add, edit, remove (asked first). With Twilio, only the numbers the
 * operator assigned to the account (and the Twilio account holds) can be added: the form offers
 * them in a select (`GET …/caller-numbers/available` with `provider_checked`); otherwise any
 * E.164 number.
 */
import type { AdminAvailableNumbers, AdminCallerNumber, AdminProfile } from '@leadline/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { AdminForm, SelectField, TextField } from './admin-form';
import { useAdmin } from './admin-context';
import { adminKey, refreshAfterWrite, useEvery } from './admin-queries';
import { ConfirmButton } from './confirm-button';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';
import { useFormSlot } from './use-form-slot';

/** The body the form sends. */
export interface NumberFormValues {
  name: string;
  phone_number: string;
  profile_id: number | null;
}

/** See the module comment. */
export function NumbersScreen() {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const list = useAdminList('caller-numbers', (query) => admin.listCallerNumbers(query));
  const profiles = useEvery('profiles', (query) => admin.listProfiles(query));
  const form = useFormSlot<AdminCallerNumber>();
  const available = useQuery({
    queryKey: [...adminKey('caller-numbers'), 'available'],
    queryFn: () => admin.availableNumbers(),
    enabled: form.slot.kind !== 'closed',
  });
  const save = useMutation({
    mutationFn: ({ id, values }: { id: number | null; values: NumberFormValues }) =>
      id === null ? admin.createCallerNumber(values) : admin.updateCallerNumber(id, values),
    onSuccess: (number, { id }) => {
      refreshAfterWrite(client, 'caller-numbers');
      say(
        id === null
          ? `${number.name} (${number.phone_number_formatted}) added.`
          : `${number.name} saved.`,
      );
      form.close();
    },
  });
  const remove = useMutation({
    mutationFn: (number: AdminCallerNumber) => admin.deleteCallerNumber(number.id),
    onSuccess: (_answer, number) => {
      titleRef.current?.focus();
      refreshAfterWrite(client, 'caller-numbers');
      say(`${number.name} removed.`);
    },
  });
  const editing = form.slot.kind === 'edit' ? form.slot.row : null;
  const profileNames = new Map(profiles.rows.map((profile) => [profile.id, profile.name]));

  return (
    <ScreenFrame
      titleRef={titleRef}
      title="Caller numbers"
      createLabel="New number"
      onCreate={(event) => {
        save.reset();
        form.create(event.currentTarget);
      }}
      actionError={remove.error}
    >
      <SearchForm noun="numbers" list={list} />
      {form.slot.kind !== 'closed' && (
        <NumberForm
          key={editing?.id ?? 'new'}
          number={editing}
          profiles={profiles.rows}
          available={available.data ?? null}
          error={save.error}
          pending={save.isPending}
          onSubmit={(values) => save.mutate({ id: editing?.id ?? null, values })}
          onCancel={form.close}
        />
      )}
      <ListBody list={list} caption="Caller numbers" empty="No caller numbers yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
                <th scope="col">Profile</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((number) => (
                <tr key={number.id}>
                  <th scope="row" data-label="Name">
                    {number.name}
                  </th>
                  <td data-label="Number">{number.phone_number_formatted}</td>
                  <td data-label="Profile">
                    {number.profile_id === null
                      ? 'Account default'
                      : (profileNames.get(number.profile_id) ?? `#${number.profile_id}`)}
                  </td>
                  <td className="admin-row-actions">
                    <button
                      type="button"
                      aria-label={`Edit ${number.name}`}
                      className="btn btn-secondary btn-compact"
                      onClick={(event) => {
                        save.reset();
                        form.edit(number, event.currentTarget);
                      }}
                    >
                      Edit
                    </button>
                    <ConfirmButton
                      label="Remove"
                      subject={number.name}
                      question={`Remove ${number.name} (${number.phone_number_formatted})?`}
                      confirmLabel="Yes, remove"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(number)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </>
        )}
      </ListBody>
      <Pager list={list} />
    </ScreenFrame>
  );
}

function NumberForm({
  number,
  profiles,
  available,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  readonly number: AdminCallerNumber | null;
  readonly profiles: readonly AdminProfile[];
  readonly available: AdminAvailableNumbers | null;
  readonly error: Error | null;
  readonly pending: boolean;
  readonly onSubmit: (values: NumberFormValues) => void;
  readonly onCancel: () => void;
}) {
  const [name, setName] = useState(number?.name ?? '');
  const [phone, setPhone] = useState(number?.phone_number ?? '');
  const [profileId, setProfileId] = useState(
    number?.profile_id == null ? '' : String(number.profile_id),
  );
  // The provider's numbers not yet in use (and this one's own, when editing).
  const offered = available?.provider_checked
    ? available.data.filter((row) => !row.in_use || row.phone_number === number?.phone_number)
    : null;
  return (
    <AdminForm
      title={number ? `Edit ${number.name}` : 'New caller number'}
      submitLabel={number ? 'Save' : 'Add number'}
      error={error}
      pending={pending}
      onSubmit={() =>
        onSubmit({
          name,
          phone_number: phone.trim(),
          profile_id: profileId === '' ? null : Number(profileId),
        })
      }
      onCancel={onCancel}
    >
      <div className="admin-grid">
        <TextField label="Name" value={name} onChange={setName} maxLength={100} />
        {offered ? (
          <SelectField
            label="Phone number"
            value={phone}
            onChange={setPhone}
            options={[
              {
                value: '',
                label: offered.length === 0 ? 'No free numbers on the account' : 'Choose a number',
              },
              ...offered.map((row) => ({
                value: row.phone_number,
                label: row.friendly_name
                  ? `${row.phone_number_formatted} (${row.friendly_name})`
                  : row.phone_number_formatted,
              })),
            ]}
          />
        ) : (
          <TextField
            label="Phone number"
            type="tel"
            inputMode="tel"
            value={phone}
            onChange={setPhone}
            placeholder="+15550100100"
            hint="With its country code (E.164), such as +15550100100."
          />
        )}
        <SelectField
          label="Profile"
          value={profileId}
          onChange={setProfileId}
          options={[
            { value: '', label: 'Account default' },
            ...profiles.map((profile) => ({ value: String(profile.id), label: profile.name })),
          ]}
        />
      </div>
    </AdminForm>
  );
}
