/**
 * The conference provider against a local stand-in for Twilio's REST API (the production
 * `twilio` client pointed at it): each command → the exact request Twilio would receive (field
 * names and values as in Twilio's Conference Participant, Conference and Call resources), and
 * Twilio's status callbacks → the port's events, a repeat changing nothing twice.
 */
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TelephonyEvent } from '../telephony/telephony';
import {
  STAND_IN_ACCOUNT_SID,
  standInClient,
  TwilioApiStandIn,
  type ApiRequest,
} from '../test-support/twilio-api-stand-in';
import type { Database } from '../db/database';
import { twilioConferences, twilioParties, twilioWaitingCallers } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { CALLER_WAIT_MS, TwilioTelephony } from './twilio-telephony';

const BASE = 'https://calls.example.com';
const CALLER_ID = '+15550142000';
const ACCOUNT = `/2010-04-01/Accounts/${STAND_IN_ACCOUNT_SID}`;

let standIn: TwilioApiStandIn;
let database: Database;
let telephony: TwilioTelephony;
let events: TelephonyEvent[];
let warnings: string[];
let callSid: string;
let callCounter = 0;

beforeAll(async () => {
  standIn = await TwilioApiStandIn.start();
  database = await openTestDatabase();
});
afterAll(async () => {
  await standIn.close();
  await database.close();
});

beforeEach(async () => {
  // The previous test's commands still on their way land before the reset, not in this test.
  await telephony?.idle();
  standIn.reset();
  // A fresh Twilio: nothing of the previous test's calls is still on there.
  await database.db.delete(twilioParties);
  await database.db.delete(twilioConferences);
  await database.db.delete(twilioWaitingCallers);
  events = [];
  warnings = [];
  callSid = `CAcall${++callCounter}`;
  telephony = new TwilioTelephony({
    client: standInClient(standIn),
    publicBaseUrl: BASE,
    callerId: CALLER_ID,
    holdUrl: `${BASE}/sounds/hold.mp3`,
    log: { warn: (_details, message) => warnings.push(message) },
    db: database.db,
  });
  telephony.subscribe((event) => events.push(event));
});

/**
 * Waits until the stand-in has received `count` requests in this test; returns the last (its
 * method, path and form: the commands here send no query).
 */
async function nth(count: number): Promise<Pick<ApiRequest, 'method' | 'path' | 'form'>> {
  const requests = await standIn.received(count);
  const { method, path, form } = requests[count - 1]!;
  return { method, path, form };
}

const legCallback = (label: string) =>
  `${BASE}/twilio/status?call=${callSid}&label=${encodeURIComponent(label)}`;

/** The fields every participant create carries besides who and how (Twilio's names). */
const conferenceFields = () => ({
  Beep: 'false',
  StartConferenceOnEnter: 'true',
  EndConferenceOnExit: 'false',
  StatusCallbackMethod: 'POST',
  StatusCallbackEvent: 'initiated ringing answered completed',
  ConferenceStatusCallback: `${BASE}/twilio/status`,
  ConferenceStatusCallbackMethod: 'POST',
  ConferenceStatusCallbackEvent: 'start end join leave',
  ConferenceRecord: 'record-from-start',
  ConferenceRecordingStatusCallback: `${BASE}/twilio/recording`,
  ConferenceRecordingStatusCallbackMethod: 'POST',
  ConferenceRecordingStatusCallbackEvent: 'completed',
});

/** Rings agent `identity` and returns its leg's sid as the stand-in gave it. */
async function rungAgent(identity: string, count: number, role?: 'listen' | 'whisper') {
  const rung = await telephony.ringAgent(callSid, identity, { From: 'client:900' }, { role });
  expect(rung).toBe(1);
  await nth(count);
  return standIn.conferenceSid(callSid);
}

