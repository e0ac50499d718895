/**
 * The console's HTTP client (spec section 7). Cookie session (`credentials: 'include'`); every
 * mutating request carries `X-CSRF-TOKEN` with the token from the user fetch; once the user is
 * loaded, a 401 on any response reloads the page. Server refusals (`{ error }` or
 * `{ success: false, error }`) become an {@link ApiError} whose message is the server's text,
 * ready for a view's banner.
 */
import type {
  AgentRow,
  HistoryRow,
  AgentStatus,
  CallUserResponse,
  CallerNumber,
  ConferenceLeadBody,
  Lead,
  Floor,
  Paged,
  ReportSummary,
  RealtimeSettings,
  TeamRow,
  TransferBody,
  Disposition,
  LoginBody,
  LoginOptionsResponse,
  NetworkTestResponse,
  NoteBody,
  OutboundCallBody,
  OutboundCallResponse,
  RetryCallBody,
  TokenResponse,
  User,
  UserResponse,
  UserStatusBody,
  UserStatusResponse,
  SoftphoneSettings,
} from '@leadline/contracts';
import { HISTORY_LIMIT, IDEMPOTENCY_KEY } from '../constants';
import { WebError } from '../errors';
import type { FetchLike } from '../platform/platform';
import { USER_PATH } from './early-user';

/** The server refused a request; `message` is its `error` text when it sent one. */
export class ApiError extends WebError {
  /** The HTTP status (200 for a `{ success: false }` answer). */
  readonly status: number;

  constructor(status: number, message: string) {
    super('ApiError', message);
    this.status = status;
  }
}

/** The session ended after the user was loaded; the page is reloading. */
export class SessionExpiredError extends WebError {
  constructor() {
    super('SessionExpiredError', 'Your session has ended. Reloading…');
  }
}

/** The request did not reach the server. */
export class NetworkError extends WebError {
  constructor(cause: unknown) {
    super('NetworkError', 'Cannot reach the server. Check your connection and try again.', {
      cause,
    });
  }
}

/** What the client needs from the page. */
export interface ApiClientOptions {
  readonly fetch: FetchLike;
  /** Reloads the page (after a 401 once the user was loaded). */
  readonly reload: () => void;
  /** Milliseconds since the epoch, for the `time` cache-busting query. */
  readonly now: () => number;
  /** Prefix of every path; same origin when empty. */
  readonly baseUrl?: string;
}

/** The HTTP methods the console sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Method = HttpMethod;

/** A supervisor's role on an agent's call. */
export type SuperviseMode = 'listen' | 'whisper' | 'barge';

/** The filters of the transfer panel's agent list. */
export interface AgentsQuery {
  readonly page: number;
  readonly status: AgentStatus;
  readonly search: string;
  readonly teamId: number | null;
}

/**
 * The paths of the after-call writes, shared by the direct calls below and the outbox that
 * keeps them until the server has them (`console/kept-writes.ts`).
 */
export const WRITE_PATHS = {
  disposition: (callId: number) => `/apps/webrtc/${callId}/disposition`,
  tag: (callId: number) => `/apps/webrtc/${callId}/disposition2`,
  sms: (callId: number) => `/apps/webrtc/${callId}/sms`,
  note: () => '/api/v1/notes',
  wrapUpDone: () => '/api/v1/user/wrap-up/done',
} as const;

/** Softphone settings before the server named any: our SDK, silent. */
export const DEFAULT_SOFTPHONE: SoftphoneSettings = {
  sdk: 'leadline',
  sounds: {} as SoftphoneSettings['sounds'],
};

export class ApiClient {
  readonly #options: ApiClientOptions;
  #csrfToken: string | null = null;
  #userLoaded = false;
  #softphone: SoftphoneSettings = DEFAULT_SOFTPHONE;
  #realtime: RealtimeSettings | null = null;

  /** The softphone settings of the last `getUser()` (our SDK and no sounds until then). */
  get softphone(): SoftphoneSettings {
    return this.#softphone;
  }

  /** The realtime settings of the last `getUser()` (null until then, or if the server sent none). */
  get realtime(): RealtimeSettings | null {
    return this.#realtime;
  }

  constructor(options: ApiClientOptions) {
    this.#options = options;
  }

