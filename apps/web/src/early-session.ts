/**
 * Sends the session check (`api/early-user.ts`) as this module is evaluated. The entry point
 * (`main.tsx`) imports it first, so the request goes out before the rest of the console's
 * modules are evaluated (React, the views, the controller: some 50 ms of a cold load) rather
 * than after them, and its answer is usually in by the first render.
 */
import { startUserCheck } from './api/early-user';

export const earlyUser: Promise<Response> = startUserCheck(
  (url, init) => window.fetch(url, init),
  () => Date.now(),
);
