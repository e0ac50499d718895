import { z } from 'zod';

/** Body of a 4xx answer for a request that failed validation (422) or was refused. */
export const ErrorResponseSchema = z.strictObject({ error: z.string().min(1) });
/** Body of a 4xx answer for a request that failed validation (422) or was refused. */
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

/** A domain refusal the views show in their banner: `{ success: false, error }`. */
export const RefusalSchema = z.strictObject({
  success: z.literal(false),
  error: z.string().min(1),
});
/** A domain refusal the views show in their banner: `{ success: false, error }`. */
export type Refusal = z.infer<typeof RefusalSchema>;

/** Answer of the mutating endpoints whose answer the spec says is 'not shown': `{ success: true }`. */
export const SuccessResponseSchema = z.strictObject({ success: z.literal(true) });

/** The `time` cache-busting query some GETs carry (spec section 7); ignored by the server. */
export const TimeQuery = z.object({ time: z.optional(z.union([z.string(), z.number()])) });

/** A positive integer path id such as `/api/v1/callusers/{id}`. */
export const IdParams = z.object({
  id: z.coerce
    .number({ error: 'The id must be a number.' })
    .int({ error: 'The id must be a whole number.' })
    .positive({ error: 'The id must be a positive number.' })
    .max(2_147_483_647, { error: 'The id is too large.' }),
});
export type IdParams = z.infer<typeof IdParams>;

/**
 * The request header that makes a write safe to repeat (the IETF `Idempotency-Key` draft): the
 * server applies a key once per user and answers a repeat with the first answer. The console's
 * outbox sends it on dispositions, tags, SMS and notes.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The response header that marks an answer given again for a repeated key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** An idempotency key: 8 to 255 visible ASCII characters (a UUID fits). */
export const IdempotencyKey = z
  .string()
  .min(8, { error: 'The Idempotency-Key header must be 8 to 255 visible characters.' })
  .max(255, { error: 'The Idempotency-Key header must be 8 to 255 visible characters.' })
  .regex(/^[\x21-\x7e]+$/, {
    error: 'The Idempotency-Key header must be 8 to 255 visible characters.',
  });
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;
