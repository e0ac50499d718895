/**
 * The shared in-memory fake of the server endpoints the console uses (spec section 7), for tests.
 * `fakeApi.fetch` is a {@link FetchLike}: it checks the session cookie, the CSRF header and the
 * bodies (with the contracts' zod schemas) like the real server, records every request, and
 * answers with real `Response`s.
 */
import {
  ConferenceBody,
  ConferenceLeadBody,
  DebugWebrtcBody,
  Disposition2Body,
  DispositionBody,
  RetryCallBody,
  SmsBody,
  UserSettingsBody,
  UserStatusBody,
  TransferBody,
  type AgentRow,
  type HistoryRow,
  type TeamRow,
  LOGIN_FAILED_MESSAGE,
  LoginBody,
  NetworkTestBody,
  NoteBody,
  OutboundCallBody,
  formatPhone,
  type Call,
  type CallType,
  type CallUserResponse,
  type CallerNumber,
  type Lead,
  type NetworkTestResponse,
  type OutboundCallResponse,
  type RealtimeSettings,
  type User,
  type UserStatusResponse,
} from '@leadline/contracts';
import type { FetchLike } from '../platform/platform';

/** One request the fake received. */
export interface RecordedRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Headers;
  readonly credentials: RequestCredentials | undefined;
  /** The parsed JSON body, or undefined. */
  readonly body: unknown;
}

/** An account the fake knows. */
export interface FakeAccount {
  readonly user: User;
  readonly password: string;
}

/** The demo agent. */
export function demoUser(overrides: Partial<User> = {}): User {
  return {
    id: 7,
    account_id: 100,
    full_name: 'Dana Whitfield',
    email: 'dana@example.com',
    phone_number_formatted: '+1 555 010 0199',
    profile_picture: null,
    permissions: [],
    country_code: 'US',
    integrations: { hubspot_id: null, salesforce_domain: null, activecampaign_domain: null },
    settings: {},
    autoaccept: false,
    is_available: true,
    status: 'available',
    csrf_token: 'csrf-dana',
    ...overrides,
  };
}

/** The `realtime` block the fake's `GET /api/v1/user` answers for `user` (the server's shape). */
export function demoRealtime(
  user: Pick<User, 'id' | 'account_id' | 'csrf_token'>,
): RealtimeSettings {
  return {
    key: 'fake-realtime-key',
    options: {
      cluster: 'us2',
      forceTLS: false,
      wsHost: 'console.test',
      wsPort: 80,
      wssPort: 443,
      enabledTransports: ['ws', 'wss'],
      disableStats: true,
      channelAuthorization: {
        endpoint: '/api/v1/pusher/auth',
        transport: 'ajax',
        headers: { 'X-CSRF-TOKEN': user.csrf_token },
      },
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
    },
    channels: { user: `presence-user-${user.id}`, account: `private-account-${user.account_id}` },
  };
}

/** The demo lead. */
export function demoLead(overrides: Partial<Lead> = {}): Lead {
  return {
    id: 301,
    label: 'Maya Okafor',
    fname: 'Maya',
    lname: 'Okafor',
    name: 'Maya Okafor',
    phone_number: '+15550100142',
    phone_number_formatted: '+1 555 010 0142',
    company: 'Brightwater Solar',
    email: 'maya@brightwater.example',
    category: 'Solar quote',
    crm: null,
    source_id: null,
    profile_picture: null,
    ...overrides,
  };
}

/** A call-user answer for a call of `type`; `call` overrides fields of the call. */
export function demoCallUser(
  options: { type?: CallType; autoaccept?: boolean; call?: Partial<Call> } = {},
): CallUserResponse {
  const type = options.type ?? 'lead';
  const lead = demoLead();
  return {
    type,
    autoaccept: options.autoaccept ?? false,
    call: {
      id: 9001,
      type,
      direction: 'outbound',
      status: 'ringing',
      lead,
      lead_id: lead.id,
      account_id: 100,
      profile_id: 12,
      profile: { id: 12, is_deal_whispertext: false, auto_answer: true, tags: [] },
      number: { name: 'Sales line', account_id: 100, phone_number_formatted: '+1 555 010 0100' },
      phone_number: lead.phone_number,
      seconds_since_started_at: 0,
      held: false,
      ...options.call,
    },
  };
}

