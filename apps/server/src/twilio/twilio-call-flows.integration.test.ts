/**
 * The routing and call-lifecycle flows on the Twilio provider: the whole product started with
 * `TELEPHONY_PROVIDER=twilio` (composition root, real webhooks, real database), its REST client
 * pointed at a stand-in on loopback, and a simulated Twilio (`TwilioCloud`) sending the signed
 * status callbacks Twilio would send. Agents are online through their console's realtime
 * presence channel (pusher-js). What needs real media (who hears whom) is the embedded engine's
 * routing.integration.test.ts; here each flow is checked by the REST calls it makes and by what
 * the product stores and answers.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callUsers, calls, profiles } from '../db/schema';
import { startTwilioLeadline, type TwilioLeadline } from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';

let product: TwilioLeadline;
let leadNumber = 10;
const nextLead = () => `+155501000${String(leadNumber++).padStart(2, '0')}`;

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
  return { ...posted.body.call, phone };
}

const requests = (method: string, path: RegExp) => product.requests(method, path);

const creates = (conference: string) => product.creates(conference);

describe('routing on Twilio', () => {
  it('rings the longest idle agent first through the REST API; a reject and the ring timeout move it on; nobody left: missed', async () => {
    await product.db.update(profiles).set({ ringTimeoutMs: 1500 });
    product.leadline.flows.settings.forget();
    const [supervisor, agent1] = await login('supervisor@example.com', 'agent1@example.com');
    const call = await postLead();
    expect(call).toMatchObject({ status: 'ringing', agent_id: supervisor!.session.userId });
    const [row] = await product.db.select().from(calls).where(eq(calls.id, call.id));
    const sid = row!.sid;

    // Twilio is asked to ring the supervisor's browser into the call's conference.
    const first = await product.cloud.agentRung(supervisor!.identity, sid);
    expect(first).toMatchObject({ label: `agent-${supervisor!.identity}` });
    const [ring] = creates(sid);
    expect(ring!.form).toMatchObject({
      To: expect.stringMatching(new RegExp(`^client:${supervisor!.identity}\\?`)) as string,
      Label: `agent-${supervisor!.identity}`,
      StartConferenceOnEnter: 'true',
      EndConferenceOnExit: 'false',
      StatusCallback: expect.stringContaining(
        `https://calls.example.com/twilio/status?call=${sid}`,
      ) as string,
    });
    // The browser's custom parameters travel in the client URI, as the console reads them.
    const params = new URLSearchParams(ring!.form.To!.split('?')[1]);
    expect(params.get('To')).toBe(call.phone);

    // The supervisor's browser rings, then declines (Twilio reports the leg busy).
    await product.cloud.ring(first);
    await product.cloud.unanswered(first, 'busy');
    // Agent1 is rung next and lets it ring: the flows' 1.5 s timer cancels it (a DELETE).
    const second = await product.cloud.agentRung(agent1!.identity, sid);
    await product.cloud.ring(second);
    await waitUntil(
      () => requests('DELETE', new RegExp(`/Participants/agent-${agent1!.identity}\\.json$`))[0],
      'the timed-out ring to be removed',
    );
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'missed', reason: 'no-agent-answered', seconds: 0 });
    const rings = await product.db.select().from(callUsers).where(eq(callUsers.callId, call.id));
    expect(rings.map((r) => [r.userId, r.outcome])).toEqual([
      [supervisor!.session.userId, 'rejected'],
      [agent1!.session.userId, 'missed'],
    ]);
    // The lead was never dialled.
    expect(creates(sid).map((r) => r.form.To)).not.toContain(call.phone);
  });

  it('an accepted lead is dialled from the account’s number; talking, then the agent hangs up: completed, the conference ended', async () => {
    const [agent1] = await login('agent1@example.com');
    const call = await postLead();
    const sid = (await product.callRow(call.id))!.sid;
    const agentLeg = await product.cloud.agentRung(agent1!.identity, sid);
    await product.cloud.ring(agentLeg);
    await product.cloud.answer(agentLeg);

    const lead = await product.cloud.waitForParticipant(
      (p) => p.conference === sid && p.to === call.phone,
      'the lead to be dialled',
    );
    expect(lead.label).toMatch(/^phone-\d+$/);
    expect(lead.fields).toMatchObject({
      EarlyMedia: 'true',
      From: expect.stringMatching(/^\+1/) as string,
    });
    await product.cloud.ring(lead);
    await product.cloud.answer(lead);
    const live = await product.waitForCall(call.id, (r) => r.status === 'in-progress');
    expect(live.userId).toBe(agent1!.session.userId);

    // The agent hangs up in the browser: Twilio reports the leg gone; the flows end the call.
    await product.cloud.hangUp(agentLeg);
    const ended = await product.waitForCall(call.id);
    expect(ended).toMatchObject({ status: 'completed' });
    await waitUntil(
      () =>
        requests('POST', /\/Conferences\/CF[0-9a-f]+\.json$/).find(
          (r) => r.form.Status === 'completed',
        ) ?? requests('DELETE', new RegExp(`/Participants/${lead.label}\\.json$`))[0],
      'the lead to be hung up',
    );
    await product.cloud.settled();
    // Every callback Twilio sent was accepted (a repeat or a removed party's end changes nothing).
    expect(product.cloud.callbacks.filter((c) => c.status !== 204 && c.status !== 200)).toEqual([]);
  });

  it('the conference recording callback makes the call’s recording playable through recording_url', async () => {
    const [agent1] = await login('agent1@example.com');
    const call = await postLead();
    const sid = (await product.callRow(call.id))!.sid;
    const agentLeg = await product.cloud.agentRung(agent1!.identity, sid);
    await product.cloud.answer(agentLeg);
    const lead = await product.cloud.waitForParticipant(
      (p) => p.conference === sid && p.to === call.phone,
      'the lead to be dialled',
    );
    await product.cloud.answer(lead);
    await product.cloud.hangUp(lead);
    await product.waitForCall(call.id);
    const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(40, 7)]);
    await product.cloud.recordingReady(sid, wav, 42);
    const stored = await product.waitForCall(call.id, (r) => r.recordingPath !== null);
    expect(stored.recordingPath).toMatch(/^https:\/\/api\.twilio\.com\/2010-04-01\/Accounts\/AC/);
    const played = await agent1!.session.download(`/api/v1/calls/${call.id}/recording`);
    expect(played.status).toBe(200);
    expect(Buffer.from(played.bytes)).toEqual(wav);

    // Deleted at Twilio since: as gone as a missing file.
    await product.db
      .update(calls)
      .set({
        recordingPath: stored.recordingPath!.replace(/RE[0-9a-f]{32}$/, `RE${'9'.repeat(32)}`),
      })
      .where(eq(calls.id, call.id));
    const gone = await agent1!.session.api('GET', `/api/v1/calls/${call.id}/recording`);
    expect(gone).toMatchObject({ status: 404, body: { error: 'Recording not found.' } });
  });

  it('a phone calling a number no account has is rejected, and no call is stored', async () => {
    const before = (await product.db.select().from(calls)).length;
    const twiml = await product.cloud.voice({
      CallSid: `CA${'e'.repeat(32)}`,
      From: '+15550100555',
      To: '+15550109999',
    });
    expect(twiml).toContain('<Reject/>');
    expect((await product.db.select().from(calls)).length).toBe(before);
  });
});
