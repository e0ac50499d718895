/** Paging of the catalog's admin lists (profiles, caller numbers, API keys). */
import { ADMIN_PAGE_SIZE, type PageMeta } from '@leadline/contracts';

/** The offset of `page` (1-based) and the page's meta for `total` rows. */
export function pageOf(page: number, total: number): { offset: number; meta: PageMeta } {
  return {
    offset: (page - 1) * ADMIN_PAGE_SIZE,
    meta: {
      current_page: page,
      last_page: Math.max(1, Math.ceil(total / ADMIN_PAGE_SIZE)),
      per_page: ADMIN_PAGE_SIZE,
      total,
    },
  };
}

/** `%value%` for `ilike`, with `%`, `_` and `\` matched as themselves. */
export const containing = (value: string): string =>
  `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Whether `error` is PostgreSQL's error `code`, from PGlite or `pg`, bare or wrapped by Drizzle. */
export function violates(error: unknown, code: string): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** PostgreSQL's unique_violation (23505). */
export const isUniqueViolation = (error: unknown): boolean => violates(error, '23505');
