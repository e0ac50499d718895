/**
 * Admin › Audit: who changed what, when: a read-only paged table, newest first as the server
 * sends it, with the time in the viewer's zone, the admin (or 'System' for the command line and
 * the seed), the action, its target and the changed fields.
 */
import { useAdmin } from './admin-context';
import { changeLines } from './audit-format';
import { formatWhen } from './format-when';
import { ListBody, Pager, SearchForm } from './list-controls';
import { ScreenFrame } from './screen-frame';
import { useAdminList } from './use-admin-list';

/** See the module comment. */
export function AuditScreen() {
  const { admin } = useAdmin();
  const list = useAdminList('audit', (query) => admin.listAudit(query));
  return (
    <ScreenFrame title="Audit log">
      <SearchForm noun="the audit log" list={list} />
      <ListBody list={list} caption="Audit log" empty="Nothing has been changed yet.">
        {(rows) => (
          <>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => {
                const lines = changeLines(entry.changes, entry.action);
                return (
                  <tr key={entry.id}>
                    <td data-label="When" className="audit-when">
                      <time dateTime={entry.at}>{formatWhen(entry.at)}</time>
                    </td>
                    <td data-label="Who">{entry.actor?.full_name ?? 'System'}</td>
                    <td data-label="Action">
                      <code>{entry.action}</code>
                    </td>
                    <td data-label="Target">{entry.target}</td>
                    <td data-label="Changes" className="admin-cell-wrap">
                      {lines.length === 0 ? (
                        '—'
                      ) : (
                        <ul className="audit-changes">
                          {lines.map((line, index) => (
                            <li key={index}>{line}</li>
                          ))}
                        </ul>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </>
        )}
      </ListBody>
      <Pager list={list} />
    </ScreenFrame>
  );
}
