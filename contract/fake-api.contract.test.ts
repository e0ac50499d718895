/**
 * The web console's fake server (`apps/web/src/test-support/fake-api.ts`, what the console's component
 * tests run on) against the real server: every request the fake answers is sent by the
 * console's own client (`ApiClient`) to the fake and to the real product, and both answers must
 * have the same status, parse with the same zod schema from `@leadline/contracts`, and agree in
 * shape field by field. A fake that drifts from the server (New Call's answer without the call's
 * profile, so the component tests never reached Tags & Stages) fails here, naming the field.
 *
 * The real side is the whole product in this process (`startRealLeadline`: PGlite with the demo
 * seed, the real routes on a loopback port, the embedded voice engine); live calls are made by
 * the server's headless agents (`AgentClient`: a registered softphone on the real signalling
 * wire and a werift peer), as the server's own flow tests make them.
 *
 * Why a workspace of its own (`contract/`): the test needs the web app's fake and client and the
 * server's test support, and neither app may import the other (the web app never imports server
 * code; production code never imports test support). A test inside either app would break that
 * rule for its whole project (the web project runs in jsdom; the server's would import the web
 * app); a folder outside both that depends on both, like `e2e/` and `bench/`, breaks nothing.
 * It is one of the root config's Vitest projects, so `vitest run` (`npm test`) runs it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentsPageSchema,
  CallerNumbersResponseSchema,
  CallUserResponseSchema,
  CheckForLeadResponseSchema,
  ConferenceLeadResponseSchema,
  ErrorResponseSchema,
  HistoryPageSchema,
  HoldResponseSchema,
  LoginOptionsResponseSchema,
  LoginResponseSchema,
  NetworkTestResponseSchema,
  NoteResponseSchema,
  OutboundCallResponseSchema,
  RefusalSchema,
  RejectResponseSchema,
  RetryCallResponseSchema,
  SmsResponseSchema,
  SuccessResponseSchema,
  TeamsResponseSchema,
  TokenResponseSchema,
  UserResponseSchema,
  UserSettingsResponseSchema,
  UserStatusResponseSchema,
  type CallUserResponse,
  type User,
} from '@leadline/contracts';
import {
  FakeApi,
  demoAgent,
  demoCallUser,
  demoCallerNumber,
  demoHistoryRow,
  demoTag,
  demoTeam,
  demoUser,
} from '../apps/web/src/test-support/fake-api';
import { DEMO_PASSWORD } from '../apps/server/src/db/seed';
import { AgentClient, type Invite } from '../apps/server/src/test-support/agent-client';
import { requestJson } from '../apps/server/src/test-support/http-json';
import { startRealLeadline, type RealLeadline } from '../apps/server/src/test-support/real-engine';
import { expectSameAnswer, type SidePair } from './support/answer-contract';
import { ConsoleSide, type SideName } from './support/console-side';

/** The seeded agent, supervisor and second agent the server side works as. */
const AGENT_EMAIL = 'agent1@example.com';
const AGENT2_EMAIL = 'agent2@example.com';
const SUPERVISOR_EMAIL = 'supervisor@example.com';
/** The seed's agents' and supervisor's permissions (apps/server/src/db/seed.ts). */
const AGENT_PERMISSIONS = ['app-sms', 'app-retry', 'app-autoaccept'];
const SUPERVISOR_PERMISSIONS = [...AGENT_PERMISSIONS, 'listen', 'whisper', 'barge'];
/** A sandbox number that answers (any number but the sandbox's special ones does). */
const LEAD_NUMBER = '+15550100042';
/** A caller number of the demo account, for an inbound call. */
const DEMO_CALLER_NUMBER = '+15550142000';
/** The fake's call user and call of every call scenario. */
const FAKE_CALL_USER_ID = 501;
const FAKE_CALL_ID = 9001;

let product: RealLeadline;
const agents: AgentClient[] = [];

beforeAll(async () => {
  product = await startRealLeadline();
});
afterEach(async () => {
  // Agents a test leaves behind (a failing one) go offline, as a closed tab does.
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});
afterAll(() => product?.close());

/** The demo agent on the fake, as the seed's agents are: their permissions, free, no lead. */
function fakeAgentUser(overrides: Partial<User> = {}): User {
  return demoUser({ permissions: AGENT_PERMISSIONS, ...overrides });
}

