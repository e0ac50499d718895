/**
 * One write waiting in the outbox: the HTTP request to make, its idempotency key, and its retry
 * bookkeeping. Entries are plain, structured-cloneable data so IndexedDB can keep them.
 */

/** The HTTP methods the outbox sends (writes only). */
export type OutboxMethod = 'POST' | 'PUT';

/** What a caller hands to {@link Outbox.enqueue}: one write of one user. */
export interface OutboxRequest {
  /** The signed-in user whose session must send it; entries of other users are never sent. */
  readonly userId: number;
  readonly method: OutboxMethod;
  /** The API path, e.g. `/api/v1/notes`. */
  readonly path: string;
  /** The JSON body (must be structured-cloneable: plain JSON data). */
  readonly body: unknown;
  /** A short name for the UI and diagnostics, e.g. `'note'`, `'disposition'`, `'sms'`. */
  readonly label: string;
  /**
   * The caller shows a refusal of the first attempt itself (it awaits `firstAttempt`), so the
   * outbox does not report that one in `lastError`; later refusals are reported as usual.
   */
  readonly showsRefusal?: boolean;
}

/** An entry as written to the store, before the store gave it an id. */
export interface NewOutboxEntry extends OutboxRequest {
  /**
   * The idempotency key (a UUID), sent as the `Idempotency-Key` header on every attempt of this
   * entry; the server applies a key once, so a repeated attempt has no second effect.
   */
  readonly key: string;
  /** When it was enqueued (ms since the epoch). */
  readonly createdAt: number;
  /** How many attempts have failed in a way that is retried. */
  readonly attempts: number;
  /** Not before this time (ms since the epoch) is it tried again. */
  readonly nextAttemptAt: number;
}

/** A stored entry. */
export interface OutboxEntry extends NewOutboxEntry {
  /** The store's auto-increment id: ascending in insertion order. */
  readonly id: number;
}
