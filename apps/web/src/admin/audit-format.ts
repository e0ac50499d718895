/**
 * The audit log's changes as text: `{ field: [before, after] }` becomes one line a field,
 * 'field: before → after' ('(none)' for null or missing, lists joined with ', ', objects as
 * JSON). Whatever the server stored is only ever text here (React renders it as such).
 */

/** One value of a change, as text. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    return value.length === 0 ? '(none)' : value.map((item) => valueText(item)).join(', ');
  }
  try {
    return JSON.stringify(value);
  } catch {
    return '(unreadable)';
  }
}

/** The lines of an entry's changes, one a field, in the server's order. */
export function changeLines(changes: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(changes).map(([field, change]) => {
    if (Array.isArray(change) && change.length === 2) {
      return `${field}: ${valueText(change[0])} → ${valueText(change[1])}`;
    }
    return `${field}: ${valueText(change)}`;
  });
}
