/**
 * The lead call on the real voice engine (worker media threads, werift legs, the sandbox phone
 * network) with a headless agent on the real wire: the harness's smoke test. The lead
 * +15550100042 answers and plays 440 Hz; the agent's "microphone" plays 1000 Hz. The call's
 * recording is served as the product wires it: from `DATA_DIR/recordings` only.
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '@leadline/voice/dsp';
import { between, tonesIn } from '@leadline/voice/testing';
import { calls } from '../db/schema';
import { AgentClient } from '../test-support/agent-client';
import { leadHeard } from '../test-support/lead-heard';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';

const LEAD_NUMBER = '+15550100042';
const LEAD_TONE_HZ = 440;
const AGENT_TONE_HZ = 1000;

let product: RealLeadline;
let agent: AgentClient | undefined;

// Starting runs PGlite's migrations and the media workers: on a loaded two-core machine this
// took 88 s, past the project's 60 s hook timeout.
beforeAll(async () => {
  product = await startRealLeadline();
}, 180_000);
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});
afterAll(() => product?.close());

// The reject comes first: it needs agent1 with no call behind them, whatever the product's rules
// for an agent who just finished a call (wrap-up) are.
describe('a lead call on the real engine', () => {
  it('a reject on the wire ends the call as missed', async () => {
    agent = await AgentClient.login(product, 'agent1@example.com', { toneHz: AGENT_TONE_HZ });
    const posted = await product.postLead({
      fname: 'Rae',
      lname: 'Ject',
      phone_number: LEAD_NUMBER,
    });
    expect(posted.status).toBe(201);
    const invite = await agent.nextInvite();
    agent.reject(invite);
    await product.waitForEvent('agent.rejected', { callSid: invite.callsid });
    const row = await product.waitForCall(posted.body.call.id);
    expect(row).toMatchObject({ sid: invite.callsid, status: 'missed', seconds: 0 });
    expect(
      product.events.some((e) => e.type === 'phone.ringing' && e.callSid === invite.callsid),
    ).toBe(false);
  });

  it('rings the agent, dials the lead once accepted, carries audio both ways and completes', async () => {
    agent = await AgentClient.login(product, 'agent1@example.com', { toneHz: AGENT_TONE_HZ });
    const posted = await product.postLead({
      fname: 'Jordan',
      lname: 'Miles',
      phone_number: LEAD_NUMBER,
    });
    expect(posted.status).toBe(201);
    expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
    const callId = posted.body.call.id;

    const invite = await agent.nextInvite();
    expect(invite.parameters).toMatchObject({ To: LEAD_NUMBER });
    expect(invite.callUserId).toEqual(expect.any(Number));
    await agent.accept(invite);
    await product.waitForEvent('phone.answered', { callSid: invite.callsid });
    expect(await agent.hears(LEAD_TONE_HZ, 1)).toBe(true);

    await agent.hangup();
    const lead = await leadHeard(product, invite.callsid);
    expect(lead.seconds).toBeGreaterThanOrEqual(1);
    // The first frames may predate the agent's media settling; judge the rest.
    const heard = between(lead.samples, 0.2, lead.seconds, lead.sampleRateHz);
    expect(tonesIn(heard, [AGENT_TONE_HZ, LEAD_TONE_HZ], 0.1, lead.sampleRateHz)).toEqual([
      AGENT_TONE_HZ,
    ]);

    const row = await product.waitForCall(callId);
    expect(row).toMatchObject({ sid: invite.callsid, status: 'completed' });
    expect(row.seconds).toBeGreaterThanOrEqual(1);

    // The engine wrote the call's recording to DATA_DIR/recordings, the folder the product
    // serves recordings from; the data folder's secrets beside it are never served.
    const recorded = await product.waitForCall(callId, (r) => r.recordingPath !== null);
    expect(dirname(recorded.recordingPath!)).toBe(join(product.dataDir, 'recordings'));
    const play = () =>
      fetch(`${product.url}/api/v1/calls/${callId}/recording`, {
        headers: { cookie: agent!.cookie },
      });
    const played = await play();
    expect(played.status).toBe(200);
    const wav = decodeWav(new Uint8Array(await played.arrayBuffer()));
    expect(wav.samples.length / wav.sampleRateHz).toBeGreaterThanOrEqual(1);
    const secret = join(product.dataDir, 'token-secret');
    expect(statSync(secret).isFile()).toBe(true);
    for (const path of ['../token-secret', secret]) {
      await product.db.update(calls).set({ recordingPath: path }).where(eq(calls.id, callId));
      const refused = await play();
      expect(refused.status, path).toBe(404);
      expect(await refused.json(), path).toEqual({ error: 'Recording not found.' });
    }
  }, 60_000);
});
