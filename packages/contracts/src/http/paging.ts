import { z } from 'zod';

/** A page number query field (1-based; absent means 1). */
export const PageField = z.coerce
  .number({ error: 'The page must be a number.' })
  .int({ error: 'The page must be a whole number.' })
  .min(1, { error: 'The page must be at least 1.' })
  .max(1_000_000, { error: 'The page is too large.' })
  .default(1);

/** Paging of a list (spec section 3). */
export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
}

/** A paged list: `data` and `meta`. */
export interface Paged<T> {
  data: T[];
  meta: PageMeta;
}
