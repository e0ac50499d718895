/**
 * What one attempt to send an outbox entry came to, and the table that classifies an HTTP answer:
 *
 * | answer                                              | outcome   | the outbox…                         |
 * | --------------------------------------------------- | --------- | ----------------------------------- |
 * | 2xx                                                 | `done`    | removes the entry, goes on           |
 * | 2xx with `{ success: false, error }`                | `refused` | removes it, reports it, goes on      |
 * | 408, 409 (key still in progress), 425, 429, 5xx     | `retry`   | keeps it, backs off, tries it again  |
 * | any other 4xx (401 too: the caller handles the session) | `refused` | removes it, reports it, goes on |
 * | fetch threw (no answer at all): {@link NETWORK_FAILURE} | `retry` | keeps it, backs off, tries it again |
 * | anything else (1xx, 3xx, status 0)                  | `retry`   | keeps it: never lose a write on an answer we cannot read |
 */

import { errorText, isRefusal } from '../api/api-client';

/** The outcome of one attempt, as the injected `send` reports it. */
export type SendOutcome =
  /** The server applied the write (or had already applied this key). */
  | { readonly kind: 'done'; readonly payload: unknown }
  /** The server refused the write for good; `error` is its text, ready for a banner. */
  | { readonly kind: 'refused'; readonly status: number; readonly error: string }
  /** The write may not have been applied; it is sent again later with the same key. */
  | { readonly kind: 'retry'; readonly reason: string };

/**
 * What the first attempt of an enqueued entry came to: delivered, refused, or `queued` when it
 * will be (re)tried later (network failure, offline, queued behind an entry that is waiting).
 */
export type OutboxResult =
  | { readonly kind: 'done'; readonly payload: unknown }
  | { readonly kind: 'refused'; readonly status: number; readonly error: string }
  | { readonly kind: 'queued'; readonly reason: string };

/** Statuses below 500 that mean "try again later" rather than "no". */
export const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([
  408, // Request Timeout
  409, // Conflict: a request with this idempotency key is still being processed
  425, // Too Early
  429, // Too Many Requests
]);

/** The outcome of a `fetch` that threw (no answer reached us): retried. */
export const NETWORK_FAILURE: SendOutcome = Object.freeze({
  kind: 'retry',
  reason: 'Cannot reach the server.',
});

/**
 * Classifies an HTTP answer (status and parsed JSON body, `null` when there was none) by the table
 * in this module's comment.
 */
export function classifyResponse(status: number, payload: unknown): SendOutcome {
  if (status >= 200 && status < 300) {
    if (isRefusal(payload)) return { kind: 'refused', status, error: errorText(payload, status) };
    return { kind: 'done', payload };
  }
  if (status >= 400 && status < 500 && !RETRYABLE_CLIENT_STATUSES.has(status)) {
    return { kind: 'refused', status, error: errorText(payload, status) };
  }
  return { kind: 'retry', reason: `The server answered HTTP ${status}.` };
}
