import { eq } from 'drizzle-orm';
import type { CallUserResponse, OutboundCallResponse } from '@leadline/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routingChanged } from '../db/routing-changes';
import { callUsers, calls, leads, notes, users } from '../db/schema';
import {
  login,
  nothingLive,
  startTestApp,
  TEST_API_KEY,
  type Agent,
  type TestApp,
} from '../test-support/test-app';
import { ManualClock } from '../test-support/manual-clock';
import type { TelephonyCommand } from '../telephony/fake-telephony';
import { OUTBOUND_CONNECT_TIMEOUT_MS } from './call-flows';

type Ring = Extract<TelephonyCommand, { op: 'ringAgent' }>;
const isRing = (c: TelephonyCommand): c is Ring => c.op === 'ringAgent';

let t: TestApp;
let clock: ManualClock;
let agent: Agent;

const postLead = (payload: unknown, key = TEST_API_KEY) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    headers: { authorization: `Bearer ${key}` },
    payload: payload as Record<string, unknown>,
  });

beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock });
  agent = await login(t.app);
});
afterAll(() => t.close());
beforeEach(async () => {
  // Nobody is online until a test says so; no call is live, nothing rung.
  await nothingLive(t);
  t.telephony.commands.length = 0;
});

const online = async (userId: number) => {
  t.telephony.emit({ type: 'device.online', identity: String(userId) });
  await t.flows.idle();
};

describe('lead intake', () => {
  it('needs the API key', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/api/v1/leads', payload: {} });
    expect(none.statusCode).toBe(401);
    expect(none.json<{ error: string }>().error).toMatch(/API key/);
    const wrong = await postLead({ fname: 'A', phone_number: '+15550100042' }, 'nope-nope-nope');
    expect(wrong.statusCode).toBe(401);
  });

  it('validates the body (422 naming the field) and stores nothing', async () => {
    const before = (await t.database.db.select().from(leads)).length;
    const noPhone = await postLead({ fname: 'Dana' });
    expect(noPhone.statusCode).toBe(422);
    expect(noPhone.json()).toEqual({ error: 'The phone number field is required.' });
    const badPhone = await postLead({ fname: 'Dana', phone_number: '12' });
    expect(badPhone.json()).toEqual({ error: 'The phone number is not a valid phone number.' });
    const badEmail = await postLead({ fname: 'Dana', phone_number: '+15550100042', email: 'x' });
    expect(badEmail.json()).toEqual({ error: 'The email must be a valid email address.' });
    expect((await t.database.db.select().from(leads)).length).toBe(before);
  });

  it('stores the lead, creates the call and rings the available agent as client:<call user>', async () => {
    await online(agent.userId);
    const res = await postLead({
      fname: 'Jordan',
      lname: 'Miles',
      phone_number: '(555) 010-0042',
      company: 'Miles Roofing',
      unknown_field: 'ignored',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json<{
      lead: { id: number; phone_number: string; label: string };
      call: { id: number; status: string; agent_id: number };
    }>();
    expect(body.lead).toMatchObject({ phone_number: '+15550100042', label: 'Jordan Miles' });
    expect(body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
    const ring = t.telephony.commands.find(isRing)!;
    expect(ring).toMatchObject({ identity: String(agent.userId), params: { To: '+15550100042' } });
    const callUserId = Number(ring.params.From!.replace('client:', ''));
    const cu = await t.app.inject({
      method: 'GET',
      url: `/api/v1/callusers/${callUserId}`,
      headers: { cookie: agent.cookie },
    });
    expect(cu.statusCode).toBe(200);
    expect(cu.json()).toMatchObject({
      type: 'lead',
      autoaccept: false,
      call: { id: body.call.id, type: 'lead', lead: { fname: 'Jordan', company: 'Miles Roofing' } },
    });
    const tags = cu.json<{ call: { profile: { tags: Array<{ key: string }> } } }>().call.profile
      .tags;
    expect(tags.map((tag) => tag.key)).toEqual([
      'hot',
      'quote-sent',
      'follow-up',
      'not-interested',
    ]);
  });

  it('queues a web lead nobody can take, offers it to the first agent who comes online', async () => {
    const res = await postLead({ fname: 'Nobody', phone_number: '+15550100043' });
    expect(res.json()).toMatchObject({
      call: { status: 'queued', agent_id: null, reason: 'no-agents-online' },
    });
    expect(t.telephony.ops('ringAgent')).toHaveLength(0);
    await online(agent.userId);
    const rings = t.telephony.ops('ringAgent');
    expect(rings.map((r) => [r.identity, r.params.To])).toEqual([
      [String(agent.userId), '+15550100043'],
    ]);
    const [row] = await t.database.db
      .select()
      .from(calls)
      .where(eq(calls.id, res.json<{ call: { id: number } }>().call.id));
    expect(row).toMatchObject({ status: 'ringing', reason: null });
  });

  it('a caller gets busy when every online agent is on a call; a waiting web lead ends busy when its wait runs out', async () => {
    await online(agent.userId);
    const first = await postLead({ fname: 'First', phone_number: '+15550100047' });
    const [firstCall] = await t.database.db
      .select()
      .from(calls)
      .where(eq(calls.id, first.json<{ call: { id: number } }>().call.id));
    t.telephony.emit({
      type: 'agent.answered',
      callSid: firstCall!.sid,
      identity: String(agent.userId),
    });
    await t.flows.idle();
    const caller = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: { from: '+15550107001', to: '+15550142000' },
    });
    expect(caller.json()).toMatchObject({
      call: { status: 'busy', agent_id: null, reason: 'all-agents-busy' },
    });
    const second = await postLead({ fname: 'Second', phone_number: '+15550100048' });
    expect(second.json()).toMatchObject({
      call: { status: 'queued', agent_id: null, reason: 'all-agents-busy' },
    });
    const secondId = second.json<{ call: { id: number } }>().call.id;
    const statusOf = async () =>
      (await t.database.db.select().from(calls).where(eq(calls.id, secondId)))[0]!;
    // The profile's queue timeout (3600 s by default) passes: the lead ends as busy.
    clock.advance(3_599_000);
    await t.flows.sweepQueue();
    expect(await statusOf()).toMatchObject({ status: 'queued' });
    clock.advance(1_000);
    await t.flows.sweepQueue();
    await t.flows.idle();
    expect(await statusOf()).toMatchObject({ status: 'busy', reason: 'all-agents-busy' });
  });
});

