/**
 * The webhooks as Twilio calls them: requests signed the way Twilio signs (the `twilio`
 * library's `getExpectedTwilioSignature` over PUBLIC_BASE_URL + path + query and the form
 * fields) reach the provider; a missing or wrong signature is 403 and reaches nothing. The voice
 * webhook's TwiML is parsed back and compared verb by verb, attribute by attribute.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import twilio from 'twilio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutgoingCallDecision } from '@leadline/voice';
import type { TelephonyEvent } from '../telephony/telephony';
import {
  STAND_IN_ACCOUNT_SID,
  standInClient,
  TwilioApiStandIn,
} from '../test-support/twilio-api-stand-in';
import type { Database } from '../db/database';
import { openTestDatabase } from '../test-support/test-database';
import { TwilioTelephony } from './twilio-telephony';
import { twilioWebhookRoutes, voiceAnswer } from './twilio-webhooks';

const AUTH_TOKEN = 'f'.repeat(32);
const BASE = 'https://calls.example.com';
const NUMBER = '+15550142000';

let standIn: TwilioApiStandIn;
let database: Database;
let app: FastifyInstance;
let telephony: TwilioTelephony;
let events: TelephonyEvent[];
/** What the injected decisions do, per test. */
let authorize: (identity: string, params: Record<string, string>) => OutgoingCallDecision;
let inbound: (params: Record<string, string>) => boolean | void;

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
});

/** A TwiML document as fast-xml-parser reads it (attributes as plain keys, text as `#text`). */
interface Twiml {
  Response: Record<string, unknown> & { Dial?: { Conference?: Record<string, string> } };
}
const parseTwiml = (text: string): Twiml => xml.parse(text) as Twiml;

beforeAll(async () => {
  standIn = await TwilioApiStandIn.start();
  database = await openTestDatabase();
  telephony = new TwilioTelephony({
    client: standInClient(standIn),
    publicBaseUrl: BASE,
    callerId: NUMBER,
    log: { warn: () => undefined },
    db: database.db,
  });
  telephony.subscribe((event) => events.push(event));
  app = Fastify();
  await app.register(
    twilioWebhookRoutes({
      telephony,
      authToken: AUTH_TOKEN,
      publicBaseUrl: BASE,
      voice: voiceAnswer({
        telephony,
        authorizeOutgoing: (identity, params) => Promise.resolve(authorize(identity, params)),
        inbound: (params) => Promise.resolve(inbound(params)),
      }),
    }),
  );
});
afterAll(async () => {
  await app.close();
  await standIn.close();
  await database.close();
});
beforeEach(() => {
  standIn.reset();
  events = [];
  authorize = () => ({ error: { code: 31002, message: 'Not expected.' } });
  inbound = () => undefined;
});

/** Posts `params` to `url` (path and query) as Twilio does, signed unless told otherwise. */
function post(url: string, params: Record<string, string>, signature?: string | null) {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
  };
  const signed = signature === undefined ? sign(url, params) : signature;
  if (signed !== null) headers['x-twilio-signature'] = signed;
  return app.inject({
    method: 'POST',
    url,
    headers,
    payload: new URLSearchParams(params).toString(),
  });
}

const sign = (url: string, params: Record<string, string>) =>
  twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${BASE}${url}`, params);

describe('signatures', () => {
  const leave = {
    StatusCallbackEvent: 'participant-leave',
    FriendlyName: 'CAsig',
    ParticipantLabel: 'agent-1',
    CallSid: 'CAleg',
    SequenceNumber: '1',
  };

  it.each(['/twilio/voice', '/twilio/status', '/twilio/recording'])(
    '%s refuses a missing or wrong signature with 403',
    async (path) => {
      for (const signature of [null, 'bm90IGEgc2lnbmF0dXJl', sign(path, { Other: '1' })]) {
        const response = await post(path, leave, signature);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({ error: 'Invalid Twilio signature.' });
      }
      expect(events).toEqual([]);
      expect(standIn.requests).toEqual([]);
    },
  );

  it('a signature over another query string is refused (the query is signed)', async () => {
    const params = { CallSid: 'CAleg', CallStatus: 'in-progress', SequenceNumber: '1' };
    const forged = sign('/twilio/status?call=CA1&label=agent-1', params);
    const response = await post('/twilio/status?call=CA1&label=agent-2', params, forged);
    expect(response.statusCode).toBe(403);
  });

  it('a signed status callback reaches the provider (204) and a repeat changes nothing', async () => {
    expect(await telephony.ringAgent('CAsig', '1', { From: 'client:5' })).toBe(1);
    const url = '/twilio/status?call=CAsig&label=agent-1';
    const leg = (standIn.answers[0] as { call_sid: string }).call_sid;
    const answered = { CallSid: leg, CallStatus: 'in-progress', SequenceNumber: '2' };
    expect((await post(url, answered)).statusCode).toBe(204);
    expect((await post(url, answered)).statusCode).toBe(204);
    const left = { ...leave, CallSid: leg };
    expect((await post('/twilio/status', left)).statusCode).toBe(204);
    expect((await post('/twilio/status', left)).statusCode).toBe(204);
    expect(events).toEqual([
      { type: 'agent.answered', callSid: 'CAsig', identity: '1' },
      { type: 'agent.left', callSid: 'CAsig', identity: '1', reason: 'hangup' },
    ]);
  });

  it('a signed recording callback is recording.ready', async () => {
    const url = `https://api.twilio.com/2010-04-01/Accounts/${STAND_IN_ACCOUNT_SID}/Recordings/RE9`;
    const response = await post('/twilio/recording', {
      FriendlyName: 'CArec',
      RecordingSid: 'RE9',
      RecordingStatus: 'completed',
      RecordingUrl: url,
      RecordingDuration: '7',
    });
    expect(response.statusCode).toBe(204);
    expect(events).toEqual([{ type: 'recording.ready', callSid: 'CArec', path: url, seconds: 7 }]);
  });
});

