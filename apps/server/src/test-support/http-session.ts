/**
 * A user logged in over HTTP only, as a console tab that never registered its softphone: the
 * session cookie and the CSRF token (spec section 7), no device. Tests use it to read what the
 * product says (history, presence of other agents) without becoming routable themselves.
 */
import { DEMO_PASSWORD } from '../db/seed';
import { requestJson, sessionCookieOf, type HttpResult } from './http-json';

/** One row of `GET /api/v1/users/paginated`: an agent and where they are. */
export interface AgentPresenceRow {
  id: number;
  full_name: string;
  /** `offline`, `available`, `away`, `wrap_up` or `on_call`. */
  status: string;
  is_online_app: boolean;
  on_call_id: number | null;
}

/** A logged-in session of one user on one product (base URL). */
export class HttpSession {
  private constructor(
    /** The product's base URL, `http://127.0.0.1:<port>`. */
    readonly baseUrl: string,
    readonly email: string,
    readonly userId: number,
    /** `leadline_session=…`. */
    readonly cookie: string,
    /** The session's CSRF token (`X-CSRF-TOKEN`). */
    readonly csrf: string,
  ) {}

  /** Logs `email` in (`POST /api/v1/user/login`, then `GET /api/v1/user` for the CSRF token). */
  static async login(
    baseUrl: string,
    email: string,
    password = DEMO_PASSWORD,
  ): Promise<HttpSession> {
    const loggedIn = await requestJson('POST', `${baseUrl}/api/v1/user/login`, undefined, {
      email,
      password,
    });
    if (loggedIn.status !== 200) {
      throw new Error(
        `login of ${email} failed: ${loggedIn.status} ${JSON.stringify(loggedIn.body)}`,
      );
    }
    const cookie = sessionCookieOf(loggedIn.headers);
    const me = await requestJson<{ user: { id: number }; csrf_token: string }>(
      'GET',
      `${baseUrl}/api/v1/user?time=${Date.now()}`,
      { cookie },
    );
    if (me.status !== 200) throw new Error(`GET /api/v1/user failed: ${me.status}`);
    return new HttpSession(baseUrl, email, me.body.user.id, cookie, me.body.csrf_token);
  }

  /** The same login, talking to another instance of the product at `baseUrl`. */
  on(baseUrl: string): HttpSession {
    return new HttpSession(baseUrl, this.email, this.userId, this.cookie, this.csrf);
  }

  /** An authenticated JSON request (`X-CSRF-TOKEN` on every method but GET/HEAD). */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { cookie: this.cookie };
    if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] = this.csrf;
    return requestJson<T>(method, `${this.baseUrl}${path}`, headers, body);
  }

  /** An authenticated GET of a file (a recording): status, content type and bytes. */
  async download(path: string): Promise<{ status: number; type: string; bytes: Uint8Array }> {
    const response = await fetch(`${this.baseUrl}${path}`, { headers: { cookie: this.cookie } });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      bytes: new Uint8Array(await response.arrayBuffer()),
    };
  }

  /**
   * Where another agent of the account is now, as the transfer panel sees it
   * (`GET /api/v1/users/paginated?status=all`; the session's own user is never listed).
   */
  async presenceOf(userId: number): Promise<AgentPresenceRow> {
    if (userId === this.userId) {
      throw new Error(
        `${this.email} cannot see themselves in the agent list: observe from another user`,
      );
    }
    for (let page = 1; ; page++) {
      const res = await this.api<{ data: AgentPresenceRow[]; meta: { last_page: number } }>(
        'GET',
        `/api/v1/users/paginated?status=all&page=${page}`,
      );
      if (res.status !== 200) throw new Error(`GET /api/v1/users/paginated failed: ${res.status}`);
      const row = res.body.data.find((r) => r.id === userId);
      if (row) return row;
      if (page >= res.body.meta.last_page)
        throw new Error(`user ${userId} is not in the agent list`);
    }
  }
}