/**
 * The fake's call user of `options.type` (a lead call by default) on a profile with a tag, as
 * the seed's profile has (the tags' shape is compared only when both sides have one).
 */
function fakeCallUser(options: Parameters<typeof demoCallUser>[0] = {}): CallUserResponse {
  const profile = { id: 12, is_deal_whispertext: true, auto_answer: true, tags: [demoTag()] };
  return demoCallUser({ ...options, call: { profile, ...options.call } });
}

/** A headless agent with its softphone registered (closed after the test). */
async function agentOnline(email: string): Promise<AgentClient> {
  const agent = await AgentClient.login(product, email);
  agents.push(agent);
  return agent;
}

/**
 * The console of `agent` on the server (its session) and of `fakeUser` on a fake set up by
 * `setUp`, each with its user loaded (the CSRF token for the writes), as the console starts.
 */
async function consoles(
  agent: AgentClient,
  fakeUser: User,
  setUp: (fake: FakeApi) => void = () => undefined,
): Promise<SidePair & { fakeApi: FakeApi }> {
  const fakeApi = new FakeApi([{ user: fakeUser, password: DEMO_PASSWORD }]).signIn();
  setUp(fakeApi);
  const fake = ConsoleSide.onFake(fakeApi);
  const server = ConsoleSide.onServer(product.url, agent.cookie);
  await fake.api.getUser();
  await server.api.getUser();
  return { fake, server, fakeApi };
}

/** Posts a web lead and waits for `agent` to be rung for it. */
async function leadRungTo(
  agent: AgentClient,
): Promise<{ invite: Invite; callId: number; callUserId: number }> {
  const posted = await product.postLead({
    fname: 'Jordan',
    lname: 'Miles',
    phone_number: LEAD_NUMBER,
  });
  expect(posted.status).toBe(201);
  const invite = await agent.nextInvite();
  expect(invite.callUserId).toEqual(expect.any(Number));
  return { invite, callId: posted.body.call.id, callUserId: invite.callUserId! };
}

/** Accepts `invite` and waits until its call is connected on the server. */
async function acceptAndConnect(agent: AgentClient, invite: Invite, callId: number) {
  await agent.accept(invite);
  await product.waitForCall(callId, (row) => row.status === 'in-progress');
}

/** Hangs `agent` up and waits until the call ended and the agent is free again (Done). */
async function hangUpAndFree(agent: AgentClient, callId: number): Promise<void> {
  await agent.hangup();
  await product.waitForCall(callId);
  const done = await agent.api('POST', '/api/v1/user/wrap-up/done');
  expect(done.status).toBe(200);
}

/** The ids a request names on each side. */
type PerSide<T> = Record<SideName, T>;

