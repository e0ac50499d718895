/**
 * One side of the contract test: the console's own HTTP client (`ApiClient`, every request the
 * console makes, built exactly as the console builds it) over a `fetch` that keeps every answer
 * as it came, status and JSON body. On the fake side the `fetch` is the fake server's
 * (`FakeApi.fetch`); on the server side it is Node's `fetch` to the running product on loopback,
 * with a cookie jar standing in for the browser's (`credentials: 'include'`).
 */
import { ApiClient } from '../../apps/web/src/api/api-client';
import type { FakeApi } from '../../apps/web/src/test-support/fake-api';
import type { FetchLike } from '../../apps/web/src/platform/platform';

/** One request the console sent and the answer it got. */
export interface Exchange {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly status: number;
  /** The answer's JSON body; `undefined` when it had none (or not JSON). */
  readonly body: unknown;
}

/** Whose answers a side holds: the fake server's or the real server's. */
export type SideName = 'fake' | 'server';

/** The console's client on one server, and every exchange it had. */
export class ConsoleSide {
  /** The exchanges, oldest first. */
  readonly exchanges: Exchange[] = [];
  /** The console's client. */
  readonly api: ApiClient;
  /** How many times the client asked the page to reload (a 401 after the user was loaded). */
  reloads = 0;

  private constructor(
    readonly name: SideName,
    fetch: FetchLike,
    readonly jar: CookieJar | null = null,
  ) {
    this.api = new ApiClient({
      fetch: this.#recording(fetch),
      reload: () => {
        this.reloads += 1;
      },
      now: () => Date.now(),
    });
  }

  /** The console on the fake server (its session is the fake's: `signIn`, or a login). */
  static onFake(fake: FakeApi): ConsoleSide {
    return new ConsoleSide('fake', fake.fetch);
  }

  /**
   * The console on the real server at `baseUrl`, with the session cookie `cookie`
   * (`leadline_session=…`) if it is signed in already (a headless agent's), else none yet.
   */
  static onServer(baseUrl: string, cookie?: string): ConsoleSide {
    const jar = new CookieJar(cookie);
    return new ConsoleSide('server', jar.fetchFrom(baseUrl), jar);
  }

  /** The cookies this side's browser holds (`name=value; …`), for another tab of its session. */
  get cookie(): string | undefined {
    return this.jar?.header;
  }

  #recording(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await fetch(url, init);
      const text = await response.clone().text();
      let body: unknown = undefined;
      if (text !== '') {
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          body = undefined;
        }
      }
      this.exchanges.push({
        method: (init.method ?? 'GET').toUpperCase(),
        path: new URL(url, 'http://console.test').pathname,
        status: response.status,
        body,
      });
      return response;
    };
  }
}

/**
 * The cookies of one browser, as a browser keeps them: sent with every request, replaced by a
 * `Set-Cookie` of the same name, dropped when the server expires them.
 */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  constructor(cookie?: string) {
    for (const pair of cookie?.split(';') ?? []) this.#set(pair);
  }

  /** The `Cookie` header, or undefined when there is none. */
  get header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Node's `fetch` to `baseUrl`, carrying and keeping this jar's cookies. */
  fetchFrom(baseUrl: string): FetchLike {
    return async (url, init) => {
      const headers = new Headers(init.headers);
      const cookie = this.header;
      if (cookie) headers.set('cookie', cookie);
      const response = await fetch(`${baseUrl}${url}`, { ...init, headers });
      for (const line of response.headers.getSetCookie()) this.#take(line);
      return response;
    };
  }

  #take(setCookie: string): void {
    const [pair = '', ...attributes] = setCookie.split(';');
    const expired = attributes.some((attribute) => {
      const [key = '', setting = ''] = attribute.trim().split('=');
      return (
        (key.toLowerCase() === 'max-age' && Number(setting) <= 0) ||
        (key.toLowerCase() === 'expires' && Date.parse(setting) <= Date.now())
      );
    });
    if (expired) this.#cookies.delete(pair.split('=')[0]!.trim());
    else this.#set(pair);
  }

  #set(pair: string): void {
    const [name = '', ...value] = pair.split('=');
    if (name.trim() === '') return;
    if (value.join('=') === '') this.#cookies.delete(name.trim());
    else this.#cookies.set(name.trim(), value.join('='));
  }
}
