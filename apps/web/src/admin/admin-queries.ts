/**
 * The admin screens' queries: one key per list (`['admin', resource, page, search]`), every
 * list of a resource dropped after a write to it, and the whole of a small list (teams,
 * profiles) for a form's choices.
 */
import type { Paged } from '@leadline/contracts';
import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { ListQuery } from './admin-api';

/** The resources the admin area lists. */
export type AdminResource =
  'users' | 'teams' | 'profiles' | 'caller-numbers' | 'api-keys' | 'account' | 'audit';

/** The query key of every list of `resource`, or of one page of it. */
export function adminKey(resource: AdminResource, query?: ListQuery): readonly unknown[] {
  return query ? ['admin', resource, query.page, query.search] : ['admin', resource];
}

/**
 * After a write: every list of `resource` (and of the resources it shows, such as a team's
 * member count after a user change) is read again, and so is the audit log.
 */
export function refreshAfterWrite(client: QueryClient, ...resources: AdminResource[]): void {
  for (const resource of [...resources, 'audit' as const]) {
    void client.invalidateQueries({ queryKey: adminKey(resource) });
  }
}

/** The most pages {@link fetchEvery} reads (25 a page: 500 rows is beyond a form's choices). */
const MAX_PAGES = 20;

/** Every row of a paged list, page by page (at most {@link MAX_PAGES} pages). */
export async function fetchEvery<T>(list: (query: ListQuery) => Promise<Paged<T>>): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const answer = await list({ page, search: '' });
    rows.push(...answer.data);
    if (page >= answer.meta.last_page) break;
  }
  return rows;
}

/** The whole list of `resource` (a form's choices), read with `list`. */
export function useEvery<T>(
  resource: AdminResource,
  list: (query: ListQuery) => Promise<Paged<T>>,
): { readonly rows: readonly T[]; readonly loading: boolean; readonly error: Error | null } {
  const result = useQuery({
    queryKey: [...adminKey(resource), 'every'],
    queryFn: () => fetchEvery(list),
  });
  return { rows: result.data ?? [], loading: result.isPending, error: result.error };
}
