/**
 * The audit log's changes as text: `{ field: [before, after] }` becomes one line a field,
 * 'field: before → after' ('(none)' for null or missing, lists joined with ', ', an object as
 * its set fields 'key value'); what a create made is only its value, 'field: value'. Whatever
 * the server stored is only ever text here (React renders it as such).
 */

/** One value of a change, as text. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    const objects = value.some((item) => typeof item === 'object' && item !== null);
    return value.map((item) => valueText(item)).join(objects ? '; ' : ', ');
  }
  if (typeof value === 'object') {
    const set = Object.entries(value).filter(
      ([, field]) => field !== null && field !== undefined && field !== '',
    );
    if (set.length === 0) return '(none)';
    return set.map(([key, field]) => `${key} ${valueText(field)}`).join(', ');
  }
  return '(unreadable)';
}

/** The lines of an entry's changes, one a field, in the server's order. */
export function changeLines(changes: Readonly<Record<string, unknown>>, action = ''): string[] {
  const created = action.endsWith('.create');
  return Object.entries(changes).map(([field, change]) => {
    if (Array.isArray(change) && change.length === 2) {
      if (created) return `${field}: ${valueText(change[1])}`;
      return `${field}: ${valueText(change[0])} → ${valueText(change[1])}`;
    }
    return `${field}: ${valueText(change)}`;
  });
}
