/**
 * The outbox's constants. The spec says nothing about an outbox (it is how the console keeps the
 * spec's writes: disposition, tags, SMS, notes; §4, §7), so these are our own choices, kept in one
 * place so the module has no magic numbers.
 */

/** The IndexedDB database that holds the outbox (one per browser profile and origin). */
export const OUTBOX_DB_NAME = 'leadline-outbox';

/** The schema version of {@link OUTBOX_DB_NAME}; raise it with a step in the store's upgrade. */
export const OUTBOX_DB_VERSION = 1;

/** The one object store of {@link OUTBOX_DB_NAME} (key path `id`, auto-increment). */
export const OUTBOX_OBJECT_STORE = 'entries';

/** The index of {@link OUTBOX_OBJECT_STORE} on `userId`. */
export const OUTBOX_USER_INDEX = 'userId';

/** The Web Locks name tabs of one browser share, so only one tab sends at a time. */
export const OUTBOX_LOCK_NAME = 'leadline-outbox';

/** Retry back-off: exponential from 1000 ms, factor 2, capped at 30,000 ms, full jitter. */
export const OUTBOX_BACKOFF = { initialDelayMs: 1_000, factor: 2, maxDelayMs: 30_000 } as const;

/**
 * An attempt that has no answer after this long counts as a failed attempt (retried with the same
 * key). A request left hanging by a Wi-Fi blink would otherwise hold up the whole queue.
 */
export const OUTBOX_ATTEMPT_TIMEOUT_MS = 30_000;
