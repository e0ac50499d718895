/**
 * The pre-call network test on the real voice engine: the whole product in this process, with
 * headless agents (werift legs standing in for browsers, each "microphone" playing its tone).
 * The test call reaches the engine's echo number, which is checked by listening: the agent
 * hears its own tone come back. It writes no call, lead or history row; routing rings the agent
 * with no lead while it lasts and does once it ends; bad requests and calls are refused. How
 * long a test may last is proven on a fake clock in `network-tests.test.ts`.
 */
import type { NetworkTestResponse } from '@leadline/contracts';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { readWavFile } from '@leadline/voice/dsp';
import { tonesIn } from '@leadline/voice/testing';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routingChanged } from '../db/routing-changes';
import { callPhones, callUsers, calls, leads, users } from '../db/schema';
import { AgentClient, OutboundCallFailedError, type AgentCall } from '../test-support/agent-client';
import { HttpSession } from '../test-support/http-session';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { waitUntil } from '../test-support/wait-until';
import { NETWORK_TEST_REFUSED } from './network-tests';

const AGENT1_HZ = 1000;
const AGENT2_HZ = 700;
const LEAD_HZ = 440;

let product: RealLeadline;
let open: AgentClient[] = [];

beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterAll(() => product?.close());

afterEach(async () => {
  for (const agent of open) if (agent.call) await agent.hangup().catch(() => undefined);
  await Promise.all(open.map((agent) => agent.close()));
  open = [];
  await waitUntil(async () => {
    const online = await product.db.select().from(users).where(eq(users.isOnlineApp, true));
    return online.length === 0 ? true : undefined;
  }, 'every agent to be offline');
  await product.flows.idle();
  await product.db.update(calls).set({ status: 'completed' });
  await product.db.update(users).set({ wrapUpUntil: null, isAvailable: true });
  routingChanged();
});

async function login(email: string, toneHz: number): Promise<AgentClient> {
  const agent = await AgentClient.login(product, email, { toneHz });
  open.push(agent);
  return agent;
}

/** Rows a test call must not add to: calls, their users and phones, leads. */
async function rowCounts(): Promise<Record<string, number>> {
  const { db } = product;
  return {
    calls: (await db.select().from(calls)).length,
    callUsers: (await db.select().from(callUsers)).length,
    callPhones: (await db.select().from(callPhones)).length,
    leads: (await db.select().from(leads)).length,
  };
}

/** The agent's Call History total (`GET /api/v1/mycalls`). */
async function historyTotal(agent: AgentClient): Promise<number> {
  const res = await agent.api<{ meta: { total: number } }>('GET', '/api/v1/mycalls?page=1');
  expect(res.status).toBe(200);
  return res.body.meta.total;
}

