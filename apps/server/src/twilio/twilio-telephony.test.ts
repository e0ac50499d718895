/**
 * The Twilio provider against the REST stand-in on loopback: each command's REST request (path
 * and form fields, as the `twilio` library sends them), and Twilio's status callbacks turned into
 * the engine's events, each once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TelephonyEvent } from '../telephony/telephony';
import { waitUntil } from '../test-support/wait-until';
import { TwilioRestStandIn, type StandInRequest } from './rest-stand-in';
import { twilioClient } from './twilio-client';
import { TwilioTelephony } from './twilio-telephony';

const ACCOUNT = `AC${'a'.repeat(32)}`;
const BASE = 'https://calls.example.com';
const PARTICIPANTS = `/2010-04-01/Accounts/${ACCOUNT}/Conferences/CA1/Participants`;
let standIn: TwilioRestStandIn;
let telephony: TwilioTelephony;
let events: TelephonyEvent[];

beforeAll(async () => {
  standIn = await TwilioRestStandIn.start();
});
afterAll(() => standIn?.close());
beforeEach(() => {
  standIn.requests.length = 0;
  telephony = new TwilioTelephony({
    client: twilioClient({
      accountSid: ACCOUNT,
      apiKey: `SK${'b'.repeat(32)}`,
      apiSecret: 'S'.repeat(32),
      apiBaseUrl: standIn.url,
    }),
    publicBaseUrl: BASE,
    defaultCallerId: '+15550142000',
    ringTimeoutS: 30,
    log: { warn: () => undefined },
  });
  events = [];
  telephony.subscribe((event) => events.push(event));
});

/** Waits for the stand-in's `n`-th request (1-based) and returns it. */
const request = (n: number): Promise<StandInRequest> =>
  waitUntil(() => standIn.requests[n - 1], `request ${n}`, 5000);

const callback = (label: string) =>
  `${BASE}/twilio/status?${new URLSearchParams({ call: 'CA1', label }).toString()}`;

