/**
 * Call control and the call lifecycle on the Twilio provider, without media: the whole product
 * started with `TELEPHONY_PROVIDER=twilio` (composition root, real webhooks, real database), its
 * REST client pointed at a stand-in on loopback, and a simulated Twilio (`TwilioCloud`) sending
 * the signed callbacks Twilio would send. The console's HTTP endpoints drive the calls (spec
 * section 7); each flow is checked by the REST requests the provider made (method, path, form
 * fields) and by what the product stores and answers. Every callback posted must be accepted.
 * Who hears whom is the embedded engine's routing.integration.test.ts.
 *
 * Demo account: agent1 and the supervisor are in Sales, agent2 in Support; the caller numbers
 * are the main line (the default) and the spring campaign.
 */
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callPhones, callUsers, callerNumbers, calls, users } from '../db/schema';
import type { CallRow } from '../calls/calls-repo';
import {
  startTwilioLeadline,
  type TwilioAgent,
  type TwilioLeadline,
} from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';
import type { ApiRequest } from '../test-support/twilio-api-stand-in';
import type { CloudParticipant } from '../test-support/twilio-cloud';

let product: TwilioLeadline;
let leadNumber = 10;
/** A lead number nobody called yet in this file. */
const nextLead = () => `+155501002${String(leadNumber++).padStart(2, '0')}`;
let callerNumber = 1;
/** An inbound caller nobody called in from yet in this file. */
const nextCaller = () => `+155501070${String(callerNumber++).padStart(2, '0')}`;
let twilioCall = 1;
/** A `CA…` sid Twilio gives an inbound call or a browser's outgoing call. */
const nextCallSid = () => `CA${'e'.repeat(24)}${String(twilioCall++).padStart(8, '0')}`;

/** The demo account's caller numbers (seeded). */
const MAIN_LINE = '+15550142000';
const SPRING_CAMPAIGN = '+15550142010';

beforeAll(async () => {
  product = await startTwilioLeadline();
}, 60_000);
afterAll(() => product?.close());

afterEach(async () => {
  // Every callback Twilio sent was accepted (a repeat or a removed party's end changes nothing).
  expect(await product.reset()).toEqual([]);
});

const login = (...emails: string[]) => product.loginInOrder(...emails);

async function postLead(phone = nextLead()) {
  const posted = await product.postLead({ fname: 'Lee', lname: 'Lead', phone_number: phone });
  expect(posted.status).toBe(201);
  const sid = (await product.callRow(posted.body.call.id))!.sid;
  return { ...posted.body.call, phone, sid };
}

const requests = (method: string, path: RegExp) => product.requests(method, path);

const creates = (conference: string) => product.creates(conference);

/** The requests naming one participant by label (`DELETE` removes it, `POST` updates it). */
const onParticipant = (method: string, label: string) =>
  requests(method, new RegExp(`/Conferences/CF[0-9a-f]+/Participants/${label}\\.json$`));

/**
 * The participants removed from one call's conference (by its `CF…` sid or its name): an earlier
 * test's call may still have a leg of the same agent, which a new reservation takes out.
 */
const removals = (callSid: string) =>
  requests(
    'DELETE',
    new RegExp(`/Conferences/(${product.standIn.conferenceSid(callSid)}|${callSid})/Participants/`),
  );

/** The conference completions (the provider's `hangup`). */
const conferenceEnds = () =>
  requests('POST', /\/Conferences\/CF[0-9a-f]+\.json$/).filter(
    (r) => r.form.Status === 'completed',
  );

/** Waits until the REST requests include one `find` accepts; resolves with it. */
function requested(what: string, find: () => ApiRequest | undefined): Promise<ApiRequest> {
  return waitUntil(find, what, undefined, () =>
    product.standIn.requests
      .map((r) => `${r.method} ${r.path.split('/').slice(-2).join('/')}`)
      .join(', '),
  );
}

/** Everything the flows had to do so far is done (callbacks answered, events handled). */
async function quiet(): Promise<void> {
  await product.cloud.settled();
  await product.leadline.flows.idle();
  await product.cloud.settled();
}

const callUsersOf = (callId: number) =>
  product.db.select().from(callUsers).where(eq(callUsers.callId, callId)).orderBy(callUsers.id);

