/**
 * Property: whatever clients send on `/signal` (random bytes and strings, non-JSON, JSON of wrong
 * shapes, every client frame type with wrong or someone else's values, wrong versions, binary
 * frames, frames over the size limit, text that is not UTF-8, call frames aimed at another
 * agent's live call with its callsid and reconnect token), the gateway answers each with the
 * protocol's answer (a coded `error`, or a clean close for an oversize or non-UTF-8 frame) and
 * nothing else, the server stays up, the call in progress keeps its audio both ways and its row,
 * and when the fuzzers are gone the gateway keeps no more than before. 5,000+ frames per run.
 *
 * The real product runs in this process (worker media engine, werift legs, sandbox network).
 * Agent 1 takes a web lead (+15550100041, 440 Hz) and talks (1000 Hz) through the fuzzing;
 * fuzzers are anonymous sockets and sockets of agent 2 (same account) and of account 6671's
 * agent, so call frames get past authentication to the gateway's call paths.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import type { CallUserResponse } from '@leadline/contracts';
import { between, tonesIn, windows } from '@leadline/voice/testing';
import { AccessTokens } from '../auth/access-token';
import { FINAL_STATUSES } from '../calls/calls-repo';
import { calls } from '../db/schema';
import { AgentClient } from '../test-support/agent-client';
import { HttpSession } from '../test-support/http-session';
import { requestJson } from '../test-support/http-json';
import { leadHeard } from '../test-support/lead-heard';
import {
  fuzzFrame,
  PStreamFuzzer,
  type FuzzContext,
  type FuzzerRole,
  type FuzzTally,
} from '../test-support/pstream-fuzz';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { waitUntil } from '../test-support/wait-until';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
/** Generated frames per run (the property asks for 5,000 at least). */
const FRAMES = 5_200;
const TONES = { agent: 1000, lead: 440 } as const;
/** Audio is checked in windows this long (a tone must carry 10% of a window's power). */
const WINDOW_S = 0.5;
const AUDIO_RATE_HZ = 8000;
/** Share of the windows the lead hears that may miss the agent (see the check). */
const MAX_GAP_SHARE = 0.2;

let product: RealLeadline | undefined;
afterAll(() => product?.close());

/** A user's softphone token, fetched as the console does. */
async function tokenOf(
  p: RealLeadline,
  email: string,
): Promise<{ token: string; identity: string; userId: number }> {
  const session = await HttpSession.login(p.url, email);
  const issued = await session.api<{ token: string }>('GET', '/api/v1/twilio/token2');
  expect(issued.status).toBe(200);
  return { token: issued.body.token, identity: String(session.userId), userId: session.userId };
}

/** The indexes of the `WINDOW_S` windows of `samples` that do not carry `toneHz`. */
function silentWindows(samples: Int16Array, toneHz: number): number[] {
  const parts = windows(samples, WINDOW_S * AUDIO_RATE_HZ);
  return parts.flatMap((part, i) => (tonesIn(part, [toneHz], 0.1).length === 1 ? [] : [i]));
}

