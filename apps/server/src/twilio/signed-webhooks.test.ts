/**
 * The webhooks' door: a request Twilio signed (the `twilio` library computes the signature over
 * PUBLIC_BASE_URL + path + query and the form fields, as Twilio does) reaches its handler; a
 * missing, wrong or replayed-elsewhere signature gets 403 and reaches nothing.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioWebhookRoutes, type WebhookAnswer } from './signed-webhooks';
import { joinConference } from './voice-twiml';

const AUTH_TOKEN = 'd'.repeat(32);
const BASE = 'https://calls.example.com';
const seen: Array<{ hook: string; params: Record<string, string> }> = [];
let app: FastifyInstance;

const handler = (hook: string, answer: WebhookAnswer) => async (params: Record<string, string>) => {
  seen.push({ hook, params });
  return answer;
};

beforeAll(async () => {
  app = Fastify();
  await app.register(
    twilioWebhookRoutes({
      authToken: AUTH_TOKEN,
      publicBaseUrl: BASE,
      handlers: {
        voice: handler('voice', {
          twiml: joinConference('CA1', { publicBaseUrl: BASE, record: false }),
        }),
        status: handler('status', { empty: true }),
        recording: handler('recording', { empty: true }),
      },
    }),
  );
});
afterAll(() => app.close());

function post(path: string, params: Record<string, string>, signature?: string) {
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signature === undefined ? {} : { 'x-twilio-signature': signature }),
    },
    payload: new URLSearchParams(params).toString(),
  });
}

const sign = (path: string, params: Record<string, string>, token = AUTH_TOKEN) =>
  twilio.getExpectedTwilioSignature(token, `${BASE}${path}`, params);

describe('Twilio webhooks', () => {
  const voice = { CallSid: 'CA123', From: 'client:7', To: '+15550100042', Direction: 'inbound' };

  it('answers a signed voice webhook with TwiML', async () => {
    seen.length = 0;
    const res = await post('/twilio/voice', voice, sign('/twilio/voice', voice));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.body).toContain('<Conference');
    expect(seen).toEqual([{ hook: 'voice', params: voice }]);
  });

  it('takes signed status and recording callbacks (query string included in what is signed)', async () => {
    seen.length = 0;
    const status = { CallSid: 'CA9', CallStatus: 'ringing', SequenceNumber: '0' };
    const path = '/twilio/status?call=42';
    expect((await post(path, status, sign(path, status))).statusCode).toBe(204);
    const recording = { RecordingSid: 'RE1', RecordingUrl: 'https://api.twilio.com/r/RE1' };
    const recordingPath = '/twilio/recording';
    expect((await post(recordingPath, recording, sign(recordingPath, recording))).statusCode).toBe(
      204,
    );
    expect(seen.map((s) => s.hook)).toEqual(['status', 'recording']);
  });

  it.each([
    ['no signature', undefined],
    ['a signature with another auth token', sign('/twilio/voice', voice, 'e'.repeat(32))],
    ['a signature of other fields', sign('/twilio/voice', { ...voice, To: '+15550100043' })],
    ['a signature of another path', sign('/twilio/status', voice)],
    ['garbage', 'not-a-signature'],
  ])('refuses %s with 403 and calls no handler', async (_name, signature) => {
    seen.length = 0;
    const res = await post('/twilio/voice', voice, signature);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Invalid Twilio signature.' });
    expect(seen).toEqual([]);
  });
});
