/**
 * Admin › Profiles: the account's profiles (what a lead's call does: its team, ringing, its
 * Tags & Stages); create and edit with the tag editor.
 */
import type { AdminProfile } from '@leadline/contracts';
import { readableTextOn, tagBackground } from '@leadline/contracts/lib';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from './admin-context';
import { refreshAfterWrite, useEvery } from './admin-queries';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ProfileForm, type ProfileFormValues } from './profile-form';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';
import { useFormSlot } from './use-form-slot';

/** See the module comment. */
export function ProfilesScreen() {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const list = useAdminList('profiles', (query) => admin.listProfiles(query));
  const teams = useEvery('teams', (query) => admin.listTeams(query));
  const form = useFormSlot<AdminProfile>();
  const save = useMutation({
    mutationFn: ({ id, values }: { id: number | null; values: ProfileFormValues }) =>
      id === null ? admin.createProfile(values) : admin.updateProfile(id, values),
    onSuccess: (profile, { id }) => {
      refreshAfterWrite(client, 'profiles');
      say(id === null ? `Profile ${profile.name} created.` : `Profile ${profile.name} saved.`);
      form.close();
    },
  });
  const editing = form.slot.kind === 'edit' ? form.slot.row : null;
  const teamNames = new Map(teams.rows.map((team) => [team.id, team.name]));

  return (
    <ScreenFrame
      title="Profiles"
      createLabel="New profile"
      onCreate={(event) => {
        save.reset();
        form.create(event.currentTarget);
      }}
    >
      <SearchForm noun="profiles" list={list} />
      {form.slot.kind !== 'closed' && (
        <ProfileForm
          key={editing?.id ?? 'new'}
          profile={editing}
          teams={teams.rows}
          error={save.error}
          pending={save.isPending}
          onSubmit={(values) => save.mutate({ id: editing?.id ?? null, values })}
          onCancel={form.close}
        />
      )}
      <ListBody list={list} caption="Profiles" empty="No profiles yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Team</th>
                <th scope="col">Answering</th>
                <th scope="col">Tags</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((profile) => (
                <tr key={profile.id}>
                  <th scope="row" data-label="Name">
                    {profile.name}
                  </th>
                  <td data-label="Team">
                    {profile.team_id === null
                      ? 'Any agent'
                      : (teamNames.get(profile.team_id) ?? `#${profile.team_id}`)}
                  </td>
                  <td data-label="Answering">
                    {[
                      profile.auto_answer ? 'Auto answer' : 'Agent answers',
                      profile.ring_timeout_seconds === null
                        ? null
                        : `rings ${profile.ring_timeout_seconds} s`,
                      profile.is_deal_whispertext ? 'whisper text' : null,
                    ]
                      .filter(Boolean)
                      .join(', ')}
                  </td>
                  <td data-label="Tags">
                    {profile.tags.length === 0 ? (
                      '—'
                    ) : (
                      <ul className="tag-chips" aria-label={`Tags of ${profile.name}`}>
                        {profile.tags.map((tag) => {
                          const background = tagBackground(tag.color);
                          return (
                            <li
                              key={tag.key}
                              className="tag-chip"
                              style={
                                background
                                  ? {
                                      backgroundColor: background,
                                      color: readableTextOn(background),
                                    }
                                  : undefined
                              }
                            >
                              {tag.name}
                            </li>
                          );
                        })}
                      </ul>
                    )}
                  </td>
                  <td className="admin-row-actions">
                    <button
                      type="button"
                      aria-label={`Edit ${profile.name}`}
                      className="btn btn-secondary btn-compact"
                      onClick={(event) => {
                        save.reset();
                        form.edit(profile, event.currentTarget);
                      }}
                    >
                      Edit
                    </button>
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