/** The call-user id an agent's browser is rung with: `From: client:<call user id>`. */
const callUserIdOf = (ring: CloudParticipant) => {
  const from = /^client:(\d+)$/.exec(ring.from);
  expect(from, `ring From ${ring.from}`).not.toBeNull();
  return Number(from![1]);
};

/**
 * A web lead taken by `agent` and answered: the agent's leg and the lead's leg, both in the
 * conference, the call in progress.
 */
async function talking(agent: TwilioAgent) {
  const call = await postLead();
  const agentLeg = await product.cloud.agentRung(agent.identity, call.sid);
  await product.cloud.ring(agentLeg);
  await product.cloud.answer(agentLeg);
  const lead = await product.cloud.waitForParticipant(
    (p) => p.conference === call.sid && p.to === call.phone,
    'the lead to be dialled',
  );
  await product.cloud.ring(lead);
  await product.cloud.answer(lead);
  await product.waitForCall(call.id, (r) => r.status === 'in-progress' && r.answeredAt !== null);
  return { call, agentLeg, lead, callUserId: callUserIdOf(agentLeg) };
}

/** `agent2` joins `agent1`'s call through the console's conference button and answers. */
async function addAgent(from: TwilioAgent, to: TwilioAgent, sid: string) {
  const asked = await from.session.api('POST', '/api/v1/calls/conference', {
    user_id: to.session.userId,
  });
  expect(asked.body).toEqual({ success: true });
  const leg = await product.cloud.agentRung(to.identity, sid);
  await product.cloud.ring(leg);
  await product.cloud.answer(leg);
  return leg;
}

/** The newest call from an inbound caller. */
async function inboundCall(from: string): Promise<CallRow> {
  return waitUntil(async () => {
    const [row] = await product.db
      .select()
      .from(calls)
      .where(and(eq(calls.phoneNumber, from), eq(calls.direction, 'inbound')))
      .orderBy(desc(calls.id))
      .limit(1);
    return row;
  }, `the call from ${from}`);
}

/** A caller number of the agent's account (the DB's `caller_numbers`), by its seeded number. */
async function accountNumber(agent: TwilioAgent, phone: string) {
  const [user] = await product.db.select().from(users).where(eq(users.id, agent.session.userId));
  const numbers = await product.db
    .select()
    .from(callerNumbers)
    .where(eq(callerNumbers.accountId, user!.accountId));
  const number = numbers.find((n) => n.phoneNumber === phone);
  expect(number, `${phone} among ${numbers.map((n) => n.phoneNumber).join(', ')}`).toBeDefined();
  return number!;
}

/** A phone calls the account's main line: Twilio's voice webhook, and what it answered. */
async function callIn(agent: TwilioAgent) {
  const from = nextCaller();
  const to = (await accountNumber(agent, MAIN_LINE)).phoneNumber;
  const twilioSid = nextCallSid();
  const twiml = await product.cloud.voice({ From: from, To: to, CallSid: twilioSid });
  const call = await inboundCall(from);
  return { from, to, twilioSid, twiml, call };
}

/** The caller's leg in the conference (it joined through TwiML: the voice answer or a move). */
const callerLeg = (twilioSid: string) =>
  product.cloud.waitForParticipant(
    (p) => p.callSid === twilioSid && p.joined,
    `the caller ${twilioSid} to be in the conference`,
  );

