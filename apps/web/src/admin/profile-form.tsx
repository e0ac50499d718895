/**
 * The create / edit form of a profile: name, whisper text (Tags & Stages after a contacted
 * call), auto answer, ring timeout (optional), team (optional) and its tags in order. Opening
 * hours are not edited here: a profile's hours are kept as they are (the API takes them).
 */
import type { AdminProfile, AdminTeam } from '@leadline/contracts';
import { useRef, useState } from 'react';
import { AdminForm, CheckboxField, SelectField, TextField } from './admin-form';
import { TagEditor, type EditedTag } from './tag-editor';

/** The body the form sends. */
export interface ProfileFormValues {
  name: string;
  is_deal_whispertext: boolean;
  auto_answer: boolean;
  ring_timeout_seconds: number | null;
  team_id: number | null;
  tags: Array<{ key: string; name: string; color: string }>;
}

/**
 * The ring timeout as typed: empty is none (the server's default); a whole number of seconds is
 * sent as a number; anything else is sent as typed, for the server's sentence.
 */
function ringTimeout(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : (trimmed as unknown as number);
}

/** See the module comment. */
export function ProfileForm({
  profile,
  teams,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  readonly profile: AdminProfile | null;
  readonly teams: readonly AdminTeam[];
  readonly error: Error | null;
  readonly pending: boolean;
  readonly onSubmit: (values: ProfileFormValues) => void;
  readonly onCancel: () => void;
}) {
  const uids = useRef(0);
  const newUid = () => {
    uids.current += 1;
    return `tag-row-${uids.current}`;
  };
  const [name, setName] = useState(profile?.name ?? '');
  const [whisper, setWhisper] = useState(profile?.is_deal_whispertext ?? false);
  const [autoAnswer, setAutoAnswer] = useState(profile?.auto_answer ?? true);
  const [timeout, setTimeoutText] = useState(
    profile?.ring_timeout_seconds == null ? '' : String(profile.ring_timeout_seconds),
  );
  const [teamId, setTeamId] = useState(profile?.team_id == null ? '' : String(profile.team_id));
  const [tags, setTags] = useState<EditedTag[]>(() =>
    (profile?.tags ?? []).map((tag, index) => ({
      ...tag,
      uid: `saved-tag-${index}`,
      keyFollowsName: false,
    })),
  );

  const submit = () =>
    onSubmit({
      name,
      is_deal_whispertext: whisper,
      auto_answer: autoAnswer,
      ring_timeout_seconds: ringTimeout(timeout),
      team_id: teamId === '' ? null : Number(teamId),
      tags: tags.map(({ key, name: tagName, color }) => ({
        key: key.trim(),
        name: tagName.trim(),
        color: color.trim(),
      })),
    });

  return (
    <AdminForm
      title={profile ? `Edit ${profile.name}` : 'New profile'}
      submitLabel={profile ? 'Save' : 'Create profile'}
      error={error}
      pending={pending}
      onSubmit={submit}
      onCancel={onCancel}
    >
      <div className="admin-grid">
        <TextField label="Name" value={name} onChange={setName} maxLength={100} />
        <SelectField
          label="Team"
          value={teamId}
          onChange={setTeamId}
          options={[
            { value: '', label: 'No team (any agent)' },
            ...teams.map((team) => ({ value: String(team.id), label: team.name })),
          ]}
        />
        <TextField
          label="Ring timeout (seconds)"
          type="number"
          inputMode="numeric"
          min={5}
          max={120}
          value={timeout}
          onChange={setTimeoutText}
          hint="Optional: 5 to 120 seconds before the next agent is rung."
        />
      </div>
      <CheckboxField
        label="Whisper text and Tags & Stages after a contacted call"
        checked={whisper}
        onChange={setWhisper}
      />
      <CheckboxField label="Auto answer" checked={autoAnswer} onChange={setAutoAnswer} />
      <TagEditor tags={tags} onChange={setTags} newUid={newUid} />
    </AdminForm>
  );
}
