/** The floor's and the reports' tables. */
import { useId, type ReactNode } from 'react';

/**
 * A titled section with a table whose first cell names its row (the admin tables' look, cards
 * on narrow screens); without rows, `empty` instead. `children` stand between the title and the
 * table (the floor's charts).
 */
export function FloorTable({
  title,
  headers,
  rows,
  empty = 'No calls in this range.',
  children,
}: {
  title: string;
  headers: string[];
  rows: Array<{ key: string; cells: string[] }>;
  empty?: string;
  children?: ReactNode;
}) {
  const headingId = useId();
  return (
    <section className="floor-section" aria-labelledby={headingId}>
      <h2 id={headingId} className="floor-heading">
        {title}
      </h2>
      {children}
      {rows.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                {headers.map((header) => (
                  <th key={header} scope="col">
                    {header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.cells[0]}</th>
                  {row.cells.slice(1).map((cell, i) => (
                    <td key={headers[i + 1]} data-label={headers[i + 1]}>
                      {cell}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