  /**
   * `GET /api/v1/user?time=<ms>`: the signed-in user, or `null` when there is no session
   * (401 or `{ success: false }`). Remembers the CSRF token for later mutations.
   */
  async getUser(): Promise<User | null> {
    const response = await this.#send('GET', `${USER_PATH}?time=${this.#options.now()}`);
    if (response.status === 401) return null;
    const payload = await readPayload(response);
    if (isRefusal(payload)) return null;
    if (!response.ok) throw new ApiError(response.status, errorText(payload, response.status));
    const { user, csrf_token, softphone, realtime } = payload as UserResponse;
    this.#csrfToken = csrf_token ?? user.csrf_token;
    this.#softphone = softphone ?? DEFAULT_SOFTPHONE;
    this.#realtime = realtime ?? null;
    this.#userLoaded = true;
    return user;
  }

  /**
   * `POST /api/v1/user/login`; resolves when the credentials were accepted (the caller then
   * reloads the page) and throws {@link ApiError} with the server's message otherwise.
   */
  async login(body: LoginBody): Promise<void> {
    await this.#json('POST', '/api/v1/user/login', body);
  }

  /** `GET /api/v1/login/options` (public): whether the login view offers single sign-on. */
  async loginOptions(): Promise<LoginOptionsResponse> {
    return this.#json<LoginOptionsResponse>('GET', '/api/v1/login/options');
  }

