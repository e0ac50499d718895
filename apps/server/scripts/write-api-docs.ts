/**
 * Writes docs/api.md: every endpoint with what it does and a real example exchange, recorded
 * by running the example against the application on a fresh seeded database, and the
 * providers' webhooks (described only: they are mounted with `TELEPHONY_PROVIDER=twilio`). The
 * page is formatted with the repository's Prettier settings before it is written, so the file
 * is final: edit this script, never docs/api.md.
 *
 *   npx tsx apps/server/scripts/write-api-docs.ts
 *
 * Two regenerations differ only where the application's answers did: the recording runs on one
 * clock (below), and secrets that change per run (session cookies, CSRF tokens, access tokens,
 * call sids) are written as placeholders.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { format, resolveConfig } from 'prettier';
import { OUTBOUND_CONNECT_TIMEOUT_MS } from '../src/calls/call-flows';
import { callUsers, calls } from '../src/db/schema';
import { startFixture, type Fixture } from '../src/test-support/fixture';
import { ManualClock } from '../src/test-support/manual-clock';
import { TEST_API_KEY } from '../src/test-support/test-app';
import { LIVE_CALL_STATUSES } from '../src/users/agents-repo';

/**
 * One clock for the whole recording. The fixture's flows run on its hand-moved clock, while the
 * database (`created_at` defaults) and the routes read the wall clock; recorded as they are, the
 * examples' times would change every run and mix the two (a call answered a moment ago showing
 * days of `seconds_since_started_at`). So the process's `Date` reads the fixture's clock: until
 * the fixture exists its start, then the clock itself. Only `new Date()` and `Date.now()` are
 * affected; dates built from a value are untouched.
 */
const RealDate = Date;
const start = new ManualClock().now().getTime();
let wallClock = (): number => start;
globalThis.Date = new Proxy(RealDate, {
  construct: (target, args: unknown[], newTarget: NewableFunction) =>
    Reflect.construct(target, args.length === 0 ? [wallClock()] : args, newTarget) as object,
  get: (target, property, receiver) =>
    property === 'now' ? () => wallClock() : (Reflect.get(target, property, receiver) as unknown),
});

/** An endpoint as the page describes it. */
interface Endpoint {
  method: string;
  path: string;
  auth: string;
  what: string;
}

/** An endpoint of the application, with the example exchange recorded for it. */
interface Doc extends Endpoint {
  example: (f: Fixture) => Promise<InjectOptions>;
  after?: (f: Fixture, body: unknown) => Promise<void>;
}

const session = (f: Fixture, csrf = true) => f.auth(f.agent1, csrf);