describe('TwilioTelephony', () => {
  it("rings an agent's browser as a conference participant, From the call user", async () => {
    expect(await telephony.ringAgent('CA1', '7', { From: 'client:42', To: '+15550100042' })).toBe(
      1,
    );
    expect(await request(1)).toMatchObject({
      method: 'POST',
      path: `${PARTICIPANTS}.json`,
      form: {
        From: 'client:42',
        To: 'client:7',
        Label: 'agent-7',
        Timeout: '30',
        Muted: 'false',
        Beep: 'false',
        StartConferenceOnEnter: 'true',
        EndConferenceOnExit: 'false',
        StatusCallback: callback('agent-7'),
        StatusCallbackMethod: 'POST',
        StatusCallbackEvent: 'initiated ringing answered completed',
      },
    });
  });

  it('a listener joins muted; a refused ring resolves 0', async () => {
    await telephony.ringAgent('CA1', '9', { From: 'client:43' }, { role: 'listen' });
    expect((await request(1)).form.Muted).toBe('true');
    standIn.failNext('/Participants.json', { status: 400, code: 21210, message: 'No.' });
    expect(await telephony.ringAgent('CA1', '8', { From: 'client:44' })).toBe(0);
  });

  it('dials a number from the caller ID; answered, then the lead hangs up', async () => {
    const id = telephony.dial('CA1', '+15550100042', { from: '+15550142010' });
    expect((await request(1)).form).toMatchObject({
      From: '+15550142010',
      To: '+15550100042',
      Label: id,
      EarlyMedia: 'true',
      StatusCallback: callback(id),
    });
    const status = (CallStatus: string) =>
      telephony.handleStatus({ call: 'CA1', label: id }, { CallSid: 'CAleg1', CallStatus });
    status('ringing');
    status('in-progress');
    status('in-progress'); // Twilio repeats a callback: once.
    status('completed');
    expect(events).toEqual([
      { type: 'phone.ringing', callSid: 'CA1', participantId: id },
      { type: 'phone.answered', callSid: 'CA1', participantId: id },
      { type: 'phone.left', callSid: 'CA1', participantId: id },
    ]);
  });

  it('a busy number is unanswered; a dial Twilio refuses fails', async () => {
    const busy = telephony.dial('CA1', '+15550199001');
    await request(1);
    telephony.handleStatus({ call: 'CA1', label: busy }, { CallSid: 'CAb', CallStatus: 'busy' });
    standIn.failNext('/Participants.json', { status: 400, code: 13223, message: 'Bad number' });
    const failed = telephony.dial('CA1', '+1555');
    await waitUntil(() => (events.length >= 2 ? true : undefined), 'the failure');
    expect(events).toEqual([
      { type: 'phone.unanswered', callSid: 'CA1', participantId: busy, reason: 'busy' },
      { type: 'phone.unanswered', callSid: 'CA1', participantId: failed, reason: 'failed' },
    ]);
  });

  it('agent answers and hangs up; an unanswered ring is a rejection', async () => {
    await telephony.ringAgent('CA1', '7', { From: 'client:42' });
    await telephony.ringAgent('CA1', '8', { From: 'client:43' });
    const agent = (label: string, CallStatus: string) =>
      telephony.handleStatus({ call: 'CA1', label }, { CallSid: `leg-${label}`, CallStatus });
    agent('agent-7', 'in-progress');
    agent('agent-8', 'no-answer');
    agent('agent-7', 'completed');
    expect(events).toEqual([
      { type: 'agent.answered', callSid: 'CA1', identity: '7' },
      { type: 'agent.rejected', callSid: 'CA1', identity: '8' },
      { type: 'agent.left', callSid: 'CA1', identity: '7', reason: 'hangup' },
    ]);
  });

  it('removes, holds, coaches and ends by REST; what a command removed is not reported', async () => {
    await telephony.ringAgent('CA1', '7', { From: 'client:42' });
    await telephony.ringAgent('CA1', '9', { From: 'client:45' }, { role: 'listen' });
    const lead = telephony.dial('CA1', '+15550100042');
    await request(3);
    telephony.handleStatus(
      { call: 'CA1', label: 'agent-7' },
      { CallSid: 'CAagent7', CallStatus: 'in-progress' },
    );
    telephony.handleStatus(
      { call: 'CA1', label: 'agent-9' },
      { CallSid: 'CAsup9', CallStatus: 'in-progress' },
    );
    telephony.handleStatus(
      { call: 'CA1', label: lead },
      { CallSid: 'CAlead', CallStatus: 'in-progress' },
    );
    events.length = 0;

    telephony.hold('CA1');
    expect(await request(4)).toMatchObject({
      method: 'POST',
      path: `${PARTICIPANTS}/${lead}.json`,
      form: { Hold: 'true' },
    });
    telephony.setRole('CA1', '9', 'whisper');
    expect(await request(5)).toMatchObject({
      path: `${PARTICIPANTS}/agent-9.json`,
      form: { Muted: 'false', Coaching: 'true', CallSidToCoach: 'CAagent7' },
    });
    telephony.removeAgent('CA1', '7');
    expect(await request(6)).toMatchObject({
      method: 'DELETE',
      path: `${PARTICIPANTS}/agent-7.json`,
    });
    telephony.handleStatus(
      { call: 'CA1', label: 'agent-7' },
      { CallSid: 'CAagent7', CallStatus: 'completed' },
    );
    telephony.hangup('CA1');
    expect(await request(7)).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT}/Conferences/CA1.json`,
      form: { Status: 'completed' },
    });
    telephony.handleStatus(
      { call: 'CA1', label: lead },
      { CallSid: 'CAlead', CallStatus: 'completed' },
    );
    expect(events).toEqual([]);
  });

  it('reports browsers the server says registered', () => {
    telephony.deviceOnline('7', true);
    telephony.deviceOnline('7', true);
    expect(telephony.isOnline('7')).toBe(true);
    telephony.deviceOnline('7', false);
    expect(events).toEqual([
      { type: 'device.online', identity: '7' },
      { type: 'device.offline', identity: '7' },
    ]);
  });
});