/** `POST /api/v1/network-test` as the console sends it (no body). */
async function startTest(agent: AgentClient): Promise<NetworkTestResponse> {
  const res = await agent.api<NetworkTestResponse>('POST', '/api/v1/network-test');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Places the test call with the answer's connect params, as the softphone does. */
async function placeTestCall(agent: AgentClient, test: NetworkTestResponse): Promise<AgentCall> {
  return agent.connect(test.params);
}

/** The `hangup` frame's error when the engine refuses a call placed with `params`. */
async function refusedCall(agent: AgentClient, params: Record<string, string>) {
  const failure = await agent.connect(params).then(
    () => {
      throw new Error('the call was answered');
    },
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(OutboundCallFailedError);
  return (failure as OutboundCallFailedError).payload.error;
}

describe('the network test on the real engine', () => {
  it('reaches the echo number: the agent hears its own tone come back, and no row is written', async () => {
    const agent = await login('agent1@example.com', AGENT1_HZ);
    const rowsBefore = await rowCounts();
    const historyBefore = await historyTotal(agent);

    const test = await startTest(agent);
    expect(test).toMatchObject({ success: true, params: { network_test: test.test_id } });
    const call = await placeTestCall(agent, test);
    const placed = await product.waitForEvent('outgoing.placed', { callSid: call.callSid });
    expect(placed).toMatchObject({ to: '+15550199006', identity: agent.identity });
    await product.waitForEvent('phone.answered', { callSid: call.callSid });
    // The echo plays back what it hears: the agent's own 1000 Hz, and nothing else.
    await waitUntil(
      async () => ((await agent.hears(AGENT1_HZ, 0.5, 0.8)) ? true : undefined),
      "the agent's own tone, echoed",
    );
    expect(await agent.tonesHeard([LEAD_HZ, AGENT2_HZ, AGENT1_HZ], 1.5)).toEqual([AGENT1_HZ]);

    await agent.hangup();
    // The server closes the test's room: the echo leaves and reports what it heard.
    const recorded = await product.waitForEvent('phone.recorded', { callSid: call.callSid });
    const heardByEcho = (await readWavFile(recorded.path)).samples;
    expect(tonesIn(heardByEcho, [AGENT1_HZ], 0.5)).toEqual([AGENT1_HZ]);
    expect(product.engine.sandboxCalls().find((c) => c.callSid === call.callSid)).toMatchObject({
      to: '+15550199006',
      state: 'ended',
    });
    await product.flows.idle();
    expect(await rowCounts()).toEqual(rowsBefore);
    expect(await historyTotal(agent)).toBe(historyBefore);
    // Over: the agent may test again.
    await waitUntil(
      () => (product.leadline.networkTests.isTesting(agent.userId) ? undefined : true),
      'the test to be over',
    );
    expect((await agent.api('POST', '/api/v1/network-test')).status).toBe(200);
  });

  it('rings the agent with no lead while the test lasts; the lead waiting rings once it ends', async () => {
    const agent = await login('agent1@example.com', AGENT1_HZ);
    const test = await startTest(agent);
    const testCall = await placeTestCall(agent, test);
    await product.waitForEvent('phone.answered', { callSid: testCall.callSid });

    const posted = await product.postLead({
      fname: 'Wai',
      lname: 'Ting',
      phone_number: '+15550100061',
    });
    expect(posted.status).toBe(201);
    // The only agent online is testing: the web lead waits in the queue, nobody is rung.
    expect(posted.body.call).toMatchObject({ status: 'queued', reason: 'all-agents-busy' });
    expect(agent.signal.frames.filter((f) => f.type === 'invite')).toEqual([]);

    await agent.hangup();
    const invite = await agent.nextInvite();
    expect(invite.parameters.To).toBe('+15550100061');
    await agent.accept(invite);
    await product.waitForEvent('phone.answered', { callSid: invite.callsid });
    expect(await agent.hears(LEAD_HZ, 1)).toBe(true);
    const row = await product.callRow(posted.body.call.id);
    expect(row).toMatchObject({ status: 'in-progress', userId: agent.userId });
  });

  it('refuses what it cannot do: a body with parameters, no CSRF token, a second test, an agent on a call', async () => {
    const agent = await login('agent1@example.com', AGENT1_HZ);
    const withBody = await agent.api('POST', '/api/v1/network-test', { seconds: 60 });
    expect(withBody).toMatchObject({
      status: 422,
      body: { error: 'A network test takes no parameters: send no body or {}.' },
    });
    const noCsrf = await fetch(`${product.url}/api/v1/network-test`, {
      method: 'POST',
      headers: { cookie: agent.cookie },
    });
    expect(noCsrf.status).toBe(403);

    await startTest(agent);
    const second = await agent.api('POST', '/api/v1/network-test');
    expect(second).toMatchObject({
      status: 409,
      body: { success: false, error: 'A network test is already running.' },
    });
  });

  it('refuses an agent on a lead call, and one whose phone is not registered', async () => {
    const agent = await login('agent1@example.com', AGENT1_HZ);
    const posted = await product.postLead({
      fname: 'On',
      lname: 'Call',
      phone_number: '+15550100062',
    });
    expect(posted.status).toBe(201);
    await agent.accept(await agent.nextInvite());
    const onCall = await agent.api('POST', '/api/v1/network-test');
    expect(onCall).toMatchObject({ status: 409, body: { success: false } });

    const noPhone = await HttpSession.login(product.url, 'agent2@example.com');
    const offline = await noPhone.api('POST', '/api/v1/network-test');
    expect(offline).toMatchObject({
      status: 409,
      body: { success: false, error: 'Your phone is not connected: open the console first.' },
    });
  });

  it("refuses a test call with an unknown id, another agent's id, or an id already used (31404)", async () => {
    const agent1 = await login('agent1@example.com', AGENT1_HZ);
    const agent2 = await login('agent2@example.com', AGENT2_HZ);
    const rowsBefore = await rowCounts();
    const unknown = await refusedCall(agent1, { network_test: 'NT0000' });
    expect(unknown).toEqual(NETWORK_TEST_REFUSED);
    expect(NETWORK_TEST_REFUSED.code).toBe(SignallingErrorCode.CallNotFound);

    const test = await startTest(agent1);
    expect(await refusedCall(agent2, test.params)).toEqual(NETWORK_TEST_REFUSED);
    await placeTestCall(agent1, test);
    await agent1.hangup();
    expect(await refusedCall(agent1, test.params)).toEqual(NETWORK_TEST_REFUSED);
    await product.flows.idle();
    expect(await rowCounts()).toEqual(rowsBefore);
  });
});
