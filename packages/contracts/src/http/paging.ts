import { z } from 'zod';

/** A page number query field (1-based; absent means 1). */
export const PageField = z.coerce
  .number({ error: 'The page must be a number.' })
  .int({ error: 'The page must be a whole number.' })
  .min(1, { error: 'The page must be at least 1.' })
  .max(1_000_000, { error: 'The page is too large.' })
  .default(1);

/** Paging of a list (spec section 3). */
export const PageMetaSchema = z.strictObject({
  current_page: z.int().positive(),
  last_page: z.int().positive(),
  per_page: z.int().positive(),
  total: z.int().nonnegative(),
});
/** Paging of a list (spec section 3). */
export type PageMeta = z.infer<typeof PageMetaSchema>;

/** A paged list: `data` and `meta`. */
export interface Paged<T> {
  data: T[];
  meta: PageMeta;
}

/** The schema of a paged list of `item`s: `{ data, meta }`. */
export function pagedSchema<T extends z.ZodType>(item: T) {
  return z.strictObject({ data: z.array(item), meta: PageMetaSchema });
}
