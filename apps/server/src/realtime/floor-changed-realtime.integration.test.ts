/**
 * The floor, live (issue 39), on the real engine: a supervisor's realtime client (pusher-js 8 in
 * Node, built from GET /api/v1/user, subscribed through the real channel auth route) hears
 * `floor-changed` on the account channel as a lead joins the queue (nobody online), leaves it
 * when the agent who comes online is rung, is answered (by the agent, and again by the lead's
 * phone if it answers before the hang-up) and ends; each event says which call and
 * how, and nothing else (every user of the account hears that channel).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FloorChangeReason } from '@leadline/contracts';
import { AgentClient } from '../test-support/agent-client';
import { HttpSession } from '../test-support/http-session';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { openRealtimeClient, type RealtimeClient } from '../test-support/realtime-client';

let product: RealLeadline;
let observer: RealtimeClient | undefined;
let agent: AgentClient | undefined;

beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterAll(async () => {
  observer?.close();
  await agent?.close();
  await product?.close();
});

it('tells the supervisors when a lead joins the queue, leaves it, is answered and ends', async () => {
  const supervisor = await HttpSession.login(product.url, 'supervisor@example.com');
  observer = await openRealtimeClient(supervisor);
  const client = observer;
  const next = (callId: number, reason: FloorChangeReason) =>
    client.nextFloorChange((e) => e.call_id === callId && e.reason === reason);

  // Nobody is online: the lead waits in the queue.
  const posted = await product.postLead({
    fname: 'Wai',
    lname: 'Ting',
    phone_number: '+15550100042',
  });
  expect(posted.status).toBe(201);
  const callId = posted.body.call.id;
  expect(posted.body.call.status).toBe('queued');
  const queued = await next(callId, 'queued');
  // Which call and how, when: no lead, number or agent.
  expect(Object.keys(queued).sort()).toEqual(['at', 'call_id', 'reason']);
  expect(new Date(queued.at).toISOString()).toBe(queued.at);

  // The agent's softphone registers: the waiting lead is offered to them, out of the queue.
  agent = await AgentClient.login(product, 'agent1@example.com');
  await next(callId, 'ringing');
  const invite = await agent.nextInvite();
  await agent.accept(invite);
  await next(callId, 'answered');
  await agent.hangup();
  await next(callId, 'ended');

  // In that order, each once, but `answered` twice when the lead's phone answered before the
  // hang-up (the agent took the call; the lead's talk started).
  const reasons = client.floorChanges.filter((e) => e.call_id === callId).map((e) => e.reason);
  const answers = reasons.filter((reason) => reason === 'answered').length;
  expect(answers === 1 || answers === 2, `answered ${answers} times`).toBe(true);
  expect(reasons).toEqual([
    'queued',
    'ringing',
    ...Array.from({ length: answers }, () => 'answered' as const),
    'ended',
  ]);
}, 120_000);
