/**
 * Unique indexes the admin writes lean on (e-mails without regard to case, team names per
 * account): the writes check first and answer a sentence; a concurrent write that slips between
 * the check and the insert hits the index, and that violation is answered the same way.
 */

/** PostgreSQL's unique_violation (23505), from PGlite or `pg`, bare or wrapped by Drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/**
 * Runs `write`; a unique violation it causes becomes `refusal()` (an `AppError` with the
 * sentence), anything else is thrown as it was.
 */
export async function refuseDuplicates<T>(
  write: () => Promise<T>,
  refusal: () => Error,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw refusal();
    throw error;
  }
}