describe('the fake server answers the console as the real server does', () => {
  it('signing in and out, the user, the token, settings, status, the lists and refusals', async () => {
    const fakeApi = new FakeApi([{ user: fakeAgentUser(), password: DEMO_PASSWORD }]);
    fakeApi.setCallerNumbers([demoCallerNumber()]);
    fakeApi.setTeams([demoTeam()]);
    fakeApi.setAgents([demoAgent(8, 'Blake Chen')]);
    const sides: SidePair = {
      fake: ConsoleSide.onFake(fakeApi),
      server: ConsoleSide.onServer(product.url),
    };
    // Each side knows the demo agent by its own email and id.
    const me: PerSide<{ email: string; id: number }> = {
      fake: { email: fakeAgentUser().email, id: fakeAgentUser().id },
      server: { email: AGENT_EMAIL, id: 0 },
    };

    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/user before signing in', schema: RefusalSchema, status: 401 },
      (api) => api.getUser(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/login/options', schema: LoginOptionsResponseSchema, status: 200 },
      (api) => api.loginOptions(),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/user/login (wrong password)', schema: RefusalSchema, status: 401 },
      (api, side) => api.login({ email: me[side].email, password: 'not the password' }),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/user/login', schema: LoginResponseSchema, status: 200 },
      (api, side) => api.login({ email: me[side].email, password: DEMO_PASSWORD }),
    );
    const user = await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/user', schema: UserResponseSchema, status: 200 },
      (api) => api.getUser(),
    );
    me.server.id = UserResponseSchema.parse(user.server.body).user.id;
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/twilio/token2', schema: TokenResponseSchema, status: 200 },
      (api) => api.getToken(true),
    );
    for (const autoaccept of [true, false]) {
      await expectSameAnswer(
        sides,
        { what: 'PUT /api/v1/user/settings', schema: UserSettingsResponseSchema, status: 200 },
        (api) => api.setAutoaccept(autoaccept),
      );
    }
    for (const status of ['away', 'available'] as const) {
      await expectSameAnswer(
        sides,
        {
          what: `PUT /api/v1/user/status (${status})`,
          schema: UserStatusResponseSchema,
          status: 200,
        },
        (api) => api.setStatus(status),
      );
    }
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/user/wrap-up/done', schema: UserStatusResponseSchema, status: 200 },
      (api) => api.endWrapUp(),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /twilio/debug/webrtc', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.reportUnclosedConnection({ user: me[side].id, conn_status: 'open' }),
    );
    await expectSameAnswer(
      sides,
      {
        what: 'POST /apps/webrtc/check (no lead waiting)',
        schema: CheckForLeadResponseSchema,
        status: 200,
      },
      (api) => api.checkForLead(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/callerids', schema: CallerNumbersResponseSchema, status: 200 },
      (api) => api.getCallerIds(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/teams', schema: TeamsResponseSchema, status: 200 },
      (api) => api.getTeams(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/users/paginated', schema: AgentsPageSchema, status: 200 },
      (api) => api.getAgents({ page: 1, status: 'all', search: '', teamId: null }),
    );
    await expectSameAnswer(
      sides,
      {
        what: 'POST /apps/webrtc/{id}/disposition (no such call)',
        schema: ErrorResponseSchema,
        status: 404,
      },
      (api) => api.setDisposition(2_000_000_000, 'contacted'),
    );
    await expectSameAnswer(
      sides,
      {
        what: 'POST /api/v1/calls/{id}/listen (an agent without the listen permission)',
        schema: RefusalSchema,
        status: 403,
      },
      (api) => api.supervise(2_000_000_000, 'listen'),
    );
    await expectSameAnswer(
      sides,
      {
        what: 'POST /api/v1/calls/twilio/outbound (not a phone number)',
        schema: ErrorResponseSchema,
        status: 422,
      },
      (api, side) =>
        api.placeOutboundCall({
          fname: 'No',
          lname: 'Number',
          phone_number: 'not a number',
          agent_id: me[side].id,
        }),
    );
    // Another tab of the same session that has not loaded the user sends no CSRF token.
    const noCsrf: SidePair = {
      fake: ConsoleSide.onFake(fakeApi),
      server: ConsoleSide.onServer(product.url, sides.server.cookie),
    };
    await expectSameAnswer(
      noCsrf,
      {
        what: 'PUT /api/v1/user/status without the CSRF token',
        schema: ErrorResponseSchema,
        status: 403,
      },
      (api) => api.setStatus('available'),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/user/logout', schema: SuccessResponseSchema, status: 200 },
      (api) => api.logout(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/user after signing out', schema: RefusalSchema, status: 401 },
      (api) => api.getUser(),
    );
  });

  it('Log out everywhere, and the user after it', async () => {
    const agent = await agentOnline(AGENT2_EMAIL);
    const sides = await consoles(agent, fakeAgentUser());
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/user/logout-everywhere', schema: SuccessResponseSchema, status: 200 },
      (api) => api.logout({ everywhere: true }),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/user after logging out everywhere', schema: RefusalSchema, status: 401 },
      (api) => api.getUser(),
    );
  });

  it('a lead rung to the agent: its call user, and Ignore', async () => {
    const agent = await agentOnline(AGENT_EMAIL);
    const sides = await consoles(agent, fakeAgentUser(), (fake) =>
      fake.addCallUser(FAKE_CALL_USER_ID, fakeCallUser()),
    );
    const { callId, callUserId } = await leadRungTo(agent);
    const ids: PerSide<{ callId: number; callUserId: number }> = {
      fake: { callId: FAKE_CALL_ID, callUserId: FAKE_CALL_USER_ID },
      server: { callId, callUserId },
    };
    await expectSameAnswer(
      sides,
      {
        what: 'GET /api/v1/callusers/{id} (a lead rung to the agent)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) => api.getCallUser(ids[side].callUserId),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /apps/webrtc/{id}/reject', schema: RejectResponseSchema, status: 200 },
      (api, side) => api.rejectCall(ids[side].callId),
    );
    await product.waitForCall(callId);
  });

  it('on a lead call: hold, Tags & Stages, the result, a note, an SMS, Check for lead, Done and the history', async () => {
    const agent = await agentOnline(AGENT_EMAIL);
    const sides = await consoles(agent, fakeAgentUser(), (fake) => {
      fake.addCallUser(FAKE_CALL_USER_ID, fakeCallUser({ call: { status: 'in-progress' } }));
      fake.setHistory([demoHistoryRow()]);
    });
    const { invite, callId, callUserId } = await leadRungTo(agent);
    await acceptAndConnect(agent, invite, callId);
    const ids: PerSide<{ callId: number; callUserId: number }> = {
      fake: { callId: FAKE_CALL_ID, callUserId: FAKE_CALL_USER_ID },
      server: { callId, callUserId },
    };
    const callUser = await expectSameAnswer(
      sides,
      {
        what: 'GET /api/v1/callusers/{id} (a lead call in progress)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) => api.getCallUser(ids[side].callUserId),
    );
    const tagKey = (side: SideName) => {
      const answer: CallUserResponse = CallUserResponseSchema.parse(callUser[side].body);
      const key = answer.call.profile?.tags[0]?.key;
      if (!key) throw new Error(`the ${side}'s call has no profile tag to choose`);
      return key;
    };
    for (const held of [true, false]) {
      await expectSameAnswer(
        sides,
        {
          what: `PUT /api/v1/calls/{id}/${held ? 'hold' : 'unhold'}`,
          schema: HoldResponseSchema,
          status: 200,
        },
        (api, side) => api.setHold(ids[side].callId, held),
      );
    }
    await expectSameAnswer(
      sides,
      { what: 'POST /apps/webrtc/{id}/disposition2', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.setTag(ids[side].callId, tagKey(side)),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /apps/webrtc/{id}/disposition', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.setDisposition(ids[side].callId, 'contacted'),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/notes', schema: NoteResponseSchema, status: 201 },
      (api, side) => api.addNote({ content: 'Wants a quote.', call_id: ids[side].callId }),
    );
    await expectSameAnswer(
      sides,
      { what: 'POST /apps/webrtc/{id}/sms', schema: SmsResponseSchema, status: 200 },
      (api, side) => api.sendSms(ids[side].callId, "Sorry we couldn't reach you!"),
    );
    await agent.hangup();
    await product.waitForCall(callId);

    // Wrapping up, the agent is offered no lead: one posted now waits until they ask for it.
    const waiting = await product.postLead({
      fname: 'Priya',
      lname: 'Natarajan',
      phone_number: LEAD_NUMBER,
    });
    expect(waiting.body.call.status).toBe('queued');
    sides.fakeApi.leadWaiting = true;
    await expectSameAnswer(
      sides,
      {
        what: 'POST /apps/webrtc/check (a lead waiting)',
        schema: CheckForLeadResponseSchema,
        status: 200,
      },
      (api) => api.checkForLead(),
    );
    agent.reject(await agent.nextInvite());
    await product.waitForCall(waiting.body.call.id);
    await expectSameAnswer(
      sides,
      {
        what: 'POST /api/v1/user/wrap-up/done (after a call)',
        schema: UserStatusResponseSchema,
        status: 200,
      },
      (api) => api.endWrapUp(),
    );
    await expectSameAnswer(
      sides,
      { what: 'GET /api/v1/mycalls', schema: HistoryPageSchema, status: 200 },
      (api) => api.getHistory(1),
    );
  });

  it('transfer, conference and supervision: the rung agents\u2019 call users and the agent list', async () => {
    const agent1 = await agentOnline(AGENT_EMAIL);
    const first = await consoles(agent1, fakeAgentUser(), (fake) => {
      fake.addCallUser(FAKE_CALL_USER_ID, fakeCallUser({ call: { status: 'in-progress' } }));
      fake.addCallUser(FAKE_CALL_USER_ID + 1, fakeCallUser({ type: 'conference' }));
      fake.setAgents([demoAgent(8, 'Blake Chen')]);
    });
    const { invite, callId, callUserId } = await leadRungTo(agent1);
    await acceptAndConnect(agent1, invite, callId);
    const agent2 = await agentOnline(AGENT2_EMAIL);
    const second = await consoles(
      agent2,
      fakeAgentUser({ id: 8, full_name: 'Blake Chen' }),
      (fake) => {
        fake.addCallUser(FAKE_CALL_USER_ID, fakeCallUser({ type: 'transfer' }));
      },
    );
    await expectSameAnswer(
      first,
      {
        what: 'GET /api/v1/users/paginated (online)',
        schema: AgentsPageSchema,
        status: 200,
      },
      (api) => api.getAgents({ page: 1, status: 'online', search: '', teamId: null }),
    );
    const target: PerSide<number> = { fake: 8, server: agent2.userId };
    await expectSameAnswer(
      first,
      { what: 'POST /api/v1/calls/{id}/transfer', schema: SuccessResponseSchema, status: 200 },
      (api, side) =>
        api.transferCall(side === 'fake' ? FAKE_CALL_ID : callId, {
          user_id: target[side],
          call_user_id: side === 'fake' ? FAKE_CALL_USER_ID : callUserId,
        }),
    );
    const transferred = await agent2.nextInvite();
    await expectSameAnswer(
      second,
      {
        what: 'GET /api/v1/callusers/{id} (a transfer)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) => api.getCallUser(side === 'fake' ? FAKE_CALL_USER_ID : transferred.callUserId!),
    );
    await agent2.accept(transferred);
    // The transfer is done when the first agent leaves the call.
    await agent1.waitForHangup();
    expect((await agent1.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);

    await expectSameAnswer(
      second,
      { what: 'POST /api/v1/calls/conference', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.conferenceAgent(side === 'fake' ? 7 : agent1.userId),
    );
    const conference = await agent1.nextInvite();
    await expectSameAnswer(
      first,
      {
        what: 'GET /api/v1/callusers/{id} (a conference)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) =>
        api.getCallUser(side === 'fake' ? FAKE_CALL_USER_ID + 1 : conference.callUserId!),
    );
    await agent1.accept(conference);

    const supervisor = await agentOnline(SUPERVISOR_EMAIL);
    const watching = await consoles(
      supervisor,
      demoUser({ id: 9, full_name: 'Sam Okafor', permissions: SUPERVISOR_PERMISSIONS }),
      (fake) => {
        fake.setAgents([
          demoAgent(8, 'Blake Chen', { on_call_id: FAKE_CALL_ID, status: 'on_call' }),
        ]);
        fake.addCallUser(
          FAKE_CALL_USER_ID,
          fakeCallUser({ type: 'listen', autoaccept: true, call: { agent_name: 'Blake Chen' } }),
        );
      },
    );
    await expectSameAnswer(
      watching,
      {
        what: 'GET /api/v1/users/paginated (on a call)',
        schema: AgentsPageSchema,
        status: 200,
      },
      (api) => api.getAgents({ page: 1, status: 'on_call', search: '', teamId: null }),
    );
    const onCallId: PerSide<number> = { fake: FAKE_CALL_ID, server: callId };
    await expectSameAnswer(
      watching,
      { what: 'POST /api/v1/calls/{id}/listen', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.supervise(onCallId[side], 'listen'),
    );
    const listening = await supervisor.nextInvite();
    await expectSameAnswer(
      watching,
      {
        what: 'GET /api/v1/callusers/{id} (listening)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) => api.getCallUser(side === 'fake' ? FAKE_CALL_USER_ID : listening.callUserId!),
    );
    await supervisor.accept(listening);
    // Whisper changes the role of a supervisor in the call: once the flows took the answer.
    await product.waitForEvent('agent.answered', { identity: supervisor.identity });
    await product.flows.idle();
    await expectSameAnswer(
      watching,
      { what: 'POST /api/v1/calls/{id}/whisper', schema: SuccessResponseSchema, status: 200 },
      (api, side) => api.supervise(onCallId[side], 'whisper'),
    );

    await supervisor.hangup();
    await agent1.hangup();
    await hangUpAndFree(agent2, callId);
    expect((await agent1.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);

    // A supervisor's history says who supervised each call (this one has no tag or note).
    watching.fakeApi.setHistory([
      demoHistoryRow({
        stage: null,
        notes: [],
        supervision: [{ name: 'Sam Okafor', role: 'listen', at: '2026-11-22T10:05:00.000Z' }],
      }),
    ]);
    await expectSameAnswer(
      watching,
      { what: "GET /api/v1/mycalls (a supervisor's)", schema: HistoryPageSchema, status: 200 },
      (api) => api.getHistory(1),
    );
  });

  it('an inbound call: its call user, and adding a lead to it', async () => {
    const agent = await agentOnline(AGENT_EMAIL);
    const sides = await consoles(agent, fakeAgentUser(), (fake) =>
      fake.addCallUser(
        FAKE_CALL_USER_ID,
        fakeCallUser({ call: { direction: 'inbound', lead: null, lead_id: null } }),
      ),
    );
    const dialled = await requestJson<{ call: { id: number } }>(
      'POST',
      `${product.url}/api/v1/sandbox/inbound`,
      { authorization: `Bearer ${product.config.leadApiKey ?? ''}` },
      { from: '+15550100777', to: DEMO_CALLER_NUMBER },
    );
    expect(dialled.status).toBe(201);
    const callId = dialled.body.call.id;
    const invite = await agent.nextInvite();
    await expectSameAnswer(
      sides,
      {
        what: 'GET /api/v1/callusers/{id} (an inbound call)',
        schema: CallUserResponseSchema,
        status: 200,
      },
      (api, side) => api.getCallUser(side === 'fake' ? FAKE_CALL_USER_ID : invite.callUserId!),
    );
    await acceptAndConnect(agent, invite, callId);
    await expectSameAnswer(
      sides,
      {
        what: 'POST /api/v1/calls/conferencelead',
        schema: ConferenceLeadResponseSchema,
        status: 200,
      },
      (api, side) =>
        api.addLeadToCall({
          call_id: side === 'fake' ? FAKE_CALL_ID : callId,
          fname: 'Casey',
          lname: 'Reed',
          phone_number: '+15550100778',
        }),
    );
    await hangUpAndFree(agent, callId);
  });

  it('New Call, Retry and the network test', async () => {
    const agent = await agentOnline(AGENT_EMAIL);
    const sides = await consoles(agent, fakeAgentUser(), (fake) => {
      fake.outboundProfile = fakeCallUser().call.profile;
    });
    const agentId: PerSide<number> = { fake: fakeAgentUser().id, server: agent.userId };
    const placed = await expectSameAnswer(
      sides,
      {
        what: 'POST /api/v1/calls/twilio/outbound',
        schema: OutboundCallResponseSchema,
        status: 200,
      },
      (api, side) =>
        api.placeOutboundCall({
          fname: 'Jordan',
          lname: 'Miles',
          phone_number: LEAD_NUMBER,
          agent_id: agentId[side],
          interface: 'desktop',
        }),
    );
    const outbound = OutboundCallResponseSchema.parse(placed.server.body);
    await agent.connect(
      { call_user_id: String(outbound.call_user_id), To: outbound.call.phone_number },
      undefined,
      outbound.call_user_id,
    );
    await hangUpAndFree(agent, outbound.call.id);

    await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/calls/twilio (Retry)', schema: RetryCallResponseSchema, status: 200 },
      (api) => api.retryCall({ fname: 'Jordan', lname: 'Miles', phone_number: LEAD_NUMBER }),
    );
    const retried = await agent.nextInvite();
    agent.reject(retried);
    await product.waitForEvent('agent.rejected', { callSid: retried.callsid });

    const test = await expectSameAnswer(
      sides,
      { what: 'POST /api/v1/network-test', schema: NetworkTestResponseSchema, status: 200 },
      (api) => api.startNetworkTest(),
    );
    // The test call is placed and hung up, so the agent is routed leads again at once.
    await agent.connect(NetworkTestResponseSchema.parse(test.server.body).params);
    await agent.hangup();
  });
});