describe('New Call', () => {
  it("answers with the whole call, as GET /api/v1/callusers/{id} gives it: the lead's profile and its tags (Tags & Stages)", async () => {
    await online(agent.userId);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { fname: 'Tagged', phone_number: '+15550100776', agent_id: agent.userId },
    });
    expect(placed.statusCode).toBe(200);
    const answer = placed.json<OutboundCallResponse>();
    // The demo account's default profile asks for Tags & Stages and has tags.
    expect(answer.call.profile).toMatchObject({ is_deal_whispertext: true });
    expect(answer.call.profile!.tags.length).toBeGreaterThan(0);
    expect(answer.call).toMatchObject({
      type: 'lead',
      direction: 'outbound',
      lead: { fname: 'Tagged', phone_number: '+15550100776' },
      phone_number: '+15550100776',
    });
    const loaded = await t.app.inject({
      method: 'GET',
      url: `/api/v1/callusers/${answer.call_user_id}`,
      headers: { cookie: agent.cookie },
    });
    expect(loaded.statusCode).toBe(200);
    expect(answer.call).toEqual(loaded.json<CallUserResponse>().call);
  });

  it('withdraws a call the console never connects, and the agent takes leads again', async () => {
    await online(agent.userId);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { fname: 'Olu', phone_number: '+15550100777', agent_id: agent.userId },
    });
    expect(placed.statusCode).toBe(200);
    const callId = placed.json<{ call: { id: number } }>().call.id;
    // Meanwhile a lead waits: the agent is busy placing their call.
    const lead = await postLead({ fname: 'Waits', phone_number: '+15550100049' });
    expect(lead.json()).toMatchObject({ call: { status: 'queued' } });
    clock.advance(OUTBOUND_CONNECT_TIMEOUT_MS - 1);
    await t.flows.idle();
    const [stillQueued] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(stillQueued!.status).toBe('queued');
    clock.advance(1);
    await t.flows.idle();
    const [withdrawn] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(withdrawn!.status).toBe('canceled');
    // Free again: the waiting lead rings them.
    expect(t.telephony.ops('ringAgent').map((r) => [r.identity, r.params.To])).toEqual([
      [String(agent.userId), '+15550100049'],
    ]);
  });
});