/** An agent row of the agent lists: available and online in the app unless overridden. */
export function demoAgent(
  id: number,
  fullName: string,
  overrides: Partial<AgentRow> = {},
): AgentRow {
  return {
    id,
    full_name: fullName,
    on_call_id: null,
    status: 'available',
    is_available: true,
    is_app_only: false,
    is_online_app: true,
    is_mobile: false,
    ...overrides,
  };
}

const TOKEN_PREFIX = 'fake-token-';

/** The first call id and call-user id the fake hands out for outbound calls. */
const FIRST_OUTBOUND_CALL_ID = 9100;
const FIRST_OUTBOUND_CALL_USER_ID = 700;

/** An outbound call the fake accepted. */
export interface PlacedCall {
  /** The body after the contract's parsing (phone number in E.164). */
  readonly body: OutboundCallBody;
  readonly answer: OutboundCallResponse;
}

/** The in-memory server. */
export class FakeApi {
  /** Every request, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #accounts: FakeAccount[];
  readonly #callUsers = new Map<number, CallUserResponse>();
  #session: User | null = null;
  #tokens = 0;
  #held: Promise<void> | null = null;
  readonly #refusals = new Map<string, { status: number; error: string }>();
  #callerNumbers: CallerNumber[] = [];
  #agents: ReadonlyArray<AgentRow & { team_ids?: number[] }> = [];
  #history: HistoryRow[] = [];
  #teams: TeamRow[] = [];
  /** Leads added to calls (`conferencelead`), in order. */
  readonly addedLeads: Lead[] = [];
  /** Every outbound call accepted, in order. */
  readonly placedCalls: PlacedCall[] = [];
  /** Every network test authorised (`POST /api/v1/network-test`), in order. */
  readonly networkTests: NetworkTestResponse[] = [];

  /** Whether a lead waits for an agent (`POST /apps/webrtc/check` rings it). */
  leadWaiting = false;

  /** Whether single sign-on is configured (`GET /api/v1/login/options`). */
  sso = true;

  constructor(accounts: FakeAccount[] = [{ user: demoUser(), password: 'correct horse' }]) {
    this.#accounts = accounts;
  }

  /** Starts with `email` signed in (as if the login happened before the page loaded). */
  signIn(email = this.#accounts[0]?.user.email): this {
    const account = this.#accounts.find((a) => a.user.email === email);
    if (!account) throw new Error(`no account ${email}`);
    this.#session = account.user;
    return this;
  }

  /** Ends the session on the server side (cookie expired). */
  expireSession(): void {
    this.#session = null;
  }

  /** Serves `response` at `GET /api/v1/callusers/{callUserId}`. */
  addCallUser(callUserId: number, response: CallUserResponse): this {
    this.#callUsers.set(callUserId, response);
    return this;
  }

  /** Serves `numbers` at `GET /api/v1/callerids` (none by default). */
  setCallerNumbers(numbers: CallerNumber[]): this {
    this.#callerNumbers = numbers;
    return this;
  }

  /** The requests to `method path` (path without query). */
  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** Answers the next `method path` with `status` and `{ success: false, error }`. */
  refuseNext(method: string, path: string, status: number, error: string): this {
    this.#refusals.set(`${method} ${path}`, { status, error });
    return this;
  }

