/**
 * The toll-fraud guard on the Twilio provider (issue 36 items 2 and 5), through the whole product
 * started with `TELEPHONY_PROVIDER=twilio` (composition root, real webhooks, real database), its
 * REST client pointed at the stand-in on loopback and a simulated Twilio posting signed webhooks:
 *
 * - `/twilio/voice` refuses a browser whose login has ended (its access token lives on for its
 *   hour) and a number the account may not call, saying the sentence, and dials nothing;
 * - an account without a caller number of its own never calls or texts from a number of the
 *   Twilio account (shared by every account): New Call, the browser's call, the SMS and a web
 *   lead posted with the account's intake key are refused with a sentence, and nothing reaches
 *   Twilio.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../admin/admin-api-keys';
import { SYSTEM_ACTOR } from '../admin/audit';
import { callerNumbers, calls, leads, smsMessages } from '../db/schema';
import { requestJson } from '../test-support/http-json';
import { startTwilioLeadline, type TwilioLeadline } from '../test-support/twilio-leadline';

let product: TwilioLeadline;

beforeAll(async () => {
  product = await startTwilioLeadline();
}, 60_000);
afterAll(() => product?.close());

afterEach(async () => {
  expect(await product.reset()).toEqual([]);
});

const callCount = async () => (await product.db.select({ n: count() }).from(calls))[0]!.n;

/** What Twilio was asked to create or send since the test began (rings, dials, messages). */
const twilioCreates = () =>
  product.standIn.requests.filter(
    (r) => r.method === 'POST' && /\/(Participants|Messages|Calls)\.json$/.test(r.path),
  );

/** The TwiML refusing a browser's call with `sentence` spoken. */
const refusal = (sentence: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${sentence}</Say><Hangup/></Response>`;

describe('/twilio/voice', () => {
  it('refuses a browser whose login has ended: its token outlives the logout', async () => {
    const [agent] = await product.loginInOrder('agent2@example.com');
    // While the login lasts, the browser's call is placed (joined to its conference).
    const placed = await product.cloud.voice({
      From: `client:${agent!.identity}`,
      To: '+15550100960',
    });
    expect(placed).toContain('<Conference');
    const [live] = await product.db
      .select()
      .from(calls)
      .where(eq(calls.phoneNumber, '+15550100960'));
    expect(live!.status).toBe('in-progress');
    // That call over (so only the login can stop the next one), the agent logs out.
    await product.db.update(calls).set({ status: 'completed' }).where(eq(calls.id, live!.id));

    const out = await agent!.session.api('POST', '/api/v1/user/logout');
    expect(out.status).toBe(200);
    const before = await callCount();
    product.standIn.reset();
    const twiml = await product.cloud.voice({
      From: `client:${agent!.identity}`,
      To: '+15550100961',
    });
    expect(twiml).toBe(refusal('Your login has ended: log in again to place calls.'));
    expect(await callCount()).toBe(before);
    expect(twilioCreates()).toEqual([]);
  });

  it('refuses a number the account may not call, saying why, and dials nothing', async () => {
    const [agent] = await product.loginInOrder('agent1@example.com');
    for (const [to, sentence] of [
      ['+449098790000', 'Calls to premium-rate numbers are not allowed.'],
      ['+74951234567', 'Calls to Russia are not allowed for this account.'],
    ] as const) {
      const before = await callCount();
      const twiml = await product.cloud.voice({ From: `client:${agent!.identity}`, To: to });
      expect(twiml).toBe(refusal(sentence));
      expect(await callCount()).toBe(before);
    }
    expect(twilioCreates()).toEqual([]);
  });
});

describe('Twilio tenancy: an account without a caller number of its own', () => {
  /** Account 781's agent, once the account's only caller number is gone. */
  async function numberlessAgent() {
    await product.db.delete(callerNumbers).where(eq(callerNumbers.accountId, 781));
    product.leadline.flows.settings.forget();
    const [agent] = await product.loginInOrder('agent@a781.example.com');
    return agent!;
  }

  it('New Call and the browser’s own call are refused with a sentence; Twilio is asked nothing', async () => {
    const agent = await numberlessAgent();
    const sentence =
      'This account has no caller number of its own: an administrator must add one before its agents can call.';
    const before = await callCount();
    const res = await agent.session.api('POST', '/api/v1/calls/twilio/outbound', {
      fname: 'Nora',
      lname: 'Number',
      phone_number: '+15550100970',
      agent_id: agent.session.userId,
    });
    expect(res).toMatchObject({ status: 403, body: { success: false, error: sentence } });
    const twiml = await product.cloud.voice({
      From: `client:${agent.identity}`,
      To: '+15550100971',
    });
    expect(twiml).toBe(refusal(sentence));
    expect(await callCount()).toBe(before);
    expect(twilioCreates()).toEqual([]);
  });

  it('an SMS is refused with a sentence; nothing is sent or stored', async () => {
    const agent = await numberlessAgent();
    const [call] = await product.db
      .insert(calls)
      .values({
        accountId: 781,
        sid: `CA${'7'.repeat(32)}`,
        phoneNumber: '+15550100972',
        status: 'completed',
        userId: agent.session.userId,
      })
      .returning();
    const res = await agent.session.api('POST', `/apps/webrtc/${call!.id}/sms`, {
      smsbody: 'Sorry we missed you',
    });
    expect(res).toMatchObject({
      status: 403,
      body: {
        success: false,
        error:
          'This account has no caller number of its own: an administrator must add one before its agents can text.',
      },
    });
    const [sms] = await product.db.select({ n: count() }).from(smsMessages);
    expect(sms!.n).toBe(0);
    expect(twilioCreates()).toEqual([]);
  });

  it('a web lead posted with its intake key is refused at intake (403); nothing stored or dialled', async () => {
    await numberlessAgent();
    const key = 'intake-key-of-account-781-0123456789abcdef';
    await createApiKey(product.db, SYSTEM_ACTOR, 781, { name: 'Web form' }, key);
    const [leadsBefore] = await product.db.select({ n: count() }).from(leads);
    const before = await callCount();
    const res = await requestJson(
      'POST',
      `${product.url}/api/v1/leads`,
      { authorization: `Bearer ${key}` },
      { fname: 'Wes', lname: 'Form', phone_number: '+15550100973' },
    );
    expect(res).toMatchObject({
      status: 403,
      body: {
        success: false,
        error:
          'This account has no caller number of its own: an administrator must add one before its agents can call.',
      },
    });
    expect(await callCount()).toBe(before);
    expect((await product.db.select({ n: count() }).from(leads))[0]).toEqual(leadsBefore);
    expect(twilioCreates()).toEqual([]);
  });
});
