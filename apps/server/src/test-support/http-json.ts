/**
 * JSON over real HTTP for tests of the started product (`fetch` on loopback, not
 * `fastify.inject`): what a browser or a lead source sends, and the answer as status and body.
 */
import { HOST_COOKIE_PREFIX } from '../auth/cookie-policy';
import { SESSION_COOKIE } from '../auth/sessions';

/** An HTTP answer: its status, its JSON body (`undefined` when the body is empty or not JSON). */
export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** Sends `body` (if any) as JSON to `url` and reads the answer. */
export async function requestJson<T = unknown>(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<HttpResult<T>> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/**
 * The session cookie (`leadline_session=…`, in production `__Host-leadline_session=…`) a login
 * answer set in its `set-cookie` headers.
 */
export function sessionCookieOf(headers: Headers): string {
  const names = [SESSION_COOKIE, `${HOST_COOKIE_PREFIX}${SESSION_COOKIE}`];
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [name = '', ...value] = (pair ?? '').split('=');
    if (names.includes(name.trim())) return `${name.trim()}=${value.join('=')}`;
  }
  throw new Error('the login answer set no session cookie');
}
