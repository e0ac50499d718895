import { z } from 'zod';

/** Body of a 4xx answer for a request that failed validation (422) or was refused. */
export interface ErrorResponse {
  error: string;
}

/** A domain refusal the views show in their banner: `{ success: false, error }`. */
export interface Refusal {
  success: false;
  error: string;
}

/** The `time` cache-busting query some GETs carry (spec section 7); ignored by the server. */
export const TimeQuery = z.object({ time: z.optional(z.union([z.string(), z.number()])) });

/** A positive integer path id such as `/api/v1/callusers/{id}`. */
export const IdParams = z.object({ id: z.coerce.number().int().positive() });
export type IdParams = z.infer<typeof IdParams>;
