/**
 * The shared in-memory fake of the server endpoints the console uses (spec section 7), for tests.
 * `fakeApi.fetch` is a {@link FetchLike}: it checks the session cookie, the CSRF header and the
 * bodies (with the contracts' zod schemas) like the real server, records every request, and
 * answers with real `Response`s. Its answers are held to the real server's, status, schema and
 * shape, by the contract test (`contract/fake-api.contract.test.ts`): change them together.
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
  SOFTPHONE_SOUND_NAMES,
  formatPhone,
  type Call,
  type CallType,
  type CallUserResponse,
  type CallerNumber,
  type Lead,
  type NetworkTestResponse,
  type OutboundCallResponse,
  type RealtimeSettings,
  type RetryCallResponse,
  type SoftphoneSettings,
  type Tag,
  type User,
  type UserStatusResponse,
} from '@leadline/contracts';
import type { FetchLike } from '../platform/platform';

/** The server's answer to a request without a session (401, `apps/server/src/http/errors.ts`). */
const UNAUTHENTICATED = { success: false, error: 'Unauthenticated.' } as const;

/** The server's answer to a write without the session's CSRF token (403). */
const CSRF_MISMATCH = {
  error: 'CSRF token mismatch: send the csrf_token of GET /api/v1/user as X-CSRF-TOKEN.',
} as const;

/** The server's refusal (403) of a request the user lacks `permission` for, to do `action`. */
function forbidden(permission: string, action: string): Response {
  return json(403, {
    success: false,
    error: `You need the ${permission} permission to ${action}.`,
  });
}

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

/**
 * Routes a test adds to the fake (the admin screens' fake, `fake-admin-api.ts`): answers a
 * signed-in request with a CSRF-checked write, or null when the route is not its own.
 */
export type FakeRoutes = (request: {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly user: User;
}) => Response | null;

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
    role: 'agent',
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

/**
 * The `softphone` block of the fake's `GET /api/v1/user`, as the embedded server sends it: our
 * SDK and the product's own sound files.
 */
