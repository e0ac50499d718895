/**
 * Admin › API keys: the keys lead sources post with (`POST /api/v1/leads`), each with the
 * profile its leads get; create (the key is shown this once, with Copy, and never again: only
 * its hash is kept) and delete (asked first).
 */
import type { AdminApiKey, AdminApiKeyCreated } from '@leadline/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { useFocusOnMount } from '../ui/use-focus-on-mount';
import { AdminForm, SelectField, TextField } from './admin-form';
import { useAdmin } from './admin-context';
import { refreshAfterWrite, useEvery } from './admin-queries';
import { ConfirmButton } from './confirm-button';
import { formatWhen } from './format-when';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';
import { useFormSlot } from './use-form-slot';

/** The warning beside a new key. */
export const KEY_ONCE_TEXT =
  'Copy the key now: it is not shown again. Leadline keeps only a hash of it.';

/** See the module comment. */
export function ApiKeysScreen() {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const list = useAdminList('api-keys', (query) => admin.listApiKeys(query));
  const profiles = useEvery('profiles', (query) => admin.listProfiles(query));
  const form = useFormSlot<never>();
  const [created, setCreated] = useState<AdminApiKeyCreated['data'] | null>(null);
  const create = useMutation({
    mutationFn: (values: { name: string; profile_id: number | null }) => admin.createApiKey(values),
    onSuccess: (key) => {
      refreshAfterWrite(client, 'api-keys');
      say(`API key ${key.name} created.`);
      form.close();
      setCreated(key);
    },
  });
  const remove = useMutation({
    mutationFn: (key: AdminApiKey) => admin.deleteApiKey(key.id),
    onSuccess: (_answer, key) => {
      titleRef.current?.focus();
      refreshAfterWrite(client, 'api-keys');
      say(`API key ${key.name} deleted: posts with it are refused from now on.`);
    },
  });
  const profileNames = new Map(profiles.rows.map((profile) => [profile.id, profile.name]));

  return (
    <ScreenFrame
      titleRef={titleRef}
      title="API keys"
      createLabel="New API key"
      onCreate={(event) => {
        create.reset();
        setCreated(null);
        form.create(event.currentTarget);
      }}
      actionError={remove.error}
    >
      <SearchForm noun="API keys" list={list} />
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      {form.slot.kind !== 'closed' && (
        <KeyForm
          profiles={profiles.rows}
          error={create.error}
          pending={create.isPending}
          onSubmit={(values) => create.mutate(values)}
          onCancel={form.close}
        />
      )}
      <ListBody list={list} caption="API keys" empty="No API keys yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Profile</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((key) => (
                <tr key={key.id}>
                  <th scope="row" data-label="Name">
                    {key.name}
                  </th>
                  <td data-label="Starts with">{key.prefix ? <code>{key.prefix}…</code> : '—'}</td>
                  <td data-label="Profile">
                    {key.profile_id === null
                      ? 'Account default'
                      : (profileNames.get(key.profile_id) ?? `#${key.profile_id}`)}
                  </td>
                  <td data-label="Created">{formatWhen(key.created_at)}</td>
                  <td className="admin-row-actions">
                    <ConfirmButton
                      label="Delete"
                      subject={key.name}
                      question={`Delete the key ${key.name}? Posts with it will be refused.`}
                      confirmLabel="Yes, delete"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(key)}
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

/** The new key, this once: read-only, selected, with Copy and the warning. */
function NewKey({
  created,
  onDone,
}: {
  readonly created: AdminApiKeyCreated['data'];
  readonly onDone: () => void;
}) {
  const { platform } = useServices();
  const id = useId();
  const headingRef = useFocusOnMount<HTMLHeadingElement>(true);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await platform.copyText(created.key);
      setCopied('Copied to the clipboard.');
    } catch (error) {
      setCopied(`Could not copy: ${errorMessage(error)} Select the key and copy it.`);
    }
  };
  return (
    <section className="panel admin-new-key" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="admin-form-title" ref={headingRef} tabIndex={-1}>
        New key: {created.name}
      </h3>
      <p className="banner banner-warning" id={`${id}-warning`}>
        {KEY_ONCE_TEXT}
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${id}-key`}>
          API key
        </label>
        <div className="admin-key-row">
          <input
            id={`${id}-key`}
            className="input admin-key"
            readOnly
            value={created.key}
            aria-describedby={`${id}-warning`}
            onFocus={(event) => event.target.select()}
          />
          <button type="button" className="btn btn-primary" onClick={() => void copy()}>
            Copy
          </button>
        </div>
      </div>
      <p role="status" className="admin-hint">
        {copied}
      </p>
      <button type="button" className="btn btn-secondary" onClick={onDone}>
        Done: I have copied it
      </button>
    </section>
  );
}

function KeyForm({
  profiles,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  readonly profiles: ReadonlyArray<{ readonly id: number; readonly name: string }>;
  readonly error: Error | null;
  readonly pending: boolean;
  readonly onSubmit: (values: { name: string; profile_id: number | null }) => void;
  readonly onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [profileId, setProfileId] = useState('');
  return (
    <AdminForm
      title="New API key"
      submitLabel="Create key"
      error={error}
      pending={pending}
      onSubmit={() => onSubmit({ name, profile_id: profileId === '' ? null : Number(profileId) })}
      onCancel={onCancel}
    >
      <div className="admin-grid">
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          maxLength={100}
          hint="Where the leads come from, such as 'Website form'."
        />
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