describe('inbound calls', () => {
  it('a phone calls the account’s number: the agent is rung, the caller joins the call’s conference; answered, then the caller hangs up: completed', async () => {
    const [agent1] = await login('agent1@example.com');
    const { from, twilioSid, twiml, call } = await callIn(agent1!);
    expect(call).toMatchObject({ status: 'ringing', direction: 'inbound', source: 'inbound' });
    const ring = await product.cloud.agentRung(agent1!.identity, call.sid);
    expect(ring.fields).toMatchObject({
      Label: `agent-${agent1!.identity}`,
      From: expect.stringMatching(/^client:\d+$/) as string,
    });

    // The caller is kept on the line: either a wait (Pause) until the call is moved, or the
    // voice answer itself joins the conference named after the Leadline call sid.
    const joinsAtOnce = twiml.includes('<Conference');
    if (joinsAtOnce) {
      expect(twiml).toContain(`>${call.sid}</Conference>`);
      expect(twiml).toMatch(/participantLabel="caller-\d+"/);
    } else {
      expect(twiml).toMatch(/<Pause length="\d+"\/>/);
    }

    await product.cloud.ring(ring);
    await product.cloud.answer(ring);
    const live = await product.waitForCall(call.id, (r) => r.status === 'in-progress');
    expect(live).toMatchObject({ userId: agent1!.session.userId, direction: 'inbound' });
    expect(live.answeredAt).not.toBeNull();
    if (!joinsAtOnce) {
      // Moved into the conference: `Calls/<CA>.json` with the join TwiML.
      const moved = await requested(
        'the caller to be moved into the conference',
        () => requests('POST', new RegExp(`/Calls/${twilioSid}\\.json$`))[0],
      );
      expect(moved.form.Twiml).toContain(`>${call.sid}</Conference>`);
      expect(moved.form.Twiml).toMatch(/participantLabel="caller-\d+"/);
    }
    const caller = await callerLeg(twilioSid);
    // The caller is on the line already: nobody is dialled, only the agent was rung.
    expect(creates(call.sid).map((r) => r.form.To)).toEqual([
      expect.stringMatching(new RegExp(`^client:${agent1!.identity}\\?`)),
    ]);
    const [phone] = await product.db
      .select()
      .from(callPhones)
      .where(eq(callPhones.callId, call.id));
    expect(phone).toMatchObject({ direction: 'inbound', phoneNumber: from, fromNumber: MAIN_LINE });

    await product.cloud.hangUp(caller);
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'completed', userId: agent1!.session.userId });
    // The agent is hung up with the conference.
    await requested('the conference to be ended', () => conferenceEnds()[0]);
  });

  it('the caller hangs up while the agent is rung: the ring is cancelled and the call is missed', async () => {
    const [agent1] = await login('agent1@example.com');
    const { twilioSid, call } = await callIn(agent1!);
    const ring = await product.cloud.agentRung(agent1!.identity, call.sid);
    await product.cloud.ring(ring);
    // The caller waits in the conference (the voice answer joined it) and hangs up.
    await product.cloud.hangUp(await callerLeg(twilioSid));
    await requested(
      'the ring to be cancelled',
      () => onParticipant('DELETE', `agent-${agent1!.identity}`)[0],
    );
    expect(await product.waitForCall(call.id)).toMatchObject({
      status: 'missed',
      reason: 'caller-hung-up',
    });
    await quiet();
    const rings = await callUsersOf(call.id);
    expect(rings.map((r) => [r.userId, r.outcome])).toEqual([[agent1!.session.userId, 'canceled']]);
    // The agent is free at once (never took the call): the next lead rings them.
    const next = await postLead();
    expect(next).toMatchObject({ status: 'ringing', agent_id: agent1!.session.userId });
  });
});