it('answers 5,000+ random and malformed signalling frames with protocol errors; a call in progress keeps its audio', async () => {
  const p = (product = await startRealLeadline());

  // Agent 1 takes a lead: both sides hear each other.
  const agent = await AgentClient.login(p, 'agent1@example.com', { toneHz: TONES.agent });
  const posted = await p.postLead({ fname: 'Fuzz', lname: 'Lead', phone_number: '+15550100041' });
  expect(posted.status).toBe(201);
  const callId = posted.body.call.id;
  const invite = await agent.nextInvite();
  const live = await agent.accept(invite);
  await p.waitForEvent('phone.answered', { callSid: invite.callsid });
  expect(await agent.hears(TONES.lead, 1)).toBe(true);
  const rowBefore = await p.callRow(callId);
  expect(rowBefore).toMatchObject({ status: 'in-progress', userId: agent.userId, held: false });
  const baseline = p.engine.signallingStats();

  // The fuzzers' tokens: real ones of two other users, an expired one, a forged one.
  const secret =
    p.config.tokenSecret ?? (await readFile(join(p.dataDir, 'token-secret'), 'utf8')).trim();
  const agent2 = await tokenOf(p, 'agent2@example.com');
  const foreign = await tokenOf(p, 'agent@a6671.example.com');
  const ctx: FuzzContext = {
    liveCallSid: invite.callsid,
    liveReconnect: invite.reconnect ?? 'no-token',
    realTokens: [agent2, foreign],
    expiredToken: await new AccessTokens(secret, -120).issue(agent2.userId, 1),
    forgedToken: await new AccessTokens('f'.repeat(40), 3600).issue(agent2.userId, 1),
  };
  expect(invite.reconnect).toBeTruthy();

  const roles: FuzzerRole[] = [
    { name: 'anonymous-1', token: null, register: false },
    { name: 'anonymous-2', token: null, register: false },
    { name: 'agent2-registered', token: agent2, register: true },
    { name: 'agent2-listening', token: agent2, register: false },
    { name: 'account-6671-registered', token: foreign, register: true },
    { name: 'account-6671-listening', token: foreign, register: false },
  ];
  const tally: FuzzTally = { sent: 0, answers: new Map(), closes: new Map(), problems: [] };
  const frames = fc.sample(fuzzFrame, { numRuns: FRAMES, seed: SEED });
  const fuzzers = roles.map((role) => new PStreamFuzzer(p.signalUrl, role, ctx, tally));
  const eventsBefore = p.events.length;
  const heardFrom = live.peer.heardSamples;

  try {
    await Promise.all(
      fuzzers.map((fuzzer, i) => fuzzer.run(frames.filter((_, n) => n % fuzzers.length === i))),
    ).catch((error: unknown) => {
      throw new Error(`signalling fuzz (seed ${SEED}) stopped: ${String(error)}`, { cause: error });
    });
  } finally {
    await Promise.all(fuzzers.map((fuzzer) => fuzzer.close()));
  }
  const heardDuring = live.peer.heard(heardFrom);
  console.info(
    `signalling fuzz (seed ${SEED}): ${tally.sent} frames;`,
    'answers',
    Object.fromEntries(tally.answers),
    'closes',
    Object.fromEntries(tally.closes),
  );

  // Every frame got its answer and nothing else.
  expect(tally.problems, `seed ${SEED}`).toEqual([]);
  expect(tally.sent).toBeGreaterThanOrEqual(5_000);
  // The mix reached past parsing and authentication, and the size and encoding limits.
  for (const kind of ['error 31100', 'error 31204', 'error 31205', 'error 31404', 'connected']) {
    expect(tally.answers.get(kind) ?? 0, `${kind} answers (seed ${SEED})`).toBeGreaterThan(10);
  }
  expect(tally.answers.get('hangup 31404') ?? 0, 'refused reconnects').toBeGreaterThan(0);
  expect(tally.closes.get(1009) ?? 0, 'oversize closes').toBeGreaterThan(0);
  expect(tally.closes.get(1007) ?? 0, 'non-UTF-8 closes').toBeGreaterThan(0);

  // The server is up.
  expect((await requestJson('GET', `${p.url}/healthz`)).status).toBe(200);

  // The fuzzing left the call alone: same row, nobody left it, no digits reached it.
  await p.flows.idle();
  const rowAfter = await p.callRow(callId);
  const { lastSeenAt: _seenBefore, ...before } = rowBefore!;
  const { lastSeenAt: _seenAfter, ...after } = rowAfter!;
  expect(after).toEqual(before);
  const callUser = await agent.api<CallUserResponse>(
    'GET',
    `/api/v1/callusers/${invite.callUserId}`,
  );
  expect(callUser.status).toBe(200);
  expect(callUser.body.call).toMatchObject({ id: callId, status: 'in-progress', held: false });
  const onTheCall = p.events
    .slice(eventsBefore)
    .filter((e) => 'callSid' in e && e.callSid === invite.callsid);
  expect(onTheCall.map((e) => e.type)).toEqual([]);

  // Calls the fuzzers' invites made the server record (a good `To`, an offer the engine could
  // not use) ended: nothing is left in progress but agent 1's call.
  let stuck: string[] = [];
  await waitUntil(
    async () => {
      const rows = await p.db.select().from(calls);
      stuck = rows
        .filter((r) => r.id !== callId && !FINAL_STATUSES.has(r.status))
        .map((r) => `${r.sid} ${r.status} (user ${r.userId})`);
      return stuck.length === 0 ? true : undefined;
    },
    'every call the fuzzers started to end',
    undefined,
    () => `still open: ${stuck.join(', ')}`,
  );

  // Nothing kept: the gateway is back to what it held before the fuzzers came.
  await waitUntil(
    () =>
      JSON.stringify(p.engine.signallingStats()) === JSON.stringify(baseline) ? true : undefined,
    "the gateway's bookkeeping to return to its baseline",
    undefined,
    () => `${JSON.stringify(p.engine.signallingStats())} vs ${JSON.stringify(baseline)}`,
  );

  // The agent heard the lead all through the fuzzing, and still does.
  expect(heardDuring.length).toBeGreaterThanOrEqual(WINDOW_S * AUDIO_RATE_HZ);
  expect(
    silentWindows(heardDuring, TONES.lead),
    `windows of ${WINDOW_S} s without the lead in the ${heardDuring.length / AUDIO_RATE_HZ} s agent 1 heard during the fuzzing`,
  ).toEqual([]);
  expect(await agent.hears(TONES.lead, 2)).toBe(true);

  // The lead heard the agent through the fuzzing and after it. The agent's "browser" shares this
  // process's event loop with the server and the fuzzers: when the loop stalls it sends late, and
  // the lead hears a gap (the engine's jitter buffer plays missing audio as silence). So most
  // windows of the call must carry the agent, and so must the end of the call, after the fuzzing.
  await agent.hangup();
  const lead = await leadHeard(p, invite.callsid);
  const heardByLead = between(lead.samples, WINDOW_S, lead.seconds - WINDOW_S, lead.sampleRateHz);
  const gaps = silentWindows(heardByLead, TONES.agent);
  const windowCount = Math.floor(heardByLead.length / (WINDOW_S * AUDIO_RATE_HZ));
  expect(
    gaps.length / windowCount,
    `windows ${gaps.join(', ')} of ${windowCount} (${WINDOW_S} s each) without agent 1`,
  ).toBeLessThan(MAX_GAP_SHARE);
  // The last 1.5 s: after the fuzzing (the agent listened 2 s more), up to the hang-up.
  const afterFuzzing = between(lead.samples, lead.seconds - 1.5, lead.seconds, lead.sampleRateHz);
  expect(tonesIn(afterFuzzing, [TONES.agent], 0.1, lead.sampleRateHz)).toEqual([TONES.agent]);
  expect(await p.waitForCall(callId)).toMatchObject({ status: 'completed' });
}, 120_000);