describe('POST /twilio/voice', () => {
  const outgoing = {
    CallSid: 'CAbrowser',
    From: 'client:12',
    To: '+15550100042',
    Direction: 'inbound',
    call_user_id: '88',
  };

  it('an outgoing client call joins its conference as the agent, and the number is dialled', async () => {
    const asked: Array<[string, Record<string, string>]> = [];
    authorize = (identity, params) => {
      asked.push([identity, params]);
      return { callSid: 'CAout', dial: '+15550100042', from: NUMBER };
    };
    const response = await post('/twilio/voice', outgoing);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/xml/);
    expect(asked).toEqual([['12', outgoing]]);
    expect(xml.parse(response.body) as unknown).toEqual({
      '?xml': { version: '1.0', encoding: 'UTF-8' },
      Response: {
        Dial: {
          Conference: {
            '#text': 'CAout',
            participantLabel: 'agent-12',
            startConferenceOnEnter: 'true',
            endConferenceOnExit: 'false',
            beep: 'false',
            statusCallback: `${BASE}/twilio/status`,
            statusCallbackMethod: 'POST',
            statusCallbackEvent: 'start end join leave',
            record: 'record-from-start',
            recordingStatusCallback: `${BASE}/twilio/recording`,
            recordingStatusCallbackMethod: 'POST',
            recordingStatusCallbackEvent: 'completed',
          },
        },
      },
    });
    const [dialled] = await standIn.received(1);
    expect(dialled!.path).toBe(
      `/2010-04-01/Accounts/${STAND_IN_ACCOUNT_SID}/Conferences/CAout/Participants.json`,
    );
    expect(dialled!.form).toMatchObject({ To: '+15550100042', From: NUMBER });
    expect(events).toEqual([
      {
        type: 'outgoing.placed',
        callSid: 'CAout',
        identity: '12',
        to: '+15550100042',
        participantId: dialled!.form.Label,
      },
    ]);
  });

  it('a refused outgoing call hears the reason and is hung up', async () => {
    authorize = () => ({ error: { code: 31486, message: 'The call is not yours.' } });
    const response = await post('/twilio/voice', outgoing);
    expect(parseTwiml(response.body).Response).toEqual({
      Say: 'The call is not yours.',
      Hangup: '',
    });
    expect(standIn.requests).toEqual([]);
  });

  const calling = { CallSid: 'CAcaller', From: '+15550100777', To: NUMBER, Direction: 'inbound' };

  it('an inbound call the flows place at once joins the conference as the caller', async () => {
    let participantId = '';
    inbound = (params) => {
      participantId = telephony.addCaller('CAin', params.From!, params.To!);
    };
    const response = await post('/twilio/voice', calling);
    const conference = parseTwiml(response.body).Response.Dial?.Conference;
    // Waiting for the agent to start the conference: Twilio's wait music, not silence.
    expect(conference).toMatchObject({
      '#text': 'CAin',
      participantLabel: participantId,
      startConferenceOnEnter: 'false',
    });
    expect(participantId).toMatch(/^caller-\d+$/);
    // Answered by its webhook: no REST call moves it.
    expect(standIn.requests).toEqual([]);
  });

  it('an inbound call not placed yet waits, and is moved when the flows place it', async () => {
    const response = await post('/twilio/voice', { ...calling, CallSid: 'CAlate' });
    expect(parseTwiml(response.body).Response).toEqual({
      Pause: { length: '60' },
      Hangup: '',
    });
    const id = telephony.addCaller('CAin2', calling.From, NUMBER);
    const [moved] = await standIn.received(1);
    expect(moved!.path).toBe(`/2010-04-01/Accounts/${STAND_IN_ACCOUNT_SID}/Calls/CAlate.json`);
    expect(parseTwiml(moved!.form.Twiml!).Response.Dial?.Conference).toMatchObject({
      '#text': 'CAin2',
      participantLabel: id,
      startConferenceOnEnter: 'false',
    });
  });

  it('a call to a number no account has is rejected and not kept waiting', async () => {
    inbound = () => false;
    const response = await post('/twilio/voice', { ...calling, CallSid: 'CAnobody' });
    expect(parseTwiml(response.body).Response).toEqual({ Reject: '' });
    expect(await telephony.waitingCallers()).not.toContain('CAnobody');
  });

  it('an inbound call the flows end before it joins is rejected', async () => {
    inbound = (params) => {
      telephony.addCaller('CAgone', params.From!, params.To!);
      telephony.hangup('CAgone');
    };
    const response = await post('/twilio/voice', { ...calling, CallSid: 'CAbye' });
    expect(parseTwiml(response.body).Response).toEqual({ Reject: '' });
  });
});