describe('outgoing calls (click to call)', () => {
  it('the agent places a call: their browser joins the conference, the lead is dialled from the caller number they chose, else the account’s default', async () => {
    const [agent1] = await login('agent1@example.com');
    const ids = await agent1!.session.api<{ data: Array<{ id: number; name: string }> }>(
      'GET',
      '/api/v1/callerids',
    );
    const spring = ids.body.data.find((n) => n.name === 'Acme Solar spring campaign');
    expect(spring).toBeDefined();

    for (const [chosen, expectedFrom] of [
      [spring!.id, SPRING_CAMPAIGN],
      [undefined, MAIN_LINE],
    ] as const) {
      const phone = nextLead();
      const placed = await agent1!.session.api<{
        call_user_id: number;
        call: { id: number; phone_number: string };
      }>('POST', '/api/v1/calls/twilio/outbound', {
        agent_id: agent1!.session.userId,
        interface: 'desktop',
        fname: 'Cal',
        lname: 'Ler',
        phone_number: phone,
        ...(chosen === undefined ? {} : { caller_id: chosen }),
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(200);
      const { call_user_id: callUserId, call } = placed.body;
      expect(call.phone_number).toBe(phone);
      const { sid } = (await product.callRow(call.id))!;

      // The browser connects (`device.connect({params})`): Twilio asks the voice webhook.
      const twiml = await agent1!.connect({
        To: phone,
        call_user_id: String(callUserId),
        CallSid: nextCallSid(),
      });
      expect(twiml).toContain(`participantLabel="agent-${agent1!.identity}"`);
      expect(twiml).toContain(`>${sid}</Conference>`);
      // The browser's call is in the conference as the agent.
      const browser = await product.cloud.waitForParticipant(
        (p) => p.conference === sid && p.label === `agent-${agent1!.identity}`,
        'the browser to join',
      );
      expect(browser.joined).toBe(true);
      // The lead: a participant created over REST.
      const lead = await product.cloud.waitForParticipant(
        (p) => p.conference === sid && p.fields.To === phone,
        'the lead to be dialled',
      );
      expect(lead.label).toMatch(/^phone-\d+$/);
      expect(lead.fields).toMatchObject({ From: expectedFrom, To: phone });
      expect(await product.callRow(call.id)).toMatchObject({
        status: 'in-progress',
        userId: agent1!.session.userId,
      });

      await product.cloud.ring(lead);
      await product.cloud.answer(lead);
      await product.waitForCall(call.id, (r) => r.answeredAt !== null);
      const [dialled] = await product.db
        .select()
        .from(callPhones)
        .where(eq(callPhones.callId, call.id));
      expect(dialled).toMatchObject({ phoneNumber: phone, fromNumber: expectedFrom });
      await product.cloud.hangUp(lead);
      expect(await product.waitForCall(call.id)).toMatchObject({ status: 'completed' });
      // Done with the wrap-up, ready for the next call.
      await quiet();
      await agent1!.session.api('POST', '/api/v1/user/wrap-up/done');
    }
  });

  it('a browser call for a call user that does not exist is refused: the TwiML says why and hangs up', async () => {
    const [agent1] = await login('agent1@example.com');
    const before = product.standIn.requests.length;
    const twiml = await agent1!.connect({
      To: nextLead(),
      call_user_id: '999999',
      CallSid: nextCallSid(),
    });
    expect(twiml).toMatch(
      /<Say>This call was not found or is already over\.<\/Say><Hangup\/><\/Response>$/,
    );
    expect(twiml).not.toContain('<Conference');
    await quiet();
    // Nothing dialled.
    expect(product.standIn.requests.slice(before)).toEqual([]);
  });
});

describe('calls with more than two parties', () => {
  it('adding a busy number: the number is dialled, reported busy, and the call goes on as it was', async () => {
    const [agent1] = await login('agent1@example.com');
    const { twilioSid, call } = await callIn(agent1!);
    const ring = await product.cloud.agentRung(agent1!.identity, call.sid);
    await product.cloud.answer(ring);
    await product.waitForCall(call.id, (r) => r.status === 'in-progress');
    const caller = await callerLeg(twilioSid);

    const busy = '+15550199001';
    const adding = agent1!.session.api<Record<string, unknown>>(
      'POST',
      '/api/v1/calls/conferencelead',
      { call_id: call.id, fname: 'Busy', lname: 'Line', phone_number: busy },
    );
    const added = await product.cloud.waitForParticipant(
      (p) => p.conference === call.sid && p.to === busy,
      'the added number to be dialled',
    );
    expect(added.fields).toMatchObject({
      From: MAIN_LINE,
      Label: expect.stringMatching(/^phone-\d+$/) as string,
    });
    await product.cloud.unanswered(added, 'busy');
    const answer = await adding;
    expect(answer.body).toMatchObject({
      success: false,
      outcome: 'busy',
      error: "The lead's phone is busy.",
      call: { id: call.id, lead: null },
    });
    await quiet();
    expect(await product.callRow(call.id)).toMatchObject({ status: 'in-progress', leadId: null });
    // Nobody was taken out, the conference goes on.
    expect(removals(call.sid)).toEqual([]);
    expect(conferenceEnds()).toEqual([]);
    expect(caller.state).toBe('in-progress');
  });

  it('an agent who leaves a three-party call leaves the other agent and the lead connected', async () => {
    const [agent1, agent2] = await login('agent1@example.com', 'agent2@example.com');
    const { call, agentLeg, lead } = await talking(agent1!);
    const second = await addAgent(agent1!, agent2!, call.sid);
    await product.waitForCall(call.id, (r) => r.type === 'conference');

    // Agent1 hangs up in their browser: Twilio reports their leg gone.
    await product.cloud.hangUp(agentLeg);
    await product.waitForCall(call.id, (r) => r.userId === agent2!.session.userId);
    await quiet();
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      type: 'conference',
      userId: agent2!.session.userId,
    });
    // Nobody else is taken out: no removal but (at most) agent1's own, no end of the conference.
    expect(
      removals(call.sid).filter((r) => !r.path.endsWith(`/agent-${agent1!.identity}.json`)),
    ).toEqual([]);
    expect(conferenceEnds()).toEqual([]);
    expect([second.state, lead.state]).toEqual(['in-progress', 'in-progress']);
    const rows = await callUsersOf(call.id);
    expect(rows.map((r) => [r.userId, r.outcome, r.leftAt !== null])).toEqual([
      [agent1!.session.userId, 'accepted', true],
      [agent2!.session.userId, 'accepted', false],
    ]);
  });

  it('the lead leaving a three-party call ends it for both agents', async () => {
    const [agent1, agent2] = await login('agent1@example.com', 'agent2@example.com');
    const { call, agentLeg, lead } = await talking(agent1!);
    const second = await addAgent(agent1!, agent2!, call.sid);
    await product.waitForCall(call.id, (r) => r.type === 'conference');

    await product.cloud.hangUp(lead);
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'completed' });
    // Both agents are hung up: the conference is completed (or each is removed).
    await requested(
      'both agents to be hung up',
      () =>
        conferenceEnds()[0] ??
        (onParticipant('DELETE', `agent-${agent1!.identity}`)[0] &&
          onParticipant('DELETE', `agent-${agent2!.identity}`)[0]),
    );
    await quiet();
    expect([agentLeg.state, second.state]).toEqual(['ended', 'ended']);
    const rows = await callUsersOf(call.id);
    expect(rows.filter((r) => r.outcome === 'accepted' && r.leftAt === null)).toEqual([]);
  });
});