  /**
   * Holds every answer until the returned release is called (to test late answers). Requests
   * are still recorded when they arrive.
   */
  hold(): () => void {
    let release = () => {};
    this.#held = new Promise<void>((resolve) => {
      release = () => {
        this.#held = null;
        resolve();
      };
    });
    return release;
  }

  /** How many tokens were issued. */
  get issuedTokens(): number {
    return this.#tokens;
  }

  readonly fetch: FetchLike = async (url, init) => {
    const parsed = new URL(url, 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    this.requests.push({
      method,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers,
      credentials: init.credentials,
      body,
    });
    await (this.#held ?? Promise.resolve());
    return this.#route(method, parsed.pathname, headers, body, parsed.searchParams);
  };

  /** The user's call history (newest first), as GET /api/v1/mycalls pages it. */
  setHistory(rows: HistoryRow[]): this {
    this.#history = rows;
    return this;
  }

  /** The agents the transfer panel lists, each with the teams it is in. */
  setAgents(agents: ReadonlyArray<AgentRow & { team_ids?: number[] }>): this {
    this.#agents = agents;
    return this;
  }

  /** The account's teams. */
  setTeams(teams: TeamRow[]): this {
    this.#teams = teams;
    return this;
  }

  /** `GET /api/v1/users/paginated` as the server filters and pages it (10 a page). */
  #agentsPage(query: URLSearchParams): Response {
    const status = query.get('status') ?? 'online';
    const search = (query.get('search') ?? '').toLowerCase();
    const teamId = query.get('team_id') ? Number(query.get('team_id')) : null;
    const page = Number(query.get('page') ?? '1');
    const online = (a: AgentRow) => a.is_online_app || a.is_mobile;
    const rows = this.#agents.filter(
      (a) =>
        (status === 'all' ||
          (status === 'online' && online(a)) ||
          (status === 'on_call' && a.on_call_id !== null) ||
          (status === 'available' && a.status === 'available')) &&
        a.full_name.toLowerCase().includes(search) &&
        (teamId === null || (a.team_ids ?? []).includes(teamId)),
    );
    const perPage = 10;
    const lastPage = Math.max(1, Math.ceil(rows.length / perPage));
    return json(200, {
      data: rows.slice((page - 1) * perPage, page * perPage).map(({ team_ids: _, ...row }) => row),
      meta: { current_page: page, last_page: lastPage, per_page: perPage, total: rows.length },
    });
  }

  #route(
    method: string,
    path: string,
    headers: Headers,
    body: unknown,
    query: URLSearchParams = new URLSearchParams(),
  ): Response {
    const refusal = this.#refusals.get(`${method} ${path}`);
    if (refusal) {
      this.#refusals.delete(`${method} ${path}`);
      return json(refusal.status, { success: false, error: refusal.error });
    }
    if (method === 'POST' && path === '/api/v1/user/login') return this.#login(body);
    if (method === 'GET' && path === '/api/v1/login/options') {
      return json(200, { success: true, sso: this.sso });
    }
    if (method === 'GET' && path === '/api/v1/user') {
      if (!this.#session) return json(401, { error: 'Unauthenticated.' });
      return json(200, {
        success: true,
        user: this.#session,
        csrf_token: this.#session.csrf_token,
        realtime: demoRealtime(this.#session),
      });
    }
    const user = this.#session;
    if (!user) return json(401, { error: 'Unauthenticated.' });
    if (method !== 'GET' && headers.get('X-CSRF-TOKEN') !== user.csrf_token) {
      return json(419, { error: 'CSRF token mismatch.' });
    }
    if (method === 'POST' && path === '/api/v1/user/logout') {
      this.#session = null;
      return json(200, { success: true });
    }
    if (method === 'GET' && path === '/api/v1/twilio/token2') {
      this.#tokens += 1;
      return json(200, { token: `${TOKEN_PREFIX}${this.#tokens}` });
    }
    const callUser = /^\/api\/v1\/callusers\/(\d+)$/.exec(path);
    if (method === 'GET' && callUser) {
      const found = this.#callUsers.get(Number(callUser[1]));
      return found ? json(200, found) : json(404, { error: 'Call not found.' });
    }
    const webrtc = /^\/apps\/webrtc\/(\d+)\/(reject|disposition|disposition2|sms)$/.exec(path);
    if (method === 'POST' && webrtc) {
      if (!this.#knowsCall(Number(webrtc[1]))) return json(404, { error: 'Call not found.' });
      const schema = {
        reject: null,
        disposition: DispositionBody,
        disposition2: Disposition2Body,
        sms: SmsBody,
      }[webrtc[2] as 'reject' | 'disposition' | 'disposition2' | 'sms'];
      const parsed = schema?.safeParse(body);
      if (parsed && !parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      if (webrtc[2] === 'sms' && !user.permissions.includes('app-sms')) {
        return json(403, { error: 'You do not have permission to send an SMS.' });
      }
      return json(200, { success: true });
    }
    if (method === 'POST' && path === '/api/v1/calls/twilio') {
      if (!user.permissions.includes('app-retry')) {
        return json(403, { error: 'You do not have permission to retry calls.' });
      }
      const parsed = RetryCallBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      return json(200, { success: true, call: { id: 9500, status: 'ringing', agent_id: user.id } });
    }
    if (method === 'POST' && path === '/twilio/debug/webrtc') {
      const parsed = DebugWebrtcBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      return json(200, { success: true });
    }
    if (method === 'PUT' && path === '/api/v1/user/settings') {
      if (!user.permissions.includes('app-autoaccept')) {
        return json(403, { error: 'You do not have permission to change Auto Accept.' });
      }
      const parsed = UserSettingsBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      this.#session = { ...user, autoaccept: parsed.data.autoaccept };
      return json(200, { success: true, autoaccept: parsed.data.autoaccept });
    }
    if (method === 'PUT' && path === '/api/v1/user/status') {
      const parsed = UserStatusBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      const isAvailable = parsed.data.status === 'available';
      // On a call, wrapping up or offline, the agent stays there; the choice applies when free.
      const free = user.status === 'available' || user.status === 'away';
      const status = free ? parsed.data.status : user.status;
      this.#session = { ...user, status, is_available: isAvailable };
      const answer: UserStatusResponse = {
        success: true,
        status,
        is_available: isAvailable,
        wrap_up_until: null,
      };
      return json(200, answer);
    }
    if (method === 'POST' && path === '/apps/webrtc/check') {
      return this.leadWaiting
        ? json(200, { success: true, call: { id: 9100, status: 'ringing' } })
        : json(200, { success: false, error: 'No leads waiting.' });
    }
    if (method === 'POST' && path === '/api/v1/user/wrap-up/done') {
      return json(200, {
        success: true,
        status: 'available',
        is_available: true,
        wrap_up_until: null,
      });
    }
    const hold = /^\/api\/v1\/calls\/(\d+)\/(hold|unhold)$/.exec(path);
    if (method === 'PUT' && hold) {
      if (!this.#knowsCall(Number(hold[1]))) return json(404, { error: 'Call not found.' });
      return json(200, { success: true, held: hold[2] === 'hold' });
    }
    if (method === 'GET' && path === '/api/v1/users/paginated') return this.#agentsPage(query);
    if (method === 'GET' && path === '/api/v1/teams') return json(200, { data: this.#teams });
    if (method === 'GET' && path === '/api/v1/mycalls') {
      const limit = Number(query.get('limit') ?? '5');
      const page = Number(query.get('page') ?? '1');
      return json(200, {
        data: this.#history.slice((page - 1) * limit, page * limit),
        meta: {
          current_page: page,
          last_page: Math.max(1, Math.ceil(this.#history.length / limit)),
          per_page: limit,
          total: this.#history.length,
        },
      });
    }
    const transfer = /^\/api\/v1\/calls\/(\d+)\/transfer$/.exec(path);
    if (method === 'POST' && transfer) {
      if (!this.#knowsCall(Number(transfer[1]))) return json(404, { error: 'Call not found.' });
      const parsed = TransferBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      return json(200, { success: true });
    }
    if (method === 'POST' && path === '/api/v1/calls/conference') {
      const parsed = ConferenceBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      return json(200, { success: true });
    }
    const supervise = /^\/api\/v1\/calls\/(\d+)\/(listen|whisper|barge)$/.exec(path);
    if (method === 'POST' && supervise) {
      const callId = Number(supervise[1]);
      const onCall = this.#agents.some((a) => a.on_call_id === callId);
      if (!onCall && !this.#knowsCall(callId)) return json(404, { error: 'Call not found.' });
      return json(200, { success: true });
    }
    if (method === 'POST' && path === '/api/v1/calls/conferencelead') {
      const parsed = ConferenceLeadBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      if (!this.#knowsCall(parsed.data.call_id)) return json(404, { error: 'Call not found.' });
      const { fname, lname, phone_number } = parsed.data;
      const name = [fname, lname].filter(Boolean).join(' ');
      const lead = demoLead({
        id: 600 + this.addedLeads.length,
        fname,
        lname,
        name,
        label: name || formatPhone(phone_number),
        phone_number,
        phone_number_formatted: formatPhone(phone_number),
        company: null,
        email: null,
        category: null,
      });
      this.addedLeads.push(lead);
      return json(200, { success: true, outcome: 'answered', lead });
    }
    if (method === 'GET' && path === '/api/v1/callerids') {
      return json(200, { data: this.#callerNumbers });
    }
    if (method === 'POST' && path === '/api/v1/calls/twilio/outbound') {
      return this.#placeOutbound(user, body);
    }
    if (method === 'POST' && path === '/api/v1/network-test') {
      const parsed = NetworkTestBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      const testId = `NT${String(this.networkTests.length + 1).padStart(32, '0')}`;
      const answer: NetworkTestResponse = {
        success: true,
        test_id: testId,
        params: { network_test: testId },
        max_seconds: 15,
        connect_within_seconds: 15,
      };
      this.networkTests.push(answer);
      return json(200, answer);
    }
    if (method === 'POST' && path === '/api/v1/notes') {
      const parsed = NoteBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      if (!this.#knowsCall(parsed.data.call_id)) return json(404, { error: 'Call not found.' });
      return json(200, { success: true });
    }
    return json(404, { error: `No route for ${method} ${path}.` });
  }

  #login(body: unknown): Response {
    const parsed = LoginBody.safeParse(body);
    if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
    const account = this.#accounts.find(
      (a) => a.user.email === parsed.data.email && a.password === parsed.data.password,
    );
    if (!account) return json(200, { success: false, error: LOGIN_FAILED_MESSAGE });
    this.#session = account.user;
    return json(200, { success: true });
  }

  #placeOutbound(user: User, body: unknown): Response {
    const parsed = OutboundCallBody.safeParse(body);
    if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
    const request = parsed.data;
    if (request.agent_id !== user.id) {
      return json(422, { error: 'The agent id must be your own user id.' });
    }
    if (
      request.caller_id !== undefined &&
      !this.#callerNumbers.some((n) => n.id === request.caller_id)
    ) {
      return json(422, { error: 'The caller id is not one of your caller numbers.' });
    }
    const n = this.placedCalls.length;
    const name = [request.fname, request.lname].filter(Boolean).join(' ');
    const lead = demoLead({
      id: 400 + n,
      fname: request.fname,
      lname: request.lname,
      name,
      label: name || formatPhone(request.phone_number),
      phone_number: request.phone_number,
      phone_number_formatted: formatPhone(request.phone_number),
      company: null,
      email: null,
      category: null,
    });
    const callUser = demoCallUser({
      call: { id: FIRST_OUTBOUND_CALL_ID + n, lead, lead_id: lead.id, status: 'queued' },
    });
    callUser.call.phone_number = request.phone_number;
    const callUserId = FIRST_OUTBOUND_CALL_USER_ID + n;
    this.#callUsers.set(callUserId, callUser);
    const answer: OutboundCallResponse = {
      success: true,
      call_user_id: callUserId,
      call: { id: callUser.call.id, lead, phone_number: request.phone_number },
    };
    this.placedCalls.push({ body: request, answer });
    return json(200, answer);
  }

  #knowsCall(callId: number): boolean {
    return [...this.#callUsers.values()].some((c) => c.call.id === callId);
  }
}

function json(status: number, payload: unknown): Response {
  return new Response(JSON.stringify(payload), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}