/** The `CA…` sid Twilio (the stand-in) gave the leg created with `label` (the last such create). */
function legOf(label: string, which: 'first' | 'last' = 'last'): string {
  const creates = standIn.requests
    .map((request, index) => ({ request, index }))
    .filter(({ request }) => request.path.endsWith('/Participants.json'))
    .filter(({ request }) => request.form.Label === label);
  const create = which === 'first' ? creates[0] : creates.at(-1);
  if (!create) throw new Error(`no participant ${label} was created`);
  return (standIn.answers[create.index] as { call_sid: string }).call_sid;
}

/** Plays a leg's status callback as Twilio posts it (the leg: `label`'s, unless named). */
function legStatus(label: string, status: string, sequence: number, legSid = legOf(label)) {
  return telephony.handleStatus(
    { call: callSid, label },
    { CallSid: legSid, CallStatus: status, SequenceNumber: String(sequence) },
  );
}

describe('commands → REST requests', () => {
  it('ringAgent creates a client participant in the named conference, labelled by identity', async () => {
    const rung = await telephony.ringAgent(callSid, '42', {
      From: 'client:77',
      To: '+15550100042',
    });
    expect(rung).toBe(1);
    const request = await nth(1);
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${ACCOUNT}/Conferences/${callSid}/Participants.json`);
    expect(request.form).toEqual({
      From: 'client:77',
      To: 'client:42?To=%2B15550100042',
      Label: 'agent-42',
      Timeout: '60',
      Muted: 'false',
      Coaching: 'false',
      StatusCallback: legCallback('agent-42'),
      ...conferenceFields(),
    });
  });

  it('ringAgent for listen is muted; a refusal by Twilio resolves with 0', async () => {
    await telephony.ringAgent(callSid, '5', { From: 'client:1' }, { role: 'listen' });
    expect((await nth(1)).form).toMatchObject({ Muted: 'true', Coaching: 'false' });

    standIn.failNext('/Participants.json', { status: 400, code: 21210, message: 'bad from' });
    expect(await telephony.ringAgent(callSid, '6', { From: 'client:2' })).toBe(0);
    expect(warnings).toEqual(['Twilio refused to ring agent']);
  });

  it('dial returns the party id at once and creates a phone participant from the caller ID', async () => {
    const id = telephony.dial(callSid, '+15550100042', { from: '+15550142999' });
    expect(id).toMatch(/^phone-\d+$/);
    const request = await nth(1);
    expect(request.path).toBe(`${ACCOUNT}/Conferences/${callSid}/Participants.json`);
    expect(request.form).toEqual({
      From: '+15550142999',
      To: '+15550100042',
      Label: id,
      EarlyMedia: 'true',
      StatusCallback: legCallback(id),
      ...conferenceFields(),
    });
  });

  it('never dials from a number of the Twilio account the call does not name (issue 36)', async () => {
    const id = telephony.dial(callSid, '+15550100043');
    await expect
      .poll(() => events)
      .toEqual([{ type: 'phone.unanswered', callSid, participantId: id, reason: 'failed' }]);
    expect(warnings).toEqual(['no caller number of the account: not dialled']);
    expect(standIn.requests).toEqual([]);
  });

  it('a dial Twilio refuses is phone.unanswered (failed)', async () => {
    standIn.failNext('/Participants.json', { status: 400, code: 13223, message: 'bad number' });
    const id = telephony.dial(callSid, '+1', { from: CALLER_ID });
    await nth(1);
    await expect
      .poll(() => events)
      .toEqual([{ type: 'phone.unanswered', callSid, participantId: id, reason: 'failed' }]);
  });

  it('cancelRing and removeAgent delete the agent participant by label (conference by sid)', async () => {
    const cf = await rungAgent('7', 1);
    await rungAgent('8', 2);
    telephony.cancelRing(callSid, '7');
    expect(await nth(3)).toEqual({
      method: 'DELETE',
      path: `${ACCOUNT}/Conferences/${cf}/Participants/agent-7.json`,
      form: {},
    });
    await legStatus('agent-8', 'in-progress', 1);
    telephony.removeAgent(callSid, '8');
    expect(await nth(4)).toMatchObject({
      method: 'DELETE',
      path: `${ACCOUNT}/Conferences/${cf}/Participants/agent-8.json`,
    });
    // Neither was reported leaving: the port says removed parties report nothing.
    await legStatus('agent-7', 'canceled', 2);
    await legStatus('agent-8', 'completed', 3);
    expect(events).toEqual([{ type: 'agent.answered', callSid, identity: '8' }]);
  });

  it('cancelRing without identity cancels only agents still ringing', async () => {
    const cf = await rungAgent('1', 1);
    await rungAgent('2', 2);
    await legStatus('agent-1', 'in-progress', 1);
    telephony.cancelRing(callSid);
    expect((await nth(3)).path).toBe(`${ACCOUNT}/Conferences/${cf}/Participants/agent-2.json`);
    telephony.hangup(callSid);
    expect((await nth(4)).path).toBe(`${ACCOUNT}/Conferences/${cf}.json`);
  });

  it('hangupPhone deletes the phone participant', async () => {
    const id = telephony.dial(callSid, '+15550100042', { from: CALLER_ID });
    await nth(1);
    telephony.hangupPhone(callSid, id);
    expect(await nth(2)).toMatchObject({
      method: 'DELETE',
      path: `${ACCOUNT}/Conferences/${standIn.conferenceSid(callSid)}/Participants/${id}.json`,
    });
  });

  it('setRole: whisper coaches the agent leg, barge speaks, listen is muted', async () => {
    const cf = await rungAgent('10', 1);
    await legStatus('agent-10', 'in-progress', 1);
    await rungAgent('20', 2, 'listen');
    telephony.setRole(callSid, '20', 'whisper');
    expect(await nth(3)).toEqual({
      method: 'POST',
      path: `${ACCOUNT}/Conferences/${cf}/Participants/agent-20.json`,
      form: {
        Muted: 'false',
        Coaching: 'true',
        CallSidToCoach: legOf('agent-10'),
      },
    });
    telephony.setRole(callSid, '20', 'barge');
    expect((await nth(4)).form).toEqual({ Muted: 'false', Coaching: 'false' });
    telephony.setRole(callSid, '20', 'listen');
    expect((await nth(5)).form).toEqual({ Muted: 'true', Coaching: 'false' });
  });

  it('ringAgent as whisper coaches the agent leg the create answered with', async () => {
    await rungAgent('10', 1);
    const agentLeg = (standIn.answers[0] as { call_sid: string }).call_sid;
    await telephony.ringAgent(callSid, '20', { From: 'client:3' }, { role: 'whisper' });
    expect((await nth(2)).form).toMatchObject({
      Muted: 'false',
      Coaching: 'true',
      CallSidToCoach: agentLeg,
    });
  });

  it('hold puts the answered phone parties on hold with the hold music; unhold takes them off', async () => {
    const id = telephony.dial(callSid, '+15550100042', { from: CALLER_ID });
    await nth(1);
    await legStatus(id, 'in-progress', 1);
    telephony.hold(callSid);
    expect(await nth(2)).toEqual({
      method: 'POST',
      path: `${ACCOUNT}/Conferences/${standIn.conferenceSid(callSid)}/Participants/${id}.json`,
      form: { Hold: 'true', HoldUrl: `${BASE}/sounds/hold.mp3` },
    });
    telephony.unhold(callSid);
    expect((await nth(3)).form).toEqual({ Hold: 'false' });
  });

  it('a phone answering while the call is held goes on hold too', async () => {
    const id = telephony.dial(callSid, '+15550100042', { from: CALLER_ID });
    await nth(1);
    telephony.hold(callSid);
    await legStatus(id, 'in-progress', 1);
    expect((await nth(2)).form).toEqual({ Hold: 'true', HoldUrl: `${BASE}/sounds/hold.mp3` });
  });

  it('hangup cancels the legs still ringing, then completes the conference', async () => {
    const cf = await rungAgent('1', 1);
    telephony.hangup(callSid, { code: 31005, message: 'gone' });
    expect(await nth(2)).toMatchObject({
      method: 'DELETE',
      path: `${ACCOUNT}/Conferences/${cf}/Participants/agent-1.json`,
    });
    expect(await nth(3)).toEqual({
      method: 'POST',
      path: `${ACCOUNT}/Conferences/${cf}.json`,
      form: { Status: 'completed' },
    });
    // Everything after a hangup is the end of the call the flows asked for: no events.
    await legStatus('agent-1', 'completed', 1);
    await telephony.handleStatus(
      {},
      { StatusCallbackEvent: 'conference-end', FriendlyName: callSid },
    );
    expect(events).toEqual([]);
  });

  it('hangup before Twilio named the conference ends the known legs instead', async () => {
    await telephony.callerWaiting({ CallSid: 'CAinbound2', From: '+15550100778', To: CALLER_ID });
    telephony.addCaller(callSid, '+15550100778', CALLER_ID);
    expect(await telephony.answerCaller('CAinbound2')).toHaveProperty('join');
    telephony.hangup(callSid);
    expect(await nth(1)).toEqual({
      method: 'POST',
      path: `${ACCOUNT}/Calls/CAinbound2.json`,
      form: { Status: 'completed' },
    });
  });

  it('addCaller moves a waiting inbound call into the conference with TwiML', async () => {
    await telephony.callerWaiting({ CallSid: 'CAinbound1', From: '+15550100777', To: CALLER_ID });
    expect(await telephony.answerCaller('CAinbound1')).toBeNull();
    const id = telephony.addCaller(callSid, '+15550100777', CALLER_ID);
    expect(id).toMatch(/^caller-\d+$/);
    const request = await nth(1);
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${ACCOUNT}/Calls/CAinbound1.json`);
    const twiml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      request.form.Twiml!,
    ) as { Response: { Dial: { Conference: Record<string, string> } } };
    expect(twiml.Response.Dial.Conference).toMatchObject({
      '#text': callSid,
      participantLabel: id,
      statusCallback: `${BASE}/twilio/status`,
      recordingStatusCallback: `${BASE}/twilio/recording`,
    });
    // The caller hanging up is reported by the conference.
    await telephony.handleStatus(
      {},
      {
        StatusCallbackEvent: 'participant-leave',
        FriendlyName: callSid,
        ConferenceSid: 'CFx',
        ParticipantLabel: id,
        CallSid: 'CAinbound1',
        SequenceNumber: '3',
      },
    );
    expect(events).toEqual([{ type: 'phone.left', callSid, participantId: id }]);
  });
});