describe('transfers', () => {
  it('to an agent: the target is rung, answers, and the agent who asked is taken out; the call is the target’s', async () => {
    const [agent1, agent2] = await login('agent1@example.com', 'agent2@example.com');
    const { call, agentLeg, lead, callUserId } = await talking(agent1!);
    const asked = await agent1!.session.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent2!.session.userId,
      call_user_id: callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    const target = await product.cloud.agentRung(agent2!.identity, call.sid);
    expect(target.fields).toMatchObject({
      To: expect.stringMatching(new RegExp(`^client:${agent2!.identity}\\?`)) as string,
      Label: `agent-${agent2!.identity}`,
    });
    // Not before the target answers.
    await quiet();
    expect(onParticipant('DELETE', `agent-${agent1!.identity}`)).toEqual([]);

    await product.cloud.ring(target);
    await product.cloud.answer(target);
    await requested(
      'the agent who asked to be taken out',
      () => onParticipant('DELETE', `agent-${agent1!.identity}`)[0],
    );
    await quiet();
    expect(agentLeg.state).toBe('ended');
    expect(lead.state).toBe('in-progress');
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: agent2!.session.userId,
      held: false,
    });
    expect(removals(call.sid)).toHaveLength(1);
    expect(conferenceEnds()).toEqual([]);
    const rows = await callUsersOf(call.id);
    expect(rows.map((r) => [r.userId, r.type, r.outcome, r.leftAt !== null])).toEqual([
      [agent1!.session.userId, 'lead', 'accepted', true],
      [agent2!.session.userId, 'transfer', 'accepted', false],
    ]);
  });

  it('to a team: its agents are rung one at a time; one declines, the next answers and takes the lead', async () => {
    // Agent2 (Support) transfers to Sales: agent1 (longer idle), then the supervisor.
    const [agent2, agent1, supervisor] = await login(
      'agent2@example.com',
      'agent1@example.com',
      'supervisor@example.com',
    );
    const { call, callUserId } = await talking(agent2!);
    const teams = await agent2!.session.api<{ data: Array<{ id: number; name: string }> }>(
      'GET',
      '/api/v1/teams',
    );
    const sales = teams.body.data.find((t) => t.name === 'Sales');
    const asked = await agent2!.session.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      team_id: sales!.id,
      call_user_id: callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    const first = await product.cloud.agentRung(agent1!.identity, call.sid);
    await product.cloud.ring(first);
    await product.cloud.unanswered(first, 'busy');
    const second = await product.cloud.agentRung(supervisor!.identity, call.sid);
    await product.cloud.answer(second);
    await requested(
      'the agent who asked to be taken out',
      () => onParticipant('DELETE', `agent-${agent2!.identity}`)[0],
    );
    await quiet();
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: supervisor!.session.userId,
    });
    expect(creates(call.sid).map((r) => r.form.Label)).toEqual([
      `agent-${agent2!.identity}`,
      expect.stringMatching(/^phone-\d+$/),
      `agent-${agent1!.identity}`,
      `agent-${supervisor!.identity}`,
    ]);
    expect(removals(call.sid).map((r) => r.path.split('/').pop())).toEqual([
      `agent-${agent2!.identity}.json`,
    ]);
  });

  it('a transfer its target declines leaves the lead with the agent who asked', async () => {
    const [agent1, agent2] = await login('agent1@example.com', 'agent2@example.com');
    const { call, agentLeg, lead, callUserId } = await talking(agent1!);
    const asked = await agent1!.session.api('POST', `/api/v1/calls/${call.id}/transfer`, {
      user_id: agent2!.session.userId,
      call_user_id: callUserId,
    });
    expect(asked.body).toEqual({ success: true });
    const target = await product.cloud.agentRung(agent2!.identity, call.sid);
    await product.cloud.ring(target);
    await product.cloud.unanswered(target, 'busy');
    await waitUntil(async () => {
      const rows = await callUsersOf(call.id);
      return rows.find((r) => r.userId === agent2!.session.userId)?.outcome === 'rejected'
        ? true
        : undefined;
    }, 'the transfer to be declined');
    await quiet();
    expect(await product.callRow(call.id)).toMatchObject({
      status: 'in-progress',
      userId: agent1!.session.userId,
      held: false,
    });
    expect(removals(call.sid)).toEqual([]);
    expect(requests('POST', /\/Participants\/[^/]+\.json$/)).toEqual([]);
    expect(conferenceEnds()).toEqual([]);
    expect([agentLeg.state, lead.state]).toEqual(['in-progress', 'in-progress']);
  });
});

