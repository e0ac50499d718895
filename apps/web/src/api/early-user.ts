/**
 * The session check, sent as the console's bundle starts to evaluate (`early-session.ts`, the
 * entry point's first import) rather than once all of it has been evaluated: `GET
 * /api/v1/user?time=<ms>` is what every page load asks first (the login view or the console
 * waits for it), and sent by the console itself it went out some 50 ms into the bundle's
 * evaluation (the app-load benchmark). The console's own first `GET /api/v1/user` is then
 * answered with this response ({@link servingEarlyUser}), so the server sees one request, as
 * before.
 *
 * Evaluated before the rest of the bundle: it imports types only.
 */
import type { FetchLike } from '../platform/platform';

/** Spec section 7: the signed-in user. */
export const USER_PATH = '/api/v1/user';

/** The request `ApiClient.getUser()` sends, and so the early check too. */
function userRequest(nowMs: number): { url: string; init: RequestInit } {
  return {
    url: `${USER_PATH}?time=${nowMs}`,
    init: { method: 'GET', credentials: 'include', headers: { Accept: 'application/json' } },
  };
}

/** Sends the session check now; the response (or the network failure) is kept for the console. */
export function startUserCheck(fetch: FetchLike, now: () => number): Promise<Response> {
  const { url, init } = userRequest(now());
  const response = fetch(url, init);
  // A failure is the console's to handle when it takes the response; not an unhandled rejection
  // meanwhile.
  response.catch(() => undefined);
  return response;
}

/**
 * `fetch`, except that the first `GET /api/v1/user` is answered with `early` (the session check
 * the page sent before the console loaded). Every later request, the retries of a failed check
 * included, goes to the network.
 */
export function servingEarlyUser(fetch: FetchLike, early: Promise<Response> | null): FetchLike {
  let pending = early;
  return (url, init) => {
    if (pending && (init.method ?? 'GET') === 'GET' && pathOf(url) === USER_PATH) {
      const response = pending;
      pending = null;
      return response;
    }
    return fetch(url, init);
  };
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