describe('status callbacks → events', () => {
  it('an agent answering then hanging up: answered once, left once, whatever repeats', async () => {
    await rungAgent('3', 1);
    await legStatus('agent-3', 'ringing', 1);
    await legStatus('agent-3', 'in-progress', 2);
    await legStatus('agent-3', 'in-progress', 2);
    await telephony.handleStatus(
      {},
      {
        StatusCallbackEvent: 'participant-join',
        FriendlyName: callSid,
        ParticipantLabel: 'agent-3',
        CallSid: legOf('agent-3'),
        SequenceNumber: '1',
      },
    );
    await legStatus('agent-3', 'completed', 3);
    await legStatus('agent-3', 'completed', 3);
    expect(events).toEqual([
      { type: 'agent.answered', callSid, identity: '3' },
      { type: 'agent.left', callSid, identity: '3', reason: 'hangup' },
    ]);
  });

  it.each(['busy', 'no-answer', 'canceled'])(
    'an agent not answering (%s) rejected it',
    async (s) => {
      await rungAgent('4', 1);
      await legStatus('agent-4', s, 1);
      await legStatus('agent-4', s, 1);
      expect(events).toEqual([{ type: 'agent.rejected', callSid, identity: '4' }]);
    },
  );

  it('a dialled phone: ringing, answered, then it hangs up by itself', async () => {
    const id = telephony.dial(callSid, '+15550100042', { from: CALLER_ID });
    await nth(1);
    await legStatus(id, 'initiated', 1);
    await legStatus(id, 'ringing', 2);
    await legStatus(id, 'ringing', 2);
    await legStatus(id, 'in-progress', 3);
    await legStatus(id, 'completed', 4);
    await legStatus(id, 'completed', 4);
    expect(events).toEqual([
      { type: 'phone.ringing', callSid, participantId: id },
      { type: 'phone.answered', callSid, participantId: id },
      { type: 'phone.left', callSid, participantId: id },
    ]);
  });

  it.each([
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'no-answer'],
  ] as const)(
    'a dialled phone ending %s before answering is unanswered (%s)',
    async (s, reason) => {
      const id = telephony.dial(callSid, '+15550100042', { from: CALLER_ID });
      await nth(1);
      await legStatus(id, 'ringing', 1);
      await legStatus(id, s, 2);
      await legStatus(id, s, 2);
      expect(events.slice(1)).toEqual([
        { type: 'phone.unanswered', callSid, participantId: id, reason },
      ]);
    },
  );

  it('a late report of an earlier leg of the same agent does not touch the new one', async () => {
    await rungAgent('5', 1);
    await legStatus('agent-5', 'busy', 1);
    await rungAgent('5', 2);
    const first = legOf('agent-5', 'first');
    expect(first).not.toBe(legOf('agent-5'));
    await legStatus('agent-5', 'busy', 1, first);
    await legStatus('agent-5', 'completed', 2, first);
    await legStatus('agent-5', 'in-progress', 1);
    expect(events).toEqual([
      { type: 'agent.rejected', callSid, identity: '5' },
      { type: 'agent.answered', callSid, identity: '5' },
    ]);
  });

  it('an inbound call nobody placed is forgotten after CALLER_WAIT_MS', async () => {
    let nowMs = 1_000_000;
    const timed = new TwilioTelephony({
      client: standInClient(standIn),
      publicBaseUrl: BASE,
      callerId: CALLER_ID,
      log: { warn: (_details, message) => warnings.push(message) },
      db: database.db,
      clock: { now: () => nowMs },
    });
    await timed.callerWaiting({ CallSid: 'CAlonely', From: '+15550100779', To: CALLER_ID });
    expect(await timed.answerCaller('CAlonely')).toBeNull();
    nowMs += CALLER_WAIT_MS;
    expect(await timed.waitingCallers()).toEqual(['CAlonely']);
    nowMs += 1;
    expect(await timed.waitingCallers()).toEqual([]);
    timed.addCaller(callSid, '+15550100779', CALLER_ID);
    await timed.idle();
    expect(warnings).toEqual(['No Twilio call is waiting for this caller']);
  });

  it('callbacks of unknown calls or labels are ignored', async () => {
    await telephony.handleStatus(
      { call: 'CAnone', label: 'agent-1' },
      { CallStatus: 'in-progress' },
    );
    await telephony.handleStatus({}, { CallStatus: 'in-progress' });
    await telephony.handleStatus(
      {},
      { StatusCallbackEvent: 'conference-end', FriendlyName: 'CAnone' },
    );
    expect(events).toEqual([]);
  });

  it('the recording callback is recording.ready with the URL as path, once', async () => {
    const params = {
      RecordingSid: 'RE1',
      RecordingStatus: 'completed',
      RecordingUrl: `https://api.twilio.com${ACCOUNT}/Recordings/RE1`,
      RecordingDuration: '42',
      FriendlyName: callSid,
    };
    telephony.handleRecording({}, params);
    telephony.handleRecording({}, params);
    telephony.handleRecording({}, { ...params, RecordingSid: 'RE2', RecordingStatus: 'failed' });
    expect(events).toEqual([
      { type: 'recording.ready', callSid, path: params.RecordingUrl, seconds: 42 },
    ]);
  });

  it('deviceOnline feeds isOnline and device events, once per change', async () => {
    telephony.deviceOnline('9', true);
    telephony.deviceOnline('9', true);
    expect(telephony.isOnline('9')).toBe(true);
    telephony.deviceOnline('9', false);
    expect(telephony.isOnline('9')).toBe(false);
    expect(events).toEqual([
      { type: 'device.online', identity: '9' },
      { type: 'device.offline', identity: '9' },
    ]);
  });
});