describe('supervision', () => {
  it('listen joins the supervisor muted; whisper coaches the agent’s leg; barge lets everyone hear them', async () => {
    const [agent1, supervisor] = await login('agent1@example.com', 'supervisor@example.com');
    const { call, agentLeg } = await talking(agent1!);
    const label = `agent-${supervisor!.identity}`;

    expect((await supervisor!.session.api('POST', `/api/v1/calls/${call.id}/listen`)).body).toEqual(
      { success: true },
    );
    const listening = await product.cloud.agentRung(supervisor!.identity, call.sid);
    expect(listening.fields).toMatchObject({ Label: label, Muted: 'true' });
    expect(listening.fields.Coaching ?? 'false').toBe('false');
    await product.cloud.answer(listening);
    await quiet();

    expect(
      (await supervisor!.session.api('POST', `/api/v1/calls/${call.id}/whisper`)).body,
    ).toEqual({ success: true });
    const whisper = await requested(
      'the supervisor to coach',
      () => onParticipant('POST', label)[0],
    );
    expect(whisper.form).toMatchObject({
      Coaching: 'true',
      CallSidToCoach: agentLeg.callSid,
      Muted: 'false',
    });
    expect(agentLeg.callSid).toMatch(/^CA[0-9a-f]{32}$/);

    expect((await supervisor!.session.api('POST', `/api/v1/calls/${call.id}/barge`)).body).toEqual({
      success: true,
    });
    const barge = await requested('the supervisor to barge', () => onParticipant('POST', label)[1]);
    expect(barge.form).toMatchObject({ Muted: 'false', Coaching: 'false' });
    expect(barge.form.CallSidToCoach).toBeUndefined();
    await quiet();
    // Only the supervisor's participant was changed; nobody was taken out.
    expect(
      requests('POST', /\/Participants\/[^/]+\.json$/).map((r) => r.path.split('/').pop()),
    ).toEqual([`${label}.json`, `${label}.json`]);
    expect(removals(call.sid)).toEqual([]);
    const rows = await callUsersOf(call.id);
    expect(rows.find((r) => r.userId === supervisor!.session.userId)).toMatchObject({
      type: 'barge',
      outcome: 'accepted',
    });
  });
});

