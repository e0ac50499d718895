/**
 * JSON over real HTTP for tests of the started product (`fetch` on loopback, not
 * `fastify.inject`): what a browser or a lead source sends, and the answer as status and body.
 */

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