export function demoSoftphone(): SoftphoneSettings {
  return {
    sdk: 'leadline',
    sounds: Object.fromEntries(
      SOFTPHONE_SOUND_NAMES.map((name) => [name, `/sounds/${name}.wav`]),
    ) as SoftphoneSettings['sounds'],
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

/** A tag of a call's profile (Tags & Stages). */
export function demoTag(overrides: Partial<Tag> = {}): Tag {
  return { id: 1, key: 'hot', name: 'Hot lead', color: '#d93025', ...overrides };
}

/**
 * A call-user answer for a call of `type`; `call` overrides fields of the call. As the server
 * does, `phone_number_formatted` follows `phone_number` unless given.
 */
export function demoCallUser(
  options: { type?: CallType; autoaccept?: boolean; call?: Partial<Call> } = {},
): CallUserResponse {
  const type = options.type ?? 'lead';
  const lead = demoLead();
  const call: Call = {
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
    agent_name: null,
    ...options.call,
  };
  if (options.call?.phone_number_formatted === undefined) {
    call.phone_number_formatted = call.phone_number ? formatPhone(call.phone_number) : null;
  }
  return { type, autoaccept: options.autoaccept ?? false, call };
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

/** A caller number of the New Call panel's list (`GET /api/v1/callerids`). */
export function demoCallerNumber(overrides: Partial<CallerNumber> = {}): CallerNumber {
  return { id: 41, name: 'Sales line', phone_number_formatted: '+1 555 010 0100', ...overrides };
}

/** A team of the transfer panel's list (`GET /api/v1/teams`): someone in it can take a call. */
export function demoTeam(overrides: Partial<TeamRow> = {}): TeamRow {
  return { id: 51, name: 'Sales', is_available: true, ...overrides };
}

/**
 * A row of the call history (`GET /api/v1/mycalls`): a completed, answered call with the demo
 * lead, which the user may retry, tagged and with a note.
 */
export function demoHistoryRow(overrides: Partial<HistoryRow> = {}): HistoryRow {
  const lead = demoLead();
  return {
    id: 9001,
    direction: 'outbound',
    type: 'lead',
    recording_url: '/api/v1/calls/9001/recording',
    created_at: '2026-11-22T10:04:00.000Z',
    time_formatted: 'Nov 22, 2026, 10:04 AM',
    status: 'completed',
    status_display: '01:05',
    reason: null,
    seconds: 65,
    duration: '01:05',
    retry: true,
    lead_retry: { fname: lead.fname, lname: lead.lname, phone_number: lead.phone_number },
    disposition: 'contacted',
    stage: { key: 'hot', name: 'Hot lead', color: '#d93025' },
    notes: [{ id: 1, content: 'Wants a quote.', created_at: '2026-11-22T10:06:00.000Z' }],
    user: { name: 'Dana Whitfield' },
    lead: {
      fname: lead.fname,
      lname: lead.lname,
      label: lead.label,
      phone_number: lead.phone_number,
      phone_number_formatted: lead.phone_number_formatted,
    },
    phone_number_formatted: lead.phone_number_formatted,
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
  #notes = 0;
  #held: Promise<void> | null = null;
  readonly #refusals = new Map<string, { status: number; error: string }>();
  #callerNumbers: CallerNumber[] = [];
  #agents: ReadonlyArray<AgentRow & { team_ids?: number[] }> = [];
  #history: HistoryRow[] = [];
  #teams: TeamRow[] = [];
  readonly #extraRoutes: FakeRoutes[] = [];
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

  /**
   * The profile of the calls New Call places (on the server, the caller number's or the
   * account's default profile): the demo call's, which has no tags, unless a test sets one.
   */
  outboundProfile: Call['profile'] = demoCallUser().call.profile;

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

  /** Answers `routes` too (after the console's own routes, before the 404). */
  addRoutes(routes: FakeRoutes): this {
    this.#extraRoutes.push(routes);
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
      if (!this.#session) return json(401, UNAUTHENTICATED);
      return json(200, {
        success: true,
        user: this.#session,
        csrf_token: this.#session.csrf_token,
        softphone: demoSoftphone(),
        realtime: demoRealtime(this.#session),
      });
    }
    const user = this.#session;
    if (!user) return json(401, UNAUTHENTICATED);
    if (method !== 'GET' && headers.get('X-CSRF-TOKEN') !== user.csrf_token) {
      return json(403, CSRF_MISMATCH);
    }
    if (
      method === 'POST' &&
      (path === '/api/v1/user/logout' || path === '/api/v1/user/logout-everywhere')
    ) {
      // One browser's session is all the fake has: everywhere ends the same one.
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
      // The server checks the permission first (`calls-routes.ts`).
      if (webrtc[2] === 'sms' && !user.permissions.includes('app-sms')) {
        return forbidden('app-sms', 'send an SMS');
      }
      const callId = Number(webrtc[1]);
      if (!this.#knowsCall(callId)) return json(404, { error: 'Call not found.' });
      const schema = {
        reject: null,
        disposition: DispositionBody,
        disposition2: Disposition2Body,
        sms: SmsBody,
      }[webrtc[2] as 'reject' | 'disposition' | 'disposition2' | 'sms'];
      const parsed = schema?.safeParse(body);
      if (parsed && !parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      // Ignore: the server answers what became of the call (here: nobody else took it).
      if (webrtc[2] === 'reject') {
        return json(200, { success: true, call: { id: callId, status: 'missed' } });
      }
      return json(200, { success: true });
    }
    if (method === 'POST' && path === '/api/v1/calls/twilio') {
      if (!user.permissions.includes('app-retry')) return forbidden('app-retry', 'retry calls');
      const parsed = RetryCallBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      const { fname, lname, phone_number } = parsed.data;
      const answer: RetryCallResponse = {
        success: true,
        call: {
          id: 9500,
          status: 'ringing',
          agent_id: user.id,
          lead: newLead(500, { fname, lname, phone_number }),
        },
      };
      return json(200, answer);
    }
    if (method === 'POST' && path === '/twilio/debug/webrtc') {
      const parsed = DebugWebrtcBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      return json(200, { success: true });
    }
    if (method === 'PUT' && path === '/api/v1/user/settings') {
      if (!user.permissions.includes('app-autoaccept')) {
        return forbidden('app-autoaccept', 'change Auto Accept');
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
      const mode = supervise[2] as 'listen' | 'whisper' | 'barge';
      if (!user.permissions.includes(mode)) {
        return forbidden(mode, `${mode} ${mode === 'barge' ? 'into' : 'to'} calls`);
      }
      const callId = Number(supervise[1]);
      const onCall = this.#agents.some((a) => a.on_call_id === callId);
      if (!onCall && !this.#knowsCall(callId)) return json(404, { error: 'Call not found.' });
      return json(200, { success: true });
    }
    if (method === 'POST' && path === '/api/v1/calls/conferencelead') {
      const parsed = ConferenceLeadBody.safeParse(body);
      if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
      if (!this.#knowsCall(parsed.data.call_id)) return json(404, { error: 'Call not found.' });
      const { call_id: callId, fname, lname, phone_number } = parsed.data;
      const lead = newLead(600 + this.addedLeads.length, { fname, lname, phone_number });
      this.addedLeads.push(lead);
      // The call as it is now, with the lead that answered and joined it.
      const call = this.#updateCall(callId, { lead, lead_id: lead.id });
      return json(200, { success: true, outcome: 'answered', call, lead });
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
      this.#notes += 1;
      return json(201, { success: true, note: { id: this.#notes } });
    }
    for (const routes of this.#extraRoutes) {
      const answer = routes({ method, path, query, body, user });
      if (answer) return answer;
    }
    return json(404, { error: `No route for ${method} ${path}.` });
  }

  #login(body: unknown): Response {
    const parsed = LoginBody.safeParse(body);
    if (!parsed.success) return json(422, { error: parsed.error.issues[0]?.message });
    const account = this.#accounts.find(
      (a) => a.user.email === parsed.data.email && a.password === parsed.data.password,
    );
    if (!account) return json(401, { success: false, error: LOGIN_FAILED_MESSAGE });
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
    const lead = newLead(400 + n, request);
    const callerNumber =
      this.#callerNumbers.find((number) => number.id === request.caller_id) ??
      this.#callerNumbers[0];
    // The whole call resource, as GET /api/v1/callusers/{id} would answer it: its profile is
    // what Tags & Stages shows after the call.
    const { call } = demoCallUser({
      call: {
        id: FIRST_OUTBOUND_CALL_ID + n,
        lead,
        lead_id: lead.id,
        status: 'queued',
        account_id: user.account_id,
        profile_id: this.outboundProfile?.id ?? null,
        profile: this.outboundProfile,
        phone_number: request.phone_number,
        agent_name: user.full_name,
        ...(callerNumber
          ? {
              number: {
                name: callerNumber.name,
                account_id: user.account_id,
                phone_number_formatted: callerNumber.phone_number_formatted,
              },
            }
          : {}),
      },
    });
    const callUserId = FIRST_OUTBOUND_CALL_USER_ID + n;
    this.#callUsers.set(callUserId, { type: 'lead', autoaccept: false, call });
    const answer: OutboundCallResponse = {
      success: true,
      call_user_id: callUserId,
      call: { ...call, lead, phone_number: request.phone_number },
    };
    this.placedCalls.push({ body: request, answer });
    return json(200, answer);
  }

  /** Changes the call `callId` of every call user that has it; answers the call as it is now. */
  #updateCall(callId: number, change: Partial<Call>): Call | undefined {
    let updated: Call | undefined;
    for (const [id, callUser] of this.#callUsers) {
      if (callUser.call.id !== callId) continue;
      updated = { ...callUser.call, ...change };
      this.#callUsers.set(id, { ...callUser, call: updated });
    }
    return updated;
  }

  #knowsCall(callId: number): boolean {
    return [...this.#callUsers.values()].some((c) => c.call.id === callId);
  }
}

/** A lead the server creates for a number (New Call, Retry, a lead added to a call). */
function newLead(id: number, person: { fname: string; lname: string; phone_number: string }): Lead {
  const name = [person.fname, person.lname].filter(Boolean).join(' ');
  return demoLead({
    id,
    fname: person.fname,
    lname: person.lname,
    name,
    label: name || formatPhone(person.phone_number),
    phone_number: person.phone_number,
    phone_number_formatted: formatPhone(person.phone_number),
    company: null,
    email: null,
    category: null,
  });
}

function json(status: number, payload: unknown): Response {
  return new Response(JSON.stringify(payload), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}