describe('hold', () => {
  it('hold and unhold update the lead’s participant', async () => {
    const [agent1] = await login('agent1@example.com');
    const { call, lead } = await talking(agent1!);
    const held = await agent1!.session.api('PUT', `/api/v1/calls/${call.id}/hold`);
    expect(held.body).toEqual({ success: true, held: true });
    const hold = await requested('the lead to be held', () => onParticipant('POST', lead.label)[0]);
    expect(hold.form.Hold).toBe('true');
    expect(await product.callRow(call.id)).toMatchObject({ held: true, status: 'in-progress' });

    const unheld = await agent1!.session.api('PUT', `/api/v1/calls/${call.id}/unhold`);
    expect(unheld.body).toEqual({ success: true, held: false });
    const unhold = await requested(
      'the lead to be taken off hold',
      () => onParticipant('POST', lead.label)[1],
    );
    expect(unhold.form.Hold).toBe('false');
    expect(await product.callRow(call.id)).toMatchObject({ held: false, status: 'in-progress' });
    // Only the lead's participant is held; the agent's is untouched.
    expect(onParticipant('POST', `agent-${agent1!.identity}`)).toEqual([]);
  });
});

describe('SMS', () => {
  it('a follow-up text is sent through Twilio Messaging to the lead, from the account’s number', async () => {
    const [agent1] = await login('agent1@example.com');
    const { call, lead } = await talking(agent1!);
    await product.cloud.hangUp(lead);
    await product.waitForCall(call.id);
    const body = "Sorry we couldn't reach you!";
    const sent = await agent1!.session.api('POST', `/apps/webrtc/${call.id}/sms`, {
      smsbody: body,
    });
    expect(sent.body).toEqual({ success: true });
    const messages = requests('POST', /\/Accounts\/AC[0-9a-f]{32}\/Messages\.json$/);
    expect(messages.map((m) => m.form)).toEqual([{ To: call.phone, From: MAIN_LINE, Body: body }]);
  });
});

describe('repeated callbacks', () => {
  it('the same signed callback posted twice changes nothing twice', async () => {
    const [agent1] = await login('agent1@example.com');
    const { call, agentLeg, lead } = await talking(agent1!);
    await quiet();
    const snapshot = async () => {
      const row = (await product.callRow(call.id))!;
      const { status, userId, answeredAt, endedAt, seconds, held, type, reason } = row;
      return {
        call: { status, userId, answeredAt, endedAt, seconds, held, type, reason },
        users: await callUsersOf(call.id),
        phones: await product.db.select().from(callPhones).where(eq(callPhones.callId, call.id)),
        requests: product.standIn.requests.length,
      };
    };
    const before = await snapshot();
    expect(before.users).toHaveLength(1);
    expect(before.phones).toHaveLength(1);

    // Twilio tells again that the agent rang and answered, and that the lead answered.
    const told = product.cloud.callbacks.filter(
      (c) => c.params.CallSid === agentLeg.callSid || c.params.CallSid === lead.callSid,
    );
    expect(told.length).toBeGreaterThanOrEqual(5);
    for (const callback of told) await product.cloud.repeat(callback);
    await quiet();
    expect(await snapshot()).toEqual(before);
    // No second dial of the lead, no second ring of the agent.
    expect(creates(call.sid)).toHaveLength(2);

    // The lead hangs up; the end told twice ends the call once.
    const seen = product.cloud.callbacks.length;
    await product.cloud.hangUp(lead);
    const ended = await product.waitForCall(call.id);
    await quiet();
    const afterEnd = await snapshot();
    for (const callback of product.cloud.callbacks.slice(seen)) {
      await product.cloud.repeat(callback);
    }
    await quiet();
    expect(await snapshot()).toEqual(afterEnd);
    expect(ended).toMatchObject({ status: 'completed' });
    expect(conferenceEnds()).toHaveLength(1);
  });
});
