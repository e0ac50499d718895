/**
 * The toll-fraud guard on the Twilio provider (issue 36 items 2 and 5), through the whole product
 * started with `TELEPHONY_PROVIDER=twilio` (composition root, real webhooks, real database), its
 * REST client pointed at the stand-in on loopback and a simulated Twilio posting signed webhooks:
 *
 * - `/twilio/voice` refuses a browser whose login has ended (its access token lives on for its
 *   hour, and names that login: another login of the user does not keep it dialling, nor does a
 *   call without the name) and a number the account may not call, saying the sentence, and
 *   dials nothing;
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
import { TWILIO_LOGIN_PARAM } from '../auth/twilio-access-tokens';
import { requestJson } from '../test-support/http-json';
import { HttpSession } from '../test-support/http-session';
import { PRODUCTION_TEST_PASSWORD } from '../test-support/production-logins';
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

/** The sentence a browser whose login ended hears. */
const LOGIN_ENDED = 'Your login has ended: log in again to place calls.';

/** A Twilio access token of `session`'s login (`GET /api/v1/twilio/token2`). */
async function tokenOf(session: HttpSession): Promise<string> {
  const res = await session.api<{ token: string }>('GET', '/api/v1/twilio/token2');
  expect(res.status).toBe(200);
  return res.body.token;
}

/** The call placed to `phone` is over (so that only the login can stop the next one). */
async function callOver(phone: string): Promise<void> {
  const [live] = await product.db.select().from(calls).where(eq(calls.phoneNumber, phone));
  expect(live!.status).toBe('in-progress');
  await product.db.update(calls).set({ status: 'completed' }).where(eq(calls.id, live!.id));
}

/** The TwiML refusing a browser's call with `sentence` spoken. */
const refusal = (sentence: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${sentence}</Say><Hangup/></Response>`;

describe('/twilio/voice', () => {
  it('refuses a browser whose login has ended: its token outlives the logout', async () => {
    const [agent] = await product.loginInOrder('agent2@example.com');
    const token = await agent!.token();
    // While the login lasts, the browser's call is placed (joined to its conference).
    const placed = await product.cloud.connect(token, { To: '+15550100960' });
    expect(placed).toContain('<Conference');
    await callOver('+15550100960');

    const out = await agent!.session.api('POST', '/api/v1/user/logout');
    expect(out.status).toBe(200);
    const before = await callCount();
    product.standIn.reset();
    const twiml = await product.cloud.connect(token, { To: '+15550100961' });
    expect(twiml).toBe(refusal(LOGIN_ENDED));
    expect(await callCount()).toBe(before);
    expect(twilioCreates()).toEqual([]);
  });

  it('a token dials only while its own login lasts: the user’s other logins do not keep it on', async () => {
    const [agent] = await product.loginInOrder('agent2@example.com');
    const first = await agent!.token();
    const other = await HttpSession.login(
      product.url,
      'agent2@example.com',
      PRODUCTION_TEST_PASSWORD,
    );
    const second = await tokenOf(other);

    // The first login ends; the second lasts. The first login's token is refused, the second's dials.
    expect((await agent!.session.api('POST', '/api/v1/user/logout')).status).toBe(200);
    product.standIn.reset();
    expect(await product.cloud.connect(first, { To: '+15550100962' })).toBe(refusal(LOGIN_ENDED));
    expect(twilioCreates()).toEqual([]);
    expect(await product.cloud.connect(second, { To: '+15550100963' })).toContain('<Conference');
    await callOver('+15550100963');

    // "Log out everywhere", then the user logs in again: no earlier token dials for the new login.
    expect((await other.api('POST', '/api/v1/user/logout-everywhere')).status).toBe(200);
    const again = await HttpSession.login(
      product.url,
      'agent2@example.com',
      PRODUCTION_TEST_PASSWORD,
    );
    const before = await callCount();
    product.standIn.reset();
    for (const stale of [first, second]) {
      expect(await product.cloud.connect(stale, { To: '+15550100964' })).toBe(refusal(LOGIN_ENDED));
    }
    expect(await callCount()).toBe(before);
    expect(twilioCreates()).toEqual([]);
    expect(await product.cloud.connect(await tokenOf(again), { To: '+15550100965' })).toContain(
      '<Conference',
    );
    await callOver('+15550100965');
    await again.api('POST', '/api/v1/user/logout');
  });

  it('refuses a browser call that names no login (a token without one, or a form made up)', async () => {
    const [agent] = await product.loginInOrder('agent2@example.com');
    const before = await callCount();
    product.standIn.reset();
    for (const login of [undefined, '', 'not-a-login-of-theirs']) {
      const twiml = await product.cloud.voice({
        From: `client:${agent!.identity}`,
        To: '+15550100966',
        ...(login === undefined ? {} : { [TWILIO_LOGIN_PARAM]: login }),
      });
      expect(twiml).toBe(refusal(LOGIN_ENDED));
    }
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
      const twiml = await agent!.connect({ To: to });
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
    const twiml = await agent.connect({ To: '+15550100971' });
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