describe('New Call hung up while dialing', () => {
  it("the console's reject withdraws it at once (no connect timeout), and the agent takes leads again", async () => {
    await online(agent.userId);
    const headers = { cookie: agent.cookie, 'x-csrf-token': agent.csrf };
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers,
      payload: { fname: 'Quick', phone_number: '+15550100778', agent_id: agent.userId },
    });
    const callId = placed.json<{ call: { id: number } }>().call.id;
    const lead = await postLead({ fname: 'Waits', phone_number: '+15550100051' });
    expect(lead.json()).toMatchObject({ call: { status: 'queued' } });
    const rejected = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/reject`,
      headers,
    });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toEqual({ success: true, call: { id: callId, status: 'canceled' } });
    await t.flows.idle();
    expect(t.telephony.ops('ringAgent').map((r) => [r.identity, r.params.To])).toEqual([
      [String(agent.userId), '+15550100051'],
    ]);
    // Said twice (a retried request): nothing changes, no error.
    const again = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/reject`,
      headers,
    });
    expect(again.json()).toEqual({ success: true, call: { id: callId, status: 'canceled' } });
  });

  it("another agent cannot withdraw someone's New Call", async () => {
    await online(agent.userId);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { fname: 'Mine', phone_number: '+15550100779', agent_id: agent.userId },
    });
    const callId = placed.json<{ call: { id: number } }>().call.id;
    const other = await login(t.app, 'agent2@example.com');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/reject`,
      headers: { cookie: other.cookie, 'x-csrf-token': other.csrf },
    });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.statusCode).toBeLessThan(500);
    const [still] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(still!.status).toBe('queued');
  });
});

describe('Check for lead', () => {
  it('says why the agent cannot take the waiting lead: Away, or their phone is not connected', async () => {
    const lead = await postLead({ fname: 'Waits', phone_number: '+15550100050' });
    expect(lead.json()).toMatchObject({ call: { status: 'queued', reason: 'no-agents-online' } });
    const check = () =>
      t.app.inject({
        method: 'POST',
        url: '/apps/webrtc/check',
        headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      });
    expect((await check()).json()).toMatchObject({
      success: false,
      error: 'Your phone is not connected: open the console first.',
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/user/status',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { status: 'away' },
    });
    await online(agent.userId);
    expect((await check()).json()).toMatchObject({
      success: false,
      error: 'You are Away: set yourself Available to take a lead.',
    });
    await t.database.db.update(users).set({ isAvailable: true });
    routingChanged();
  });
});

describe('a lead call, end to end through the flows', () => {
  it('dials the lead when the agent answers, counts seconds from the lead answering, ends everywhere', async () => {
    await online(agent.userId);
    const res = await postLead({ fname: 'Jordan', phone_number: '+15550100042' });
    const callId = res.json<{ call: { id: number } }>().call.id;
    const [call] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    const sid = call!.sid;

    t.telephony.emit({ type: 'agent.answered', callSid: sid, identity: String(agent.userId) });
    await t.flows.idle();
    // Dialled from the account's default caller number (the demo's main line).
    expect(t.telephony.ops('dial')).toEqual([
      expect.objectContaining({ callSid: sid, number: '+15550100042', from: '+15550142000' }),
    ]);

    clock.advance(1000);
    t.telephony.emit({
      type: 'phone.answered',
      callSid: sid,
      participantId: t.telephony.lastPhone(sid),
    });
    await t.flows.idle();
    clock.advance(7400);
    t.telephony.emit({
      type: 'agent.left',
      callSid: sid,
      identity: String(agent.userId),
      reason: 'hangup',
    });
    await t.flows.idle();
    expect(t.telephony.commands).toContainEqual({ op: 'hangup', callSid: sid });

    const [ended] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(ended).toMatchObject({ status: 'completed', seconds: 7, userId: agent.userId });
    const [cu] = await t.database.db.select().from(callUsers).where(eq(callUsers.callId, callId));
    expect(cu!.outcome).toBe('accepted');

    // The agent records the outcome and a note.
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/disposition`,
      headers: { cookie: agent.cookie },
      payload: { status: 'contacted' },
    });
    expect(noCsrf.statusCode).toBe(403);
    const bad = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/disposition`,
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { status: 'great' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      error: 'The status must be one of contacted, voicemail, missed, removed.',
    });
    const ok = await t.app.inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/disposition`,
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { status: 'contacted' },
    });
    expect(ok.statusCode).toBe(200);
    const note = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf },
      payload: { content: 'Wants a quote', call_id: callId },
    });
    expect(note.statusCode).toBe(201);
    const [saved] = await t.database.db.select().from(calls).where(eq(calls.id, callId));
    expect(saved!.disposition).toBe('contacted');
    expect(await t.database.db.select().from(notes).where(eq(notes.callId, callId))).toHaveLength(
      1,
    );
  });

  it('records a missed call when the agent rejects, and when nobody answers in time', async () => {
    await online(agent.userId);
    const a = await postLead({ fname: 'Reject', phone_number: '+15550100044' });
    const aId = a.json<{ call: { id: number } }>().call.id;
    const [aCall] = await t.database.db.select().from(calls).where(eq(calls.id, aId));
    t.telephony.emit({
      type: 'agent.rejected',
      callSid: aCall!.sid,
      identity: String(agent.userId),
    });
    await t.flows.idle();
    expect((await t.database.db.select().from(calls).where(eq(calls.id, aId)))[0]!.status).toBe(
      'missed',
    );

    const b = await postLead({ fname: 'Timeout', phone_number: '+15550100045' });
    const bId = b.json<{ call: { id: number } }>().call.id;
    const [bCall] = await t.database.db.select().from(calls).where(eq(calls.id, bId));
    const statusOfB = async () =>
      (await t.database.db.select().from(calls).where(eq(calls.id, bId)))[0]!.status;
    clock.advance(29_999);
    await t.flows.idle();
    expect(await statusOfB()).toBe('ringing');
    clock.advance(1);
    await t.flows.idle();
    expect(await statusOfB()).toBe('missed');
    expect(t.telephony.ops('cancelRing').filter((c) => c.callSid === bCall!.sid)).toEqual([
      { op: 'cancelRing', callSid: bCall!.sid, identity: String(agent.userId) },
    ]);
  });

  it('keeps other users out: another user gets 404 for the call user', async () => {
    await online(agent.userId);
    const res = await postLead({ fname: 'Private', phone_number: '+15550100046' });
    expect(res.statusCode).toBe(201);
    const ring = t.telephony.commands.find(isRing)!;
    const other = await login(t.app, 'agent2@example.com');
    const cu = await t.app.inject({
      method: 'GET',
      url: `/api/v1/callusers/${ring.params.From!.slice(7)}`,
      headers: { cookie: other.cookie },
    });
    expect(cu.statusCode).toBe(404);
    const badId = await t.app.inject({
      method: 'GET',
      url: '/api/v1/callusers/abc',
      headers: { cookie: other.cookie },
    });
    expect(badId.statusCode).toBe(422);
  });
});
