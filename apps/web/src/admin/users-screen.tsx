/**
 * Admin › Users: the account's people (name, e-mail, role, teams, active or not); create and
 * edit (the same form), and Deactivate / Reactivate, asked first (a deactivated user's sessions
 * end at once and they take no calls; their history stays).
 */
import type { AdminTeam, AdminUser } from '@leadline/contracts';
import { useRef } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from './admin-context';
import { refreshAfterWrite, useEvery } from './admin-queries';
import { ConfirmButton } from './confirm-button';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';
import { useFormSlot } from './use-form-slot';
import { UserForm, type UserFormValues } from './user-form';

/** How a role is written in the list. */
export const ROLE_LABELS = { admin: 'Admin', supervisor: 'Supervisor', agent: 'Agent' } as const;

/** See the module comment. */
export function UsersScreen() {
  const { admin, say } = useAdmin();
  const client = useQueryClient();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const list = useAdminList('users', (query) => admin.listUsers(query));
  const teams = useEvery('teams', (query) => admin.listTeams(query));
  const form = useFormSlot<AdminUser>();
  const save = useMutation({
    mutationFn: ({ id, values }: { id: number | null; values: UserFormValues }) =>
      id === null ? admin.createUser(values) : admin.updateUser(id, values),
    onSuccess: (user, { id }) => {
      refreshAfterWrite(client, 'users', 'teams');
      say(id === null ? `${user.full_name} added.` : `${user.full_name} saved.`);
      form.close();
    },
  });
  const activate = useMutation({
    mutationFn: ({ user, active }: { user: AdminUser; active: boolean }) =>
      admin.updateUser(user.id, { active }),
    onSuccess: (user) => {
      titleRef.current?.focus();
      refreshAfterWrite(client, 'users', 'teams');
      say(
        user.active
          ? `${user.full_name} is active again.`
          : `${user.full_name} is deactivated: their sessions have ended.`,
      );
    },
  });
  const editing = form.slot.kind === 'edit' ? form.slot.row : null;
  const teamNames = new Map(teams.rows.map((team: AdminTeam) => [team.id, team.name]));

  return (
    <ScreenFrame
      titleRef={titleRef}
      title="Users"
      createLabel="New user"
      onCreate={(event) => {
        save.reset();
        form.create(event.currentTarget);
      }}
      actionError={activate.error}
    >
      <SearchForm noun="users" list={list} />
      {form.slot.kind !== 'closed' && (
        <UserForm
          key={editing?.id ?? 'new'}
          user={editing}
          teams={teams.rows}
          error={save.error}
          pending={save.isPending}
          onSubmit={(values) => save.mutate({ id: editing?.id ?? null, values })}
          onCancel={form.close}
        />
      )}
      <ListBody list={list} caption="Users" empty="No users yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Teams</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((user) => (
                <tr key={user.id} className={user.active ? undefined : 'is-inactive'}>
                  <th scope="row" data-label="Name">
                    {user.full_name}
                  </th>
                  <td data-label="E-mail" className="admin-cell-wrap">
                    {user.email}
                  </td>
                  <td data-label="Role">{ROLE_LABELS[user.role]}</td>
                  <td data-label="Teams">
                    {user.team_ids.map((id) => teamNames.get(id) ?? `#${id}`).join(', ') || '—'}
                  </td>
                  <td data-label="Status">{user.active ? 'Active' : 'Deactivated'}</td>
                  <td className="admin-row-actions">
                    <button
                      type="button"
                      aria-label={`Edit ${user.full_name}`}
                      className="btn btn-secondary btn-compact"
                      onClick={(event) => {
                        save.reset();
                        form.edit(user, event.currentTarget);
                      }}
                    >
                      Edit
                    </button>
                    {user.active ? (
                      <ConfirmButton
                        label="Deactivate"
                        subject={user.full_name}
                        question={`Deactivate ${user.full_name}? Their sessions end now.`}
                        confirmLabel="Yes, deactivate"
                        pending={activate.isPending}
                        onConfirm={() => activate.mutate({ user, active: false })}
                      />
                    ) : (
                      <ConfirmButton
                        label="Reactivate"
                        subject={user.full_name}
                        question={`Reactivate ${user.full_name}?`}
                        confirmLabel="Yes, reactivate"
                        danger={false}
                        pending={activate.isPending}
                        onConfirm={() => activate.mutate({ user, active: true })}
                      />
                    )}
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