const DOCS: Doc[] = [
  {
    method: 'POST',
    path: '/api/v1/user/login',
    auth: 'public',
    what: "Signs in with e-mail and password; sets the `leadline_session` cookie (httpOnly, SameSite=Lax, Secure behind TLS) and starts a new session. Failures: 422 for a malformed body, 401 `{ success: false, error: 'Your login credentials are invalid.' }`, 403 `{ success: false, error: 'Your account signs in with single sign-on only. Use Log in with Google.' }` for a user of an account whose policy is single sign-on only (`sso_only`; the password is not checked), 429 `{ success: false, error: 'Too many login attempts. Try again in 15 minutes.' }` (with `Retry-After`) to an address with 10 failures for that e-mail in 15 minutes, for 15 minutes, whatever the password. Failures of one e-mail from anywhere only slow its next attempts (250 ms after the 3rd, doubling up to 5 s), so the right password from an address without failures always gets in (`docs/deployment.md`). A password hash of an older cost is replaced on success. The console reloads the page on success.",
    example: async () => ({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'agent1@example.com', password: 'leadline-demo' },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/login/options',
    auth: 'public',
    what: "What the login view offers: `sso` says whether 'Log in with Google' (single sign-on through the configured OpenID Connect provider, `docs/deployment.md`) is configured. `GET /apps/workos/login/google` starts the sign-on (a redirect to the provider) and `GET /apps/workos/callback` finishes it (a session, then a redirect to `/`); either one that fails redirects to `/?sso_error=<code>`, whose sentence the login view shows (`SSO_ERRORS` in the contracts), and without a provider both redirect with `not_configured`.",
    example: async () => ({ method: 'GET', url: '/api/v1/login/options' }),
  },
  {
    method: 'GET',
    path: '/api/v1/user',
    auth: 'session',
    what: "The signed-in user with the account settings the console needs (the spec's account ids as settings), the `csrf_token` every later mutating request sends as `X-CSRF-TOKEN`, `softphone`: which SDK the console loads (`VOICE_SDK`: `leadline` or `twilio`) and the product's sound URLs, and `realtime`: what the console passes to pusher-js (`key`, `options` with the same `X-CSRF-TOKEN` for channel auth, and the two `channels` it subscribes to; `docs/realtime.md`). `user.status` is where the agent is now, as `PUT /api/v1/user/status` answers. 401 without a session (the console then shows the login view). The `time` query is a cache-buster and ignored.",
    example: async (f) => ({
      method: 'GET',
      url: '/api/v1/user?time=1795356838642',
      headers: session(f, false),
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/user/logout',
    auth: 'session + CSRF',
    what: "Ends the session and clears the cookie. The sockets this login let in close at once, on every instance: the softphone's signalling socket gets `error {code: 31204, message: 'Signed out: this session has ended.'}` (a call it carries ends at once, `hangup` with the same error) and the console's realtime socket is closed with 4009. The user's other logins keep theirs. A login that ends without a logout (expired, the user removed) loses its sockets within 5 s (`SOCKET_SWEEP_MS`, `apps/server/src/auth/socket-access.ts`).",
    example: async (f) => {
      await f.renew(f.agent2);
      return { method: 'POST', url: '/api/v1/user/logout', headers: f.auth(f.agent2) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/user/logout-everywhere',
    auth: 'session + CSRF',
    what: "Not in the spec's table: the profile menu's Log out everywhere. Ends every session of the user (this browser's and every other) and clears the cookie; the sockets those logins let in close at once, on every instance, as after a logout. Other users' sessions stay.",
    example: async (f) => {
      await f.renew(f.agent2);
      return {
        method: 'POST',
        url: '/api/v1/user/logout-everywhere',
        headers: f.auth(f.agent2),
      };
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/user/settings',
    auth: 'session + CSRF, permission app-autoaccept',
    what: "Not in the spec's table: the Settings panel's Auto Accept toggle. Incoming calls rung to the user are then answered automatically (except on a profile with `auto_answer: false`, seeded as profile 7703).",
    example: async (f) => ({
      method: 'PUT',
      url: '/api/v1/user/settings',
      headers: session(f),
      payload: { autoaccept: false },
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/twilio/token2',
    auth: 'session',
    what: 'An access token for the softphone: a JWT shaped like a Twilio access token (`cty: twilio-fpa;v=1`, `grants.identity` = the user id), lifetime `TOKEN_TTL_SECONDS`. With `TELEPHONY_PROVIDER=twilio` it is a real Twilio Voice access token signed with the API key (`iss` the key, `sub` the account, a Voice grant with incoming allowed and the TwiML App for outgoing calls).',
    example: async (f) => ({
      method: 'GET',
      url: '/api/v1/twilio/token2?time=1',
      headers: session(f, false),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/mycalls',
    auth: 'session',
    what: 'The user\'s call history, newest first: calls they took or were rung for. `limit` (1–50, default 5) and `page`. Rows as the spec\'s "Call history row" plus `status_display` and `reason` computed as section 4 says (missed / busy / offline / in-progress / ringing, else the duration or "No Answer"; reasons "No agents answered", "Outside availability hours", "All agents busy"), `retry` (the Retry button applies: a lead and the app-retry permission) and `lead_retry` (its payload). `created_at` is the ISO time (UTC); `time_formatted` is the same time written out in UTC and saying so ("Nov 25, 2026, 6:40 PM UTC"): the server does not know the reader\'s zone, so the console shows `created_at` in the browser\'s zone instead (a call of today as its time, older ones with the date).',
    example: async (f) => {
      const { call } = await f.liveCall(f.agent1, '+15550100042');
      f.clock.advance(83_000);
      await f.endCall(call);
      await f.recordCall(call);
      return { method: 'GET', url: '/api/v1/mycalls?limit=5&page=1', headers: session(f, false) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/calls/{id}/recording',
    auth: 'session',
    what: "The call's recording (both parties mixed, WAV), the `recording_url` of its history row once the engine has written it. Its agent and the users who joined the call may listen, and supervisors (listen, whisper or barge) every call of the account; anyone else of the account gets 403 `{ success: false, error: 'You can play only the recordings of calls you took part in.' }` (and their history shows no `recording_url` for it). Range requests are answered 206 so a player can seek. 404 `{ error: 'Recording not found.' }` while there is none, for another account's call, and for a file that is not under the data folder (`DATA_DIR`); with Twilio the recording is streamed from Twilio and no local file is ever sent.",
    example: async (f) => {
      const { call } = await f.liveCall(f.agent1, '+15550100046');
      await f.endCall(call);
      await f.recordCall(call);
      return {
        method: 'GET',
        url: `/api/v1/calls/${call.id}/recording`,
        headers: session(f, false),
      };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/users/paginated',
    auth: 'session',
    what: 'Agents of the account (the user left out) for the transfer and conference panels, 10 per page by name. `status`: `online` (default: online in the app or on mobile), `all`, `available` (available, online, not on a call), `on_call`; `search` on the name (case-insensitive, contains), `team_id`. `on_call_id` is the call the agent is on (the id listen / whisper / barge take).',
    example: async (f) => ({
      method: 'GET',
      url: '/api/v1/users/paginated?page=1&status=online&search=&team_id=',
      headers: session(f, false),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/teams',
    auth: 'session',
    what: "The account's teams; `is_available`: some member could take a transfer now (available, not on a call, online — in the app if app-only).",
    example: async (f) => ({ method: 'GET', url: '/api/v1/teams', headers: session(f, false) }),
  },
  {
    method: 'GET',
    path: '/api/v1/callerids',
    auth: 'session',
    what: "The account's caller numbers for the New Call panel's Caller ID selector.",
    example: async (f) => ({ method: 'GET', url: '/api/v1/callerids', headers: session(f, false) }),
  },
  {
    method: 'POST',
    path: '/api/v1/leads',
    auth: 'API key (`Authorization: Bearer <key>`)',
    what: "Lead intake: stores the lead, creates its call and offers it to one eligible agent at a time, longest idle first (online, available, not on or rung for a call, not wrapping up, in the profile's team): `From: client:<call_user_id>`, banner \"Incoming Lead!\". Ignore, reject or the ring timeout move it to the next agent. `call.status` says what happened: `ringing` (with `agent_id`), `queued` (nobody can take it now: `reason` `all-agents-busy` or `no-agents-online`; it is offered as soon as an agent is free, until the profile's queue timeout), or `offline` with `reason` `outside-hours` (the profile's availability hours). Unknown fields are ignored; the phone number is normalised to E.164.",
    example: async () => ({
      method: 'POST',
      url: '/api/v1/leads',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: {
        fname: 'Jordan',
        lname: 'Miles',
        phone_number: '(555) 010-0042',
        email: 'jordan@example.net',
        company: 'Miles Roofing',
        category: 'Residential',
        source_id: '8812',
      },
    }),
    after: endAll,
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/inbound',
    auth: 'API key (`Authorization: Bearer <key>`); embedded mode only',
    what: "The sandbox phone network's inbound call: a virtual caller `from` dials `to`, one of the API key's account's caller numbers. The call is stored as `inbound`, the caller is on the line at once (a voice), and it is offered like a lead, with the number's name as the banner. `call.status`: `ringing` (with `agent_id`), or how it ended when nobody could take it (`busy`, `offline`; a caller does not wait in the queue). Both numbers are normalised to E.164 (422 naming the field); a number that is not the account's is 404. Not served in production mode.",
    example: async () => ({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: { from: '+15550100777', to: '+15550142000' },
    }),
    after: async (f) => endAll(f),
  },
  {
    method: 'GET',
    path: '/sounds/{name}.wav',
    auth: 'public',
    what: "The softphone's sounds, made by the product so neither SDK fetches a CDN: `incoming` (a 440 + 480 Hz ring, 2 s on, 4 s off, looped by the SDK), `outgoing`, `disconnect`, and `dtmf0`…`dtmf9`, `dtmfs` (*), `dtmfh` (#) as DTMF dual tones. `GET /api/v1/user` lists their URLs in `softphone.sounds`. Unknown names are 404.",
    example: async () => ({ method: 'GET', url: '/sounds/dtmf5.wav' }),
  },
  {
    method: 'GET',
    path: '/api/v1/callusers/{id}',
    auth: 'session',
    what: "The call behind an incoming ring: the console strips `client:` from the ring's `From` and loads this. Another user's call user is 404.",
    example: async (f) => {
      const { callUserId } = await f.liveCall(f.agent1, '+15550100043');
      return { method: 'GET', url: `/api/v1/callusers/${callUserId}`, headers: session(f, false) };
    },
  },
  {
    method: 'POST',
    path: '/apps/webrtc/{id}/reject',
    auth: 'session + CSRF',
    what: 'The Ignore button: the user stops being rung for call `{id}` and the call moves on: to the next eligible agent, back to the queue, or, when everyone was tried, `missed` (`No agents answered`). The answer says where it went (`call.status`). 409 `This call is not ringing for you.` when it does not ring for the user.',
    example: async (f) => {
      await endAll(f);
      const { call } = await f.t.flows.retry(await f.userOf(f.agent1), {
        fname: 'Ana',
        lname: '',
        phone_number: '+15550100044',
      });
      return { method: 'POST', url: `/apps/webrtc/${call.id}/reject`, headers: session(f) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/calls/conference',
    auth: 'session + CSRF',
    what: "Adds an agent to the user's live call; the agent is rung (\"Incoming Conference!\"). The target must be available and online in the app or on mobile (409 `{ success: false, error: 'This agent is not available.' }`); 409 when the user is on no call.",
    example: async (f) => {
      await f.liveCall(f.agent1, '+15550100045');
      return {
        method: 'POST',
        url: '/api/v1/calls/conference',
        headers: session(f),
        payload: { user_id: f.agent2.userId },
      };
    },
    after: endAll,
  },
  {
    method: 'POST',
    path: '/api/v1/calls/{id}/transfer',
    auth: 'session + CSRF',
    what: '`{ user_id, call_user_id }` or `{ team_id, call_user_id }` (the caller\'s own call user of call `{id}`): rings the agent (or the longest-idle transferable member of the team) with "Incoming Transfer!"; when they answer they take over and the caller leaves. Targets must not be on a call and be available (and, if app-only, online in the app).',
    example: async (f) => {
      const { call, callUserId } = await f.liveCall(f.agent1, '+15550100046');
      return {
        method: 'POST',
        url: `/api/v1/calls/${call.id}/transfer`,
        headers: session(f),
        payload: { user_id: f.agent2.userId, call_user_id: callUserId },
      };
    },
    after: endAll,
  },
  ...['listen', 'whisper', 'barge'].map((mode): Doc => ({
    method: 'POST',
    path: `/api/v1/calls/{id}/${mode}`,
    auth: `session + CSRF, permission ${mode}`,
    what: `A supervisor ${mode === 'listen' ? 'listens to' : mode === 'whisper' ? 'whispers to the agent of' : 'barges into'} call \`{id}\` (an agent's \`on_call_id\`): the supervisor is rung (auto-answered, type \`${mode}\`); already in the call, the mode changes. ${mode === 'listen' ? 'The supervisor hears everyone and is heard by no one.' : mode === 'whisper' ? 'Heard by the agent only, never by the lead.' : 'Heard by everyone.'}`,
    example: async (f) => {
      await endAll(f);
      const { call } = await f.liveCall(f.agent2, `+1555010005${mode.length}`);
      return {
        method: 'POST',
        url: `/api/v1/calls/${call.id}/${mode}`,
        headers: f.auth(f.supervisor),
      };
    },
    after: endAll,
  })),
  ...['hold', 'unhold'].map((path): Doc => ({
    method: 'PUT',
    path: `/api/v1/calls/{id}/${path}`,
    auth: 'session + CSRF',
    what:
      path === 'hold'
        ? "Not shown in the spec: puts the lead of the user's call `{id}` on hold (the lead hears hold music; agents and lead stop hearing each other). 409 when the user is not on that call."
        : 'Takes the lead off hold.',
    example: async (f) => {
      await endAll(f);
      const { call } = await f.liveCall(f.agent1, `+1555010006${path.length}`);
      return { method: 'PUT', url: `/api/v1/calls/${call.id}/${path}`, headers: session(f) };
    },
    after: endAll,
  })),
  {
    method: 'POST',
    path: '/apps/webrtc/{id}/disposition',
    auth: 'session + CSRF',
    what: 'Records the Call Result of call `{id}`: `status` contacted, voicemail, missed or removed. Takes an `Idempotency-Key` (see Idempotency keys).',
    example: async (f) => ({
      method: 'POST',
      url: '/apps/webrtc/1/disposition',
      headers: session(f),
      payload: { status: 'contacted' },
    }),
  },
  {
    method: 'POST',
    path: '/apps/webrtc/{id}/disposition2',
    auth: 'session + CSRF',
    what: "Records the Tags & Stages choice: `key` must be a tag of the call's profile (422 otherwise). Takes an `Idempotency-Key` (see Idempotency keys).",
    example: async (f) => ({
      method: 'POST',
      url: '/apps/webrtc/1/disposition2',
      headers: session(f),
      payload: { key: 'hot' },
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/notes',
    auth: 'session + CSRF',
    what: 'Adds a note to a call of the account (201). Takes an `Idempotency-Key` (see Idempotency keys).',
    example: async (f) => ({
      method: 'POST',
      url: '/api/v1/notes',
      headers: session(f),
      payload: { content: 'Wants a quote for a 6 kW system.', call_id: 1 },
    }),
  },
  {
    method: 'POST',
    path: '/apps/webrtc/{id}/sms',
    auth: 'session + CSRF, permission app-sms',
    what: "Sends the SMS follow-up to the call's number from the call's caller number, through the SMS sender (embedded: the sandbox outbox, `GET /api/v1/sandbox/sms`). `success` means the sender took it; a refusal comes back as `{ success: false, error }` (e.g. a number that cannot receive texts). `smsbody` 1–1600 characters; the console's default text is \"Sorry we couldn't reach you!\". Takes an `Idempotency-Key` (see Idempotency keys). The dial guard (see Dialling rules) refuses a number the account may not text (403 'Texts to premium-rate numbers are not allowed.', 'Texts to Russia are not allowed for this account.'), the SMS limits (429: the console's outbox sends it again once the limit allows) and, with Twilio, an account without a caller number of its own (403); nothing is sent or stored then.",
    example: async (f) => ({
      method: 'POST',
      url: '/apps/webrtc/1/sms',
      headers: session(f),
      payload: { smsbody: "Sorry we couldn't reach you!" },
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/calls/twilio',
    auth: 'session + CSRF, permission app-retry',
    what: "Retry: a new call to the lead with this number (the account's, or a new one), offered to the user first (their wrap-up ends: they asked), else to whoever can take it; dialled from `caller_id` (optional) or the account's default. `success: true` only when an agent is rung (`call.agent_id`); otherwise `{ success: false, error }` says why (e.g. 'All agents are busy.'). The dial guard (see Dialling rules) may refuse it first (403, 409, 429 with its sentence); nothing is stored then.",
    example: async (f) => {
      await endAll(f);
      return {
        method: 'POST',
        url: '/api/v1/calls/twilio',
        headers: session(f),
        payload: { fname: 'Jordan', lname: 'Miles', phone_number: '+15550100042' },
      };
    },
    after: endAll,
  },
  {
    method: 'POST',
    path: '/api/v1/calls/conferencelead',
    auth: 'session + CSRF',
    what: "The Add Lead panel: gives the user's live call `call_id` (which has no lead yet; 409 otherwise) a lead, dials it into the call from the call's caller number, and answers once its phone answered (`success: true, outcome: 'answered'`) or did not (`success: false`, `outcome` busy / no-answer / failed / timeout, `error` saying so): the call goes on either way. The dial guard (see Dialling rules) may refuse the number first (403, 409, 429 with its sentence): no lead is added, nothing dialled.",
    example: async (f) => {
      await endAll(f);
      const { call } = await f.liveCall(f.agent1, '+15550100070');
      await f.t.database.db.execute(sql`update calls set lead_id = null where id = ${call.id}`);
      answerNextDial(f, call.sid);
      return {
        method: 'POST',
        url: '/api/v1/calls/conferencelead',
        headers: session(f),
        payload: { call_id: call.id, fname: 'Nia', lname: 'Okoro', phone_number: '+15550100071' },
      };
    },
    after: endAll,
  },
  {
    method: 'POST',
    path: '/api/v1/calls/twilio/outbound',
    auth: 'session + CSRF',
    what: "New Call: creates the call (and the lead, or updates its names) and the user's call user; the console then connects the softphone with `call_user_id` and `To`. `agent_id` must be the user; `caller_id` one of the account's caller numbers (default: the account's default). 409 when the user is already on a call. The dial guard (see Dialling rules) refuses a number the account may not call (403 'Calls to premium-rate numbers are not allowed.', 'Calls to Russia are not allowed for this account.'), a second call while one is being placed (409), the limits (429) and, with Twilio, an account without a caller number of its own (403); nothing is stored then.",
    example: async (f) => {
      await endAll(f);
      return {
        method: 'POST',
        url: '/api/v1/calls/twilio/outbound',
        headers: session(f),
        payload: {
          fname: 'Priya',
          lname: 'Natarajan',
          phone_number: '(555) 010-0117',
          agent_id: f.agent1.userId,
          interface: 'desktop',
        },
      };
    },
    after: endAll,
  },
  {
    method: 'POST',
    path: '/api/v1/network-test',
    auth: 'session + CSRF',
    what: "Not in the spec: the Settings panel's pre-call network test (issue 17). Authorises one test call of the user's softphone: the console connects with `params` (`device.connect({ params: { network_test } })`) within `connect_within_seconds`, and the engine dials its echo number (`+15550199006`, docs/sandbox-numbers.md) into the call instead of a lead; the console grades what its SDK's quality monitor measures. No call, lead or history row is written. While the test lasts routing rings the user with no lead (waiting leads stay queued or go to other agents, and come once it ends); the server hangs the call up `max_seconds` after it was placed at the latest. No body (or `{}`; anything else 422). 409 when the phone is not registered, the user is on (or rung for) a call, or a test of theirs is already running; with `TELEPHONY_PROVIDER=twilio` always 409 'The network test needs the embedded voice engine; this server calls through Twilio.'. A call placed with an unknown, used, lapsed or another user's `network_test` is refused on the wire (`hangup` with error 31404).",
    example: async (f) => ({ method: 'POST', url: '/api/v1/network-test', headers: session(f) }),
    after: async (f) => {
      // The console never places the call here: its device going away ends the test.
      const identity = String(f.agent1.userId);
      f.t.telephony.emit({ type: 'device.offline', identity });
      f.t.telephony.emit({ type: 'device.online', identity });
      await f.t.flows.idle();
    },
  },
  {
    method: 'POST',
    path: '/apps/webrtc/check',
    auth: 'session + CSRF',
    what: "Not shown in the spec: \"Check for lead\". Ends the user's wrap-up and rings them with the oldest web lead waiting in the queue for their teams (`{ success: true, call }`); `{ success: false, error: 'No leads waiting.' }` when none waits.",
    example: async (f) => {
      await endAll(f);
      return { method: 'POST', url: '/apps/webrtc/check', headers: session(f) };
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/user/status',
    auth: 'session + CSRF',
    what: "The agent's own status: `available` (takes calls when free) or `away`. The answer says where the agent is now (`available`, `away`, `on_call`, `wrap_up`, `offline`). Becoming available offers the agent a waiting lead at once.",
    example: async (f) => ({
      method: 'PUT',
      url: '/api/v1/user/status',
      headers: session(f),
      payload: { status: 'away' },
    }),
    after: async (f) => {
      await f.t.app.inject({
        method: 'PUT',
        url: '/api/v1/user/status',
        headers: session(f),
        payload: { status: 'available' },
      });
    },
  },
  {
    method: 'POST',
    path: '/api/v1/user/wrap-up/done',
    auth: 'session + CSRF',
    what: "Done: ends the agent's wrap-up after a call (routing skips an agent who wraps up, until Done or the profile's `wrap_up_seconds`, 60 by default). The console sends it when the agent leaves the Thank you or note view.",
    example: async (f) => {
      await endAll(f);
      const { call } = await f.liveCall(f.agent1, '+15550100072');
      f.t.telephony.emit({
        type: 'agent.left',
        callSid: call.sid,
        identity: String(f.agent1.userId),
        reason: 'hangup',
      });
      await f.t.flows.idle();
      return { method: 'POST', url: '/api/v1/user/wrap-up/done', headers: session(f) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/sandbox/sms',
    auth: 'session; embedded mode only',
    what: "The sandbox outbox: the account's text messages, newest first, with the number they went to and from, and whether the sender took them.",
    example: async (f) => ({
      method: 'GET',
      url: '/api/v1/sandbox/sms',
      headers: session(f, false),
    }),
  },
  {
    method: 'GET',
    path: '/api/v1/sandbox/calls',
    auth: 'session; embedded mode only',
    what: "What the sandbox phone network received for the account's calls: the number called, the caller ID it came from, its state (`ringing`, `answered`, `ended`, `busy`, `no-answer`, `failed`), its times and the digits it heard (docs/sandbox-numbers.md). This recording uses a stand-in network that lists nothing.",
    example: async (f) => ({
      method: 'GET',
      url: '/api/v1/sandbox/calls',
      headers: session(f, false),
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/calls/{id}/hangup',
    auth: 'API key (`Authorization: Bearer <key>`); embedded mode only',
    what: "The lead (or caller) on the line of the account's call `{id}` hangs up, as a person would: the call ends when its last phone party and its last agent have left. 409 when nobody is on the line (this recording uses a stand-in network).",
    example: async () => ({
      method: 'POST',
      url: '/api/v1/sandbox/calls/1/hangup',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    }),
  },
  {
    method: 'POST',
    path: '/api/v1/pusher/auth',
    auth: 'session + CSRF',
    what: "Pusher-protocol channel auth (pusher-js posts it form-encoded): only the user's own presence channel `presence-user-<user id>` and the account's private channel `private-account-<account id>` (the two `channels` of `GET /api/v1/user`); any other is 403 and names those two. `auth` is `<key>:<HMAC-SHA256>`; the presence channel's answer adds `channel_data`, the member. Bounded per login: 30 a minute (every instance counting together), then 429 `{ success: false, error: 'Too many realtime channel authorisations for this login. Try again in N seconds.' }` with `Retry-After`; and a login keeps 8 sockets let in, the 9th authorised closing its oldest (4009).",
    example: async (f) => ({
      method: 'POST',
      url: '/api/v1/pusher/auth',
      headers: { ...session(f), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `socket_id=1234.5678&channel_name=presence-user-${f.agent1.userId}`,
    }),
  },
  {
    method: 'POST',
    path: '/twilio/debug/webrtc',
    auth: 'session + CSRF',
    what: 'The console reports a softphone disconnect that was not a clean close; logged at warn level.',
    example: async (f) => ({
      method: 'POST',
      url: '/twilio/debug/webrtc',
      headers: session(f),
      payload: { user: f.agent1.userId, conn_status: 'failed' },
    }),
  },
  {
    method: 'GET',
    path: '/healthz',
    auth: 'public',
    what: 'Liveness.',
    example: async () => ({ method: 'GET', url: '/healthz' }),
  },
];

/** The next number dialled into the call answers (the fake telephony plays the network). */
function answerNextDial(f: Fixture, callSid: string): void {
  const dialled = f.t.telephony.ops('dial').length;
  const poll = setInterval(() => {
    const next = f.t.telephony.ops('dial')[dialled];
    if (!next) return;
    clearInterval(poll);
    f.t.telephony.emit({ type: 'phone.answered', callSid, participantId: next.participantId });
  }, 5);
}

/** Ends every live call: rings are ignored in turn until nobody is rung, talks end. */
async function endAll(f: Fixture): Promise<void> {
  const { db } = f.t.database;
  for (let round = 0; round < 20; round++) {
    const ringing = await db
      .select({ call: calls, userId: callUsers.userId })
      .from(callUsers)
      .innerJoin(calls, eq(calls.id, callUsers.callId))
      .where(and(eq(callUsers.outcome, 'ringing'), inArray(calls.status, LIVE_CALL_STATUSES)));
    if (ringing.length === 0) break;
    for (const { call, userId } of ringing) {
      await f.t.flows.agentIgnored(call, userId).catch(() => undefined);
    }
  }
  for (const call of await db
    .select()
    .from(calls)
    .where(inArray(calls.status, LIVE_CALL_STATUSES))) {
    await f.endCall(call);
  }
  // Outbound calls the (absent) console never connected are withdrawn after their timeout.
  f.clock.advance(OUTBOUND_CONNECT_TIMEOUT_MS);
  await f.t.flows.idle();
}

/**
 * The providers' webhooks: mounted only with `TELEPHONY_PROVIDER=twilio`, so they are described
 * without a recorded exchange (the seeded demo runs the embedded engine).
 */
const WEBHOOKS_INTRO =
  'Mounted only when the server calls through Twilio (`docs/deployment.md`). Twilio posts them form-encoded and signs each with the account\'s Auth Token over `PUBLIC_BASE_URL` + path + query and the form fields (`X-Twilio-Signature`); a missing or wrong signature is 403 `{"error":"Invalid Twilio signature."}` and reaches nothing. A callback repeated by Twilio changes nothing twice.';

const WEBHOOKS: Endpoint[] = [
  {
    method: 'POST',
    path: '/twilio/voice',
    auth: 'Twilio signature',
    what: "The TwiML App's and the numbers' voice URL. An agent's browser placing a call (`From: client:<user id>`, with the console's `call_user_id` or `network_test` parameters): answered with `<Dial><Conference participantLabel=\"agent-<id>\" …>CA…</Conference></Dial>` and the lead dialled into that conference, or, refused, `<Say>` the reason and `<Hangup/>` (the dial guard's sentences, see Dialling rules; 'Your login has ended: log in again to place calls.' for a browser whose user has no login left, its access token living on for its hour). A phone calling one of an account's caller numbers: the call is offered to the account's agents; the caller waits (`<Pause>`) until an agent answers, then joins the conference. A number no account has: `<Reject/>`.",
  },
  {
    method: 'POST',
    path: '/twilio/status',
    auth: 'Twilio signature',
    what: "Status callbacks of each participant's leg (`?call=<call sid>&label=<label>`; `CallSid`, `CallStatus`) and of the conference (`StatusCallbackEvent` `participant-join`, `participant-leave`, `conference-end`; `FriendlyName` the call sid, `ParticipantLabel`). 204. A repeat (same leg or conference, event, status and `SequenceNumber`), on whichever instance, is answered 204 and changes nothing (webhook receipts, see Rate limits).",
  },
  {
    method: 'POST',
    path: '/twilio/recording',
    auth: 'Twilio signature',
    what: "The conference recording's status callback (`RecordingStatus=completed`, `RecordingUrl`, `RecordingDuration`): the call's recording becomes playable at `GET /api/v1/calls/{id}/recording`, which streams it from Twilio with the API key. 204; a repeat changes nothing.",
  },
  {
    method: 'POST',
    path: '/pusher/webhooks',
    auth: 'Pusher signature',
    what: 'With `REALTIME_PROVIDER=pusher` and Twilio: the Channels app\'s presence webhooks (`member_added`, `member_removed`), signed with the app secret over the raw body (`X-Pusher-Key`, `X-Pusher-Signature`); they say which agents have their console open (online). An unsigned or forged post is 401 `{"error":"Invalid Pusher webhook signature."}`. 200 `{"ok":true}`; a repeat of a post (the same body) changes nothing.',
  },
];

/** An endpoint's heading, auth line and text. */
const describe = (endpoint: Endpoint) => `### ${endpoint.method} ${endpoint.path}

*Auth:* ${endpoint.auth}

${endpoint.what}`;

const redact = (headers: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    Object.entries(headers ?? {}).map(([k, v]) => [
      k,
      k === 'cookie'
        ? 'leadline_session=…'
        : k === 'x-csrf-token'
          ? '<csrf_token>'
          : k === 'authorization'
            ? 'Bearer demo-api-key'
            : v,
    ]),
  );

/**
 * A response body as the page shows it: the access token shortened, the session's CSRF token
 * (the `csrf_token` fields and the realtime options' `X-CSRF-TOKEN` header) and call sids as
 * placeholders.
 */
const redactBody = (body: unknown) =>
  JSON.stringify(body, null, 2)
    .replace(/"token": "[^"]+"/, '"token": "eyJhbGciOiJIUzI1NiIs…"')
    .replace(/"(csrf_token|x-csrf-token)": "[^"]+"/gi, '"$1": "<csrf_token>"')
    .replace(/"CA[0-9a-f]{32}"/g, '"CA…"')
    .replace(/"NT[0-9a-f]{32}"/g, '"NT…"');

const f = await startFixture();
wallClock = () => f.clock.now().getTime();
const sections: string[] = [];
for (const doc of DOCS) {
  const options = await doc.example(f);
  const res = await f.t.app.inject(options);
  await f.t.flows.idle();
  const type = res.headers['content-type']?.toString() ?? '';
  const body = type.includes('json')
    ? res.json<unknown>()
    : type.startsWith('audio/')
      ? `<${res.rawPayload.length} bytes of ${type}>`
      : res.body;
  const request = [
    `${String(options.method)} ${typeof options.url === 'string' ? options.url : ''}`,
    ...Object.entries(redact(options.headers as Record<string, unknown>)).map(
      ([k, v]) => `${k}: ${String(v)}`,
    ),
    ...(options.payload === undefined
      ? []
      : [
          '',
          typeof options.payload === 'string'
            ? options.payload
            : JSON.stringify(options.payload, null, 2),
        ]),
  ].join('\n');
  sections.push(`${describe(doc)}

\`\`\`http
${request}
\`\`\`

Response ${res.statusCode}:

\`\`\`json
${redactBody(body)}
\`\`\``);
  if (doc.after) await doc.after(f, body);
}
await f.t.close();

const page = `# HTTP API

Every endpoint of the product spec's section 7 (and the few the spec leaves out), with a real exchange recorded against the application on the seeded demo database by \`npx tsx apps/server/scripts/write-api-docs.ts\`.

## Conventions

- **Sessions.** Cookie \`leadline_session\` from \`POST /api/v1/user/login\`; every later mutating request (POST, PUT) carries \`X-CSRF-TOKEN\` with the \`csrf_token\` of \`GET /api/v1/user\` (403 without it). No session: 401 \`{ "success": false, "error": "Unauthenticated." }\`; the console reloads the page on a 401.
- **Validation.** Every body, query and path id is parsed by its zod schema from \`packages/contracts\`: a bad one is 422 \`{ "error": "<one sentence naming the field>" }\` and changes nothing. Unknown fields are ignored. Free text is stored and returned exactly as sent (HTML, SQL, any Unicode) and never rendered as markup; text that cannot be stored as given is 422: a NUL character ('The fname may not contain the NUL character.') or half a surrogate pair ('The fname is not valid Unicode text.'). Malformed JSON is 400, a body over 64 KB 413, a body that is not JSON 415 (except the Pusher auth route, which also takes form bodies).
- **Refusals.** A request that is well-formed but not allowed now is \`{ "success": false, "error": "…" }\`: 403 for a missing permission (spec section 6) or a number the account may not call, 409 for the state of a call or an agent, 429 for too many logins or calls.
- **Rate limits.** What anyone may reach without a login is limited per client address (an IPv6 client by its /64; behind proxies the address \`TRUST_PROXY\` finds) and minute, counted in the database by every instance together: sign-in, its options and single sign-on's start and callback (100), lead intake by API key (600), the providers' webhooks (3,000), the \`/signal\` and \`/app/{key}\` socket upgrades (300); the \`RATE_LIMIT_*_PER_MINUTE\` settings. Past it: 429 \`{ "success": false, "error": "Too many requests from your address. Try again in N seconds." }\` with \`Retry-After\`, before anything else is done. A signalling socket that has not sent a valid \`listen\` within 10 s (of opening, or of its token expiring) is closed with 4401; a realtime socket without an authorised subscription after 30 s, with 4101. Signed webhooks are handled once (their receipts are kept a day).
- **Accounts.** Everything is scoped to the session's account: another account's ids are 404, never 403, so ids don't leak.
- **Errors registry.** \`apps/server/src/http/errors.ts\` holds every code with its status, body shape and message.
- **Tests.** \`apps/server/src/api-matrix/endpoint-matrix.integration.test.ts\` (endpoint × happy path, validation error, missing permission, missing CSRF), \`cross-account.integration.test.ts\` (endpoint × other account's ids), \`fuzz.integration.test.ts\` (2,100 generated requests: no 5xx, no row changed by a refused one), \`scale.integration.test.ts\` (10,000 users, 100,000 calls). Run with \`npx vitest run --project server\` (verbose output lists endpoint × case).

## Idempotency keys

\`POST /apps/webrtc/{id}/disposition\`, \`POST /apps/webrtc/{id}/disposition2\`, \`POST /api/v1/notes\` and \`POST /apps/webrtc/{id}/sms\` take an optional \`Idempotency-Key\` header (the IETF httpapi Idempotency-Key draft): 8 to 255 visible ASCII characters, a new UUID per write. The console's outbox sends one with each write and the same one again on every retry (no answer, 5xx, 409).

- **Once per user.** A request with a key is applied once for the session's user (another user's equal key is another key). A repeat (same method, path and JSON body) gets the first answer again, same status and body, with \`Idempotent-Replayed: true\`.
- **No header.** The request is applied as always; nothing is stored.
- **400** \`{ "error": "The Idempotency-Key header must be 8 to 255 visible characters." }\`: a malformed key. Nothing changes.
- **422** \`{ "error": "This Idempotency-Key was already used for a different request." }\`: the key came before with another request (another endpoint, call or body). Nothing changes.
- **409** \`{ "success": false, "error": "A request with this Idempotency-Key is still being processed." }\`: the first request with the key is still running (an SMS being sent); try again later.
- **Failures are not kept.** A request that fails (4xx, 5xx) stores nothing, so a corrected request may use its key. Dispositions and notes claim the key, write and store their answer in one transaction: identical requests at the same moment write once.
- **SMS.** The send happens outside the database: the key is claimed first, then the SMS is sent and its answer (a refusal too) stored. A claim still in progress after 60 s (the server stopped during the send) is settled once as \`{ "success": false, "error": "Sending was interrupted; the SMS may not have been sent." }\` (200), and the SMS is not sent again.
- **Expiry.** Keys are kept 24 hours and forgotten within the minute after; a key sent later again is a new request.
- **Tests.** \`apps/server/src/http/idempotency.integration.test.ts\`.

## Dialling rules

Every call and SMS an agent places passes the dial guard (\`apps/server/src/calls/dial-guard.ts\`), whichever way it is asked for (New Call, Retry, Add Lead, the SMS route, a softphone's \`connect\` with \`To\` or \`call_user_id\`, Twilio's \`/twilio/voice\`) and whichever provider carries it. A refusal is \`{ "success": false, "error": "<sentence>" }\` and stores nothing (no lead, call or SMS); a softphone's call is refused on the wire with error 31603 and the sentence (with Twilio, spoken). The account's settings are its \`policy\` (\`accounts.policy\`, JSON; the seed's demo account calls US, CA and GB).

- **403, the number's type**, whatever the country (libphonenumber's full metadata): 'Calls to premium-rate numbers are not allowed.', likewise shared-cost numbers, personal numbers and universal access numbers (UAN); 'Texts to …' for an SMS. A number libphonenumber cannot classify (the sandbox's +1 555 010 XXXX) is not refused for its type.
- **403, the country**: only the countries of \`call_countries\` (ISO codes; default the account's own, \`accounts.country_code\`): 'Calls to Russia are not allowed for this account.' A number of no country (+882, +870): 'Calls to international network numbers (+882) are not allowed.'
- **409, one at a time**: 'You are already placing a call: wait until it connects, or hang it up first.' while a New Call of the agent's has not connected yet.
- **429, the limits**, counted from the stored calls (New Call, a softphone's call, Retry) and SMS of every instance: \`calls_per_minute_per_agent\` (default 10), \`calls_per_minute_per_account\` (120), \`sms_per_hour_per_agent\` (60), \`sms_per_hour_per_account\` (600): 'You may place at most 10 calls a minute: try again in 30 seconds.', 'Your account may send at most 600 texts an hour: try again in 12 minutes.' Add Lead is checked against the call limits but not counted.
- **403, Twilio tenancy**: with \`TELEPHONY_PROVIDER=twilio\` an account without a caller number of its own never calls or texts from another number of the Twilio account: 'This account has no caller number of its own: an administrator must add one before its agents can call.' ('… can text.' for an SMS).
- **Tests.** \`apps/server/src/calls/dial-destination.test.ts\`, \`dial-guard.integration.test.ts\` (PGlite and PostgreSQL), \`apps/server/src/twilio/twilio-dial-guard.integration.test.ts\`, \`e2e/new-call.e2e.ts\`.

## Endpoints

${sections.join('\n\n')}

## Webhooks of the providers (\`TELEPHONY_PROVIDER=twilio\`)

${WEBHOOKS_INTRO}

${WEBHOOKS.map(describe).join('\n\n')}
`;
const target = fileURLToPath(new URL('../../../docs/api.md', import.meta.url));
// Written as Prettier writes it (the repository's settings), so `prettier --check` passes as is.
writeFileSync(target, await format(page, { ...(await resolveConfig(target)), filepath: target }));
console.log(`wrote docs/api.md (${DOCS.length} endpoints, ${WEBHOOKS.length} webhooks)`);
