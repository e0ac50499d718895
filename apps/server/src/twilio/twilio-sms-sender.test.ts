/**
 * SMS through the `twilio` library against the REST stand-in on loopback, the client built as
 * the product builds it (`twilioClient`, pointed at the stand-in's URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STAND_IN_ACCOUNT_SID,
  standInClient,
  TwilioApiStandIn,
} from '../test-support/twilio-api-stand-in';
import { TwilioSmsSender } from './twilio-sms-sender';

const ACCOUNT = STAND_IN_ACCOUNT_SID;
let standIn: TwilioApiStandIn;
let sender: TwilioSmsSender;

beforeAll(async () => {
  standIn = await TwilioApiStandIn.start();
  sender = new TwilioSmsSender(standInClient(standIn));
});
afterAll(() => standIn?.close());

describe('Twilio SMS', () => {
  it('posts the message to the account’s Messages with the API key', async () => {
    const sent = await sender.send({ from: '+15550142010', to: '+15550100042', body: 'Hi Lee' });
    expect(sent.ok && sent.providerId).toMatch(/^SM\d{32}$/);
    expect(standIn.requests.at(-1)).toEqual({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`,
      form: { From: '+15550142010', To: '+15550100042', Body: 'Hi Lee' },
    });
  });

  it('never sends from a number of the Twilio account the message does not name', async () => {
    const before = standIn.requests.length;
    expect(await sender.send({ from: null, to: '+15550100042', body: 'x' })).toEqual({
      ok: false,
      error:
        'This account has no caller number of its own: an administrator must add one before its agents can text.',
    });
    expect(standIn.requests.length).toBe(before);
  });

  it("gives Twilio's refusal as the message's error", async () => {
    standIn.failNext('/Messages.json', {
      status: 400,
      code: 21211,
      message: "The 'To' number +1555 is not a valid phone number.",
    });
    expect(await sender.send({ from: '+15550142000', to: '+1555', body: 'x' })).toEqual({
      ok: false,
      error: "Twilio refused the message: The 'To' number +1555 is not a valid phone number.",
    });
  });
});
