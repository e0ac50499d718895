import type { Paged } from '@leadline/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ListQuery } from './admin-api';
import { adminKey, type AdminResource } from './admin-queries';

/** One admin list: its page, the search it is filtered by, and the page's rows. */
export interface AdminList<T> {
  readonly page: number;
  readonly search: string;
  readonly setPage: (page: number) => void;
  /** Filters by `search` from its first page (the search box's submit). */
  readonly submitSearch: (search: string) => void;
  /** The page's rows; undefined while the first answer is on its way. */
  readonly rows: readonly T[] | undefined;
  readonly lastPage: number;
  readonly total: number;
  readonly error: Error | null;
}

/** A paged, searchable list of `resource`, read with `list`. */
export function useAdminList<T>(
  resource: AdminResource,
  list: (query: ListQuery) => Promise<Paged<T>>,
): AdminList<T> {
  const [query, setQuery] = useState<ListQuery>({ page: 1, search: '' });
  const result = useQuery({
    queryKey: adminKey(resource, query),
    queryFn: () => list(query),
    placeholderData: keepPreviousData,
  });
  return {
    page: query.page,
    search: query.search,
    setPage: (page) => setQuery((current) => ({ ...current, page })),
    submitSearch: (search) => setQuery({ page: 1, search: search.trim() }),
    rows: result.data?.data,
    lastPage: Math.max(1, result.data?.meta.last_page ?? 1),
    total: result.data?.meta.total ?? 0,
    error: result.error,
  };
}
