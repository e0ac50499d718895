import { within } from '@testing-library/react';

/**
 * Test support: the texts of the row of `table` whose row header is `name`, without its actions
 * cell (the buttons): what a person reads across the row.
 */
export function rowCells(table: HTMLElement, name: string): string[] {
  const header = within(table).getByRole('rowheader', { name });
  const row = header.closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return [...row.cells]
    .filter((cell) => !cell.classList.contains('admin-row-actions'))
    .map((cell) => cell.textContent?.trim() ?? '');
}
