/**
 * The admin area (issue 37), for an account's admins: Users, Teams, Profiles, Numbers, API keys,
 * Account and Audit, chosen from a list of sections (a side list on wide screens, a scrolling
 * row on narrow ones), with one polite status line that says what each write did.
 *
 * It takes the waiting view's place like History and Settings do; while a call rings or is on,
 * the console's call view shows instead and the area is only hidden (its open form is kept for
 * after the call).
 */
import { useMemo, useState } from 'react';
import { useServices } from '../use-services';
import { PanelHead } from '../ui/panel-head';
import { AccountScreen } from './account-screen';
import { AdminApi } from './admin-api';
import { AdminContext, type AdminContextValue } from './admin-context';
import { ApiKeysScreen } from './api-keys-screen';
import { AuditScreen } from './audit-screen';
import { NumbersScreen } from './numbers-screen';
import { ProfilesScreen } from './profiles-screen';
import { TeamsScreen } from './teams-screen';
import { UsersScreen } from './users-screen';

/** The area's sections, in their order. */
export const ADMIN_SECTIONS = [
  { id: 'users', label: 'Users', Screen: UsersScreen },
  { id: 'teams', label: 'Teams', Screen: TeamsScreen },
  { id: 'profiles', label: 'Profiles', Screen: ProfilesScreen },
  { id: 'numbers', label: 'Numbers', Screen: NumbersScreen },
  { id: 'api-keys', label: 'API keys', Screen: ApiKeysScreen },
  { id: 'account', label: 'Account', Screen: AccountScreen },
  { id: 'audit', label: 'Audit', Screen: AuditScreen },
] as const;

/** A section of the area. */
export type AdminSection = (typeof ADMIN_SECTIONS)[number]['id'];

/** Props of {@link AdminArea}. */
export interface AdminAreaProps {
  /** The area's element id (the Admin entry controls it). */
  readonly id: string;
  readonly onClose: () => void;
  /** Hidden (kept, not shown) while the console shows a call. */
  readonly hidden?: boolean;
}

/** See the module comment. */
export function AdminArea({ id, onClose, hidden = false }: AdminAreaProps) {
  const { api } = useServices();
  const [section, setSection] = useState<AdminSection>('users');
  const [status, setStatus] = useState('');
  const context = useMemo<AdminContextValue>(
    () => ({ admin: new AdminApi(api), say: setStatus }),
    [api],
  );
  const current = ADMIN_SECTIONS.find((entry) => entry.id === section) ?? ADMIN_SECTIONS[0];
  const { Screen } = current;
  return (
    <section id={id} className="panel admin-area" aria-labelledby={`${id}-title`} hidden={hidden}>
      <PanelHead titleId={`${id}-title`} title="Admin" onClose={onClose} />
      <p className={`admin-status${status ? '' : ' is-empty'}`} role="status">
        {status}
      </p>
      <div className="admin-layout">
        <nav className="admin-sections" aria-label="Admin sections">
          <ul>
            {ADMIN_SECTIONS.map((entry) => (
              <li key={entry.id}>
                <button
                  type="button"
                  className={`admin-section${entry.id === section ? ' is-active' : ''}`}
                  aria-current={entry.id === section ? 'page' : undefined}
                  onClick={() => {
                    setStatus('');
                    setSection(entry.id);
                  }}
                >
                  {entry.label}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="admin-content">
          <AdminContext value={context}>
            <Screen key={section} />
          </AdminContext>
        </div>
      </div>
    </section>
  );
}
