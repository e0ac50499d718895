/**
 * A lead's number passes the dial guard again when an agent takes the lead, on the real voice
 * engine (worker media threads, the sandbox phone network) with a headless agent on the real
 * wire, started from the environment as the product is (`loadConfig`, so the operator's
 * default ceiling applies). The account narrowed its countries after the lead came in: the
 * agent who accepts hears the guard's sentence in the gateway's `hangup` (error 31603, as a
 * New Call refused at connect), nothing is dialled, the call ends and the agent is free.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { accounts, callUsers, users } from '../db/schema';
import { AgentClient } from '../test-support/agent-client';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';

let product: RealLeadline;
let agent: AgentClient | undefined;

// Starting runs PGlite's migrations and the media workers: slow on a loaded two-core machine.
beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});
afterAll(() => product?.close());

/** The demo account's countries (its seed calls the United States, Canada and the UK). */
const callCountries = (countries: string[]) =>
  product.db
    .update(accounts)
    .set({ policy: { call_countries: countries } })
    .where(eq(accounts.id, 1));

describe('the dial when an agent takes a lead, on the real engine', () => {
  it('a premium-rate lead is refused at intake: 422 with the sentence, no call', async () => {
    const posted = await product.postLead({ fname: 'Pre', phone_number: '+44 909 000 0000' });
    expect({ status: posted.status, body: posted.body }).toEqual({
      status: 422,
      body: { error: 'Calls to premium-rate numbers are not allowed.' },
    });
  });

  it('a country the account stopped calling after intake: the agent is told why, nothing is dialled, the agent is free', async () => {
    agent = await AgentClient.login(product, 'agent1@example.com');
    await callCountries(['US', 'CA', 'GB']);
    const posted = await product.postLead({
      fname: 'Una',
      lname: 'Called',
      phone_number: '+44 20 7946 0958',
    });
    expect(posted.status).toBe(201);
    expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
    const invite = await agent.nextInvite();
    await callCountries(['US']);
    // The answer as the SDK sends it; the call may end before its media connects.
    await agent.answer(invite);
    const hangup = await agent.waitForHangup();
    expect(hangup).toMatchObject({
      error: {
        code: SignallingErrorCode.Declined,
        message: 'Calls to the United Kingdom are not allowed for this account.',
      },
    });
    const row = await product.waitForCall(posted.body.call.id);
    expect(row).toMatchObject({ status: 'canceled', reason: 'dial-refused', seconds: 0 });
    // Nothing dialled: the sandbox network never saw the call, no phone party rang.
    expect(product.engine.sandboxCalls().filter((c) => c.callSid === invite.callsid)).toEqual([]);
    expect(
      product.events.filter(
        (e) => e.type.startsWith('phone.') && 'callSid' in e && e.callSid === invite.callsid,
      ),
    ).toEqual([]);
    const rings = await product.db
      .select({ outcome: callUsers.outcome })
      .from(callUsers)
      .where(eq(callUsers.callId, row.id));
    expect(rings).toEqual([{ outcome: 'canceled' }]);
    const [me] = await product.db
      .select({ wrapUpUntil: users.wrapUpUntil })
      .from(users)
      .where(eq(users.id, agent.userId));
    expect(me!.wrapUpUntil).toBeNull();
    // Free: the next lead rings them.
    await callCountries(['US', 'CA', 'GB']);
    const next = await product.postLead({ fname: 'Nex', phone_number: '+15550100042' });
    expect(next.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
    const again = await agent.nextInvite();
    agent.reject(again);
    await product.waitForCall(next.body.call.id);
  }, 60_000);
});
