/**
 * The create / edit form of a user: full name, e-mail, role, the spec's six permissions, teams,
 * country code, phone number, and a password (sent only when typed: left empty on create, the
 * user signs in with single sign-on only).
 */
import type { AdminTeam, AdminUser } from '@leadline/contracts';
import {
  PASSWORD_MIN_LENGTH,
  PERMISSION_STRINGS,
  USER_ROLES,
  type PermissionString,
  type UserRole,
} from '@leadline/contracts/admin-constants';
import { useState } from 'react';
import { AdminForm, CheckboxGroup, SelectField, TextField } from './admin-form';

/** The body the form sends (create and edit alike; the server keeps what is not sent). */
export interface UserFormValues {
  full_name: string;
  email: string;
  role: UserRole;
  permissions: PermissionString[];
  team_ids: number[];
  country_code?: string;
  phone_number?: string | null;
  password?: string;
}

/** What each permission lets a user do, for its checkbox. */
export const PERMISSION_LABELS: Record<PermissionString, string> = {
  'app-sms': 'Send SMS follow-ups (app-sms)',
  'app-retry': 'Retry calls (app-retry)',
  'app-autoaccept': 'Turn Auto Accept on (app-autoaccept)',
  listen: 'Listen to calls (listen)',
  whisper: 'Whisper to agents (whisper)',
  barge: 'Barge into calls (barge)',
};

const ROLE_OPTIONS = USER_ROLES.map((role) => ({
  value: role,
  label: { admin: 'Admin', supervisor: 'Supervisor', agent: 'Agent' }[role],
}));

/** See the module comment. */
export function UserForm({
  user,
  teams,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  readonly user: AdminUser | null;
  readonly teams: readonly AdminTeam[];
  readonly error: Error | null;
  readonly pending: boolean;
  readonly onSubmit: (values: UserFormValues) => void;
  readonly onCancel: () => void;
}) {
  const [fullName, setFullName] = useState(user?.full_name ?? '');
  const [email, setEmail] = useState(user?.email ?? '');
  const [role, setRole] = useState<UserRole>(user?.role ?? 'agent');
  const [permissions, setPermissions] = useState<PermissionString[]>(
    (user?.permissions ?? []).filter((p): p is PermissionString =>
      (PERMISSION_STRINGS as readonly string[]).includes(p),
    ),
  );
  const [teamIds, setTeamIds] = useState<number[]>(user?.team_ids ?? []);
  const [countryCode, setCountryCode] = useState(user?.country_code ?? '');
  const [phone, setPhone] = useState(user?.phone_number ?? '');
  const [password, setPassword] = useState('');

  const submit = () => {
    const values: UserFormValues = {
      full_name: fullName,
      email,
      role,
      permissions,
      team_ids: teamIds,
    };
    if (countryCode.trim() !== '') values.country_code = countryCode.trim();
    if (phone.trim() !== '') values.phone_number = phone.trim();
    else if (user?.phone_number) values.phone_number = null;
    if (password !== '') values.password = password;
    onSubmit(values);
  };

  return (
    <AdminForm
      title={user ? `Edit ${user.full_name}` : 'New user'}
      submitLabel={user ? 'Save' : 'Create user'}
      error={error}
      pending={pending}
      onSubmit={submit}
      onCancel={onCancel}
    >
      <div className="admin-grid">
        <TextField
          label="Full name"
          value={fullName}
          onChange={setFullName}
          maxLength={100}
          autoComplete="off"
        />
        <TextField label="E-mail" type="email" value={email} onChange={setEmail} maxLength={254} />
        <SelectField
          label="Role"
          value={role}
          onChange={(value) => setRole(value as UserRole)}
          options={ROLE_OPTIONS}
        />
        <TextField
          label="Country code"
          value={countryCode}
          onChange={setCountryCode}
          maxLength={2}
          placeholder="US"
          hint="Two letters (ISO 3166-1): the country of the numbers they dial."
        />
        <TextField
          label="Phone number"
          type="tel"
          value={phone}
          onChange={setPhone}
          inputMode="tel"
          placeholder="+15550100199"
          hint="Optional, with its country code (E.164)."
        />
        <TextField
          label={user ? 'New password' : 'Password'}
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          hint={
            user
              ? `Leave empty to keep the password. At least ${PASSWORD_MIN_LENGTH} characters.`
              : `At least ${PASSWORD_MIN_LENGTH} characters. Leave empty for single sign-on only.`
          }
        />
      </div>
      <CheckboxGroup
        legend="Permissions"
        options={PERMISSION_STRINGS.map((value) => ({ value, label: PERMISSION_LABELS[value] }))}
        chosen={permissions}
        onChange={setPermissions}
      />
      <CheckboxGroup
        legend="Teams"
        options={teams.map((team) => ({ value: team.id, label: team.name }))}
        chosen={teamIds}
        onChange={setTeamIds}
        empty="No teams yet: make them on the Teams screen."
      />
    </AdminForm>
  );
}
