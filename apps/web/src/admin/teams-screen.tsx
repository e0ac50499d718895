/**
 * Admin › Teams: the account's teams with their member counts; create, rename, delete (asked
 * first). Members are chosen on the Users screen.
 */
import type { AdminTeam } from '@leadline/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { AdminForm, TextField } from './admin-form';
import { useAdmin } from './admin-context';
import { refreshAfterWrite } from './admin-queries';
import { ConfirmButton } from './confirm-button';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';
import { useFormSlot } from './use-form-slot';

/** See the module comment. */
export function TeamsScreen() {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const list = useAdminList('teams', (query) => admin.listTeams(query));
  const form = useFormSlot<AdminTeam>();
  const save = useMutation({
    mutationFn: ({ id, name }: { id: number | null; name: string }) =>
      id === null ? admin.createTeam({ name }) : admin.updateTeam(id, { name }),
    onSuccess: (team, { id }) => {
      refreshAfterWrite(client, 'teams', 'users', 'profiles');
      say(id === null ? `Team ${team.name} created.` : `Team ${team.name} saved.`);
      form.close();
    },
  });
  const remove = useMutation({
    mutationFn: (team: AdminTeam) => admin.deleteTeam(team.id),
    onSuccess: (_answer, team) => {
      titleRef.current?.focus();
      refreshAfterWrite(client, 'teams', 'users', 'profiles');
      say(`Team ${team.name} deleted.`);
    },
  });
  const editing = form.slot.kind === 'edit' ? form.slot.row : null;

  return (
    <ScreenFrame
      titleRef={titleRef}
      title="Teams"
      createLabel="New team"
      onCreate={(event) => {
        save.reset();
        form.create(event.currentTarget);
      }}
      actionError={remove.error}
    >
      <SearchForm noun="teams" list={list} />
      {form.slot.kind !== 'closed' && (
        <TeamForm
          key={editing?.id ?? 'new'}
          team={editing}
          error={save.error}
          pending={save.isPending}
          onSubmit={(name) => save.mutate({ id: editing?.id ?? null, name })}
          onCancel={form.close}
        />
      )}
      <ListBody list={list} caption="Teams" empty="No teams yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((team) => (
                <tr key={team.id}>
                  <th scope="row" data-label="Name">
                    {team.name}
                  </th>
                  <td data-label="Members">{team.member_count}</td>
                  <td className="admin-row-actions">
                    <button
                      type="button"
                      aria-label={`Rename ${team.name}`}
                      className="btn btn-secondary btn-compact"
                      onClick={(event) => {
                        save.reset();
                        form.edit(team, event.currentTarget);
                      }}
                    >
                      Rename
                    </button>
                    <ConfirmButton
                      label="Delete"
                      subject={team.name}
                      question={`Delete the team ${team.name}?`}
                      confirmLabel="Yes, delete"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(team)}
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

function TeamForm({
  team,
  error,
  pending,
  onSubmit,
  onCancel,
}: {
  readonly team: AdminTeam | null;
  readonly error: Error | null;
  readonly pending: boolean;
  readonly onSubmit: (name: string) => void;
  readonly onCancel: () => void;
}) {
  const [name, setName] = useState(team?.name ?? '');
  return (
    <AdminForm
      title={team ? `Rename ${team.name}` : 'New team'}
      submitLabel={team ? 'Save' : 'Create team'}
      error={error}
      pending={pending}
      onSubmit={() => onSubmit(name)}
      onCancel={onCancel}
    >
      <TextField label="Name" value={name} onChange={setName} maxLength={100} />
    </AdminForm>
  );
}