  /**
   * `POST /api/v1/user/logout`, or with `everywhere` `POST /api/v1/user/logout-everywhere` (every
   * session of the user ends); afterwards a 401 no longer reloads the page.
   */
  async logout(options: { everywhere?: boolean } = {}): Promise<void> {
    try {
      await this.#json(
        'POST',
        options.everywhere ? '/api/v1/user/logout-everywhere' : '/api/v1/user/logout',
      );
    } finally {
      this.#userLoaded = false;
      this.#csrfToken = null;
    }
  }

  /** `GET /api/v1/twilio/token2`, with the `time` query on the first fetch only. */
  async getToken(first: boolean): Promise<string> {
    const query = first ? `?time=${this.#options.now()}` : '';
    const { token } = await this.#json<TokenResponse>('GET', `/api/v1/twilio/token2${query}`);
    if (typeof token !== 'string' || token === '') {
      throw new ApiError(200, 'The server sent no softphone token.');
    }
    return token;
  }

  /** `GET /api/v1/callusers/{id}`: the call behind an incoming call. */
  getCallUser(callUserId: number): Promise<CallUserResponse> {
    return this.#json<CallUserResponse>('GET', `/api/v1/callusers/${callUserId}`);
  }

  /** `POST /apps/webrtc/{callId}/reject`: the agent ignored the call. */
  async rejectCall(callId: number): Promise<void> {
    await this.#json('POST', `/apps/webrtc/${callId}/reject`);
  }

  /** `POST /apps/webrtc/{callId}/disposition`: the call's result. */
  async setDisposition(callId: number, status: Disposition): Promise<void> {
    await this.#json('POST', WRITE_PATHS.disposition(callId), { status });
  }

  /** `POST /twilio/debug/webrtc`: a hung-up connection did not close (spec section 7). */
  async reportUnclosedConnection(body: { user: number; conn_status: string }): Promise<void> {
    await this.#json('POST', '/twilio/debug/webrtc', body);
  }

  /** `PUT /api/v1/user/settings`: Auto Accept on or off (app-autoaccept); answers the new value. */
  async setAutoaccept(autoaccept: boolean): Promise<boolean> {
    const answer = await this.#json<{ autoaccept?: boolean }>('PUT', '/api/v1/user/settings', {
      autoaccept,
    });
    return answer.autoaccept ?? autoaccept;
  }

  /**
   * `PUT /api/v1/user/status`: the agent takes calls when free (Available) or not (Away); answers
   * where the agent is now (still on a call, say) and their choice.
   */
  setStatus(status: UserStatusBody['status']): Promise<UserStatusResponse> {
    return this.#json<UserStatusResponse>('PUT', '/api/v1/user/status', { status });
  }

  /** `POST /apps/webrtc/{callId}/disposition2`: the call's tag (Tags & Stages). */
  async setTag(callId: number, key: string): Promise<void> {
    await this.#json('POST', WRITE_PATHS.tag(callId), { key });
  }

  /**
   * `POST /apps/webrtc/{callId}/sms`: the SMS follow-up to the call's lead. A refusal
   * (`{ success: false, error }`) throws {@link ApiError} with the server's text.
   */
  async sendSms(callId: number, smsbody: string): Promise<'sent'> {
    await this.#json('POST', WRITE_PATHS.sms(callId), { smsbody });
    return 'sent';
  }

  /**
   * `POST /api/v1/calls/twilio` (Retry): the server calls the lead again and rings an agent
   * (this one first); `{ success: false, error }` throws {@link ApiError} with its text.
   */
  async retryCall(body: RetryCallBody): Promise<void> {
    await this.retryLead(body);
  }

  /**
   * {@link retryCall}, answering the id of the agent being rung (`call.agent_id`; null if the
   * answer has none), for a console that says who the lead will ring (History's Retry).
   */
  async retryLead(body: RetryCallBody): Promise<{ readonly agentId: number | null }> {
    const answer = await this.#json<{ call?: { agent_id?: number | null } }>(
      'POST',
      '/api/v1/calls/twilio',
      body,
    );
    return { agentId: answer.call?.agent_id ?? null };
  }

  /** `POST /apps/webrtc/check` (Check for lead); 'No leads waiting.' and the like throw. */
  async checkForLead(): Promise<void> {
    await this.#json('POST', '/apps/webrtc/check');
  }

  /**
   * Sends one write with its `Idempotency-Key` (the outbox's entries) and answers the HTTP
   * status and payload as they are, for the outbox to classify. Throws {@link NetworkError} when
   * the server cannot be reached, {@link SessionExpiredError} after a 401 (the page reloads).
   */
  async sendKeyed(
    method: 'POST' | 'PUT',
    path: string,
    body: unknown,
    key: string,
    signal?: AbortSignal,
  ): Promise<{ status: number; payload: unknown }> {
    const response = await this.#send(method, path, body, { [IDEMPOTENCY_KEY]: key }, signal);
    return { status: response.status, payload: await readPayload(response) };
  }

  /** `POST /api/v1/user/wrap-up/done`: the agent is done with the call (Done). */
  async endWrapUp(): Promise<void> {
    await this.#json('POST', WRITE_PATHS.wrapUpDone());
  }

  /** `POST /api/v1/notes`: a note on a call. */
  async addNote(body: NoteBody): Promise<void> {
    await this.#json('POST', WRITE_PATHS.note(), body);
  }

  /**
   * `POST /api/v1/calls/twilio/outbound`: the server creates the call (and the lead if new);
   * the answer's `call_user_id` is what the softphone connects with. Refusals (422 `{ error }`,
   * `{ success: false, error }`) throw {@link ApiError} with the server's text.
   */
  placeOutboundCall(body: OutboundCallBody): Promise<OutboundCallResponse> {
    return this.#json<OutboundCallResponse>('POST', '/api/v1/calls/twilio/outbound', body);
  }

  /**
   * `POST /api/v1/network-test`: the server authorises one network test call of this agent's
   * phone; the answer's `params` are what the softphone connects with. Refusals (phone offline,
   * on a call, a test already running) throw {@link ApiError} with the server's text.
   */
  startNetworkTest(): Promise<NetworkTestResponse> {
    return this.#json<NetworkTestResponse>('POST', '/api/v1/network-test');
  }

  /** `PUT /api/v1/calls/{callId}/hold` or `/unhold`: the lead hears hold music, or is back. */
  async setHold(callId: number, held: boolean): Promise<void> {
    await this.#json('PUT', `/api/v1/calls/${callId}/${held ? 'hold' : 'unhold'}`);
  }

  /** `GET /api/v1/users/paginated`: one page of the account's agents (transfer panel). */
  getAgents(query: AgentsQuery): Promise<Paged<AgentRow>> {
    const params = new URLSearchParams({ page: String(query.page), status: query.status });
    if (query.search) params.set('search', query.search);
    if (query.teamId !== null) params.set('team_id', String(query.teamId));
    return this.#json<Paged<AgentRow>>('GET', `/api/v1/users/paginated?${params.toString()}`);
  }

  /** `GET /api/v1/teams`: the account's teams, each with whether a member can take a call. */
  async getTeams(): Promise<TeamRow[]> {
    const { data } = await this.#json<{ data?: TeamRow[] }>('GET', '/api/v1/teams');
    return Array.isArray(data) ? data : [];
  }

  /** `POST /api/v1/calls/{callId}/transfer`: to a user or a team; the target is rung. */
  async transferCall(callId: number, body: TransferBody): Promise<void> {
    await this.#json('POST', `/api/v1/calls/${callId}/transfer`, body);
  }

  /**
   * `POST /api/v1/calls/conferencelead`: adds a lead to the call and dials it. Resolves with the
   * lead once it answered; a lead that did not answer (`success: false` with the reason in
   * `error`) throws {@link ApiError} with that text.
   */
  async addLeadToCall(body: ConferenceLeadBody): Promise<Lead> {
    const answer = await this.#json<{ lead: Lead }>('POST', '/api/v1/calls/conferencelead', body);
    return answer.lead;
  }

  /** `POST /api/v1/calls/conference`: rings `userId` into the caller's live call. */
  async conferenceAgent(userId: number): Promise<void> {
    await this.#json('POST', '/api/v1/calls/conference', { user_id: userId });
  }

  /**
   * `POST /api/v1/calls/{onCallId}/listen|whisper|barge`: the supervisor joins the agent's call
   * in that role (rung, auto-answered), or changes role if already in it.
   */
  async supervise(onCallId: number, mode: SuperviseMode): Promise<void> {
    await this.#json('POST', `/api/v1/calls/${onCallId}/${mode}`);
  }

  /** `GET /api/v1/mycalls`: one page of the user's call history, newest first. */
  getHistory(page: number, limit = HISTORY_LIMIT): Promise<Paged<HistoryRow>> {
    return this.#json<Paged<HistoryRow>>('GET', `/api/v1/mycalls?limit=${limit}&page=${page}`);
  }

  /** `GET /api/v1/floor`: the queue, the agents and today's figures (supervisors, admins). */
  getFloor(): Promise<Floor> {
    return this.#json<Floor>('GET', '/api/v1/floor');
  }

  /** `GET /api/v1/reports/summary`: the summaries of the days `from` to `to` (Reports). */
  getReportSummary(from: string, to: string): Promise<ReportSummary> {
    const query = new URLSearchParams({ from, to }).toString();
    return this.#json<ReportSummary>('GET', `/api/v1/reports/summary?${query}`);
  }

  /** `GET /api/v1/callerids`: the account's caller numbers for the New Call panel. */
  async getCallerIds(): Promise<CallerNumber[]> {
    const { data } = await this.#json<{ data?: CallerNumber[] }>('GET', '/api/v1/callerids');
    return Array.isArray(data) ? data : [];
  }

  /**
   * A JSON request to `path` with the session and CSRF token like every call above, answering
   * the payload; refusals throw {@link ApiError} with the server's sentence. For route groups
   * with a client of their own (the admin screens' `admin/admin-api.ts`).
   */
  request<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    return this.#json<T>(method, path, body);
  }

  async #json<T = unknown>(method: Method, path: string, body?: unknown): Promise<T> {
    const response = await this.#send(method, path, body);
    const payload = await readPayload(response);
    if (!response.ok || isRefusal(payload)) {
      throw new ApiError(response.status, errorText(payload, response.status));
    }
    return payload as T;
  }

  async #send(
    method: Method,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', ...extraHeaders };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET' && this.#csrfToken) headers['X-CSRF-TOKEN'] = this.#csrfToken;
    let response: Response;
    try {
      response = await this.#options.fetch(`${this.#options.baseUrl ?? ''}${path}`, {
        method,
        credentials: 'include',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw new NetworkError(error);
    }
    if (response.status === 401 && this.#userLoaded) {
      // Spec section 7: the session is gone; a reload lands on the login view.
      this.#userLoaded = false;
      this.#options.reload();
      throw new SessionExpiredError();
    }
    return response;
  }
}

async function readPayload(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Whether an answer is a refusal (`{ success: false, … }`). */
export function isRefusal(payload: unknown): boolean {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    'success' in payload &&
    payload.success === false
  );
}

/** The server's `error` text of an answer, or a fallback naming the HTTP status. */
export function errorText(payload: unknown, status: number): string {
  if (typeof payload === 'object' && payload !== null && 'error' in payload) {
    const { error } = payload;
    if (typeof error === 'string' && error.trim() !== '') return error;
  }
  return `The server could not complete the request (HTTP ${status}).`;
}
