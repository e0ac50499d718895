/**
 * Twilio Voice tokens as Twilio reads them: an HS256 JWT signed with the API key's secret
 * (`kid` the key, `iss` the key, `sub` the account), `cty: twilio-fpa;v=1`, the identity and a
 * Voice grant (incoming allowed, outgoing through the TwiML App), valid for the configured TTL.
 * Verified with `jose` against the secret (the `twilio` library signs, it does not verify).
 */
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TWILIO_LOGIN_PARAM, TwilioAccessTokens } from './twilio-access-tokens';

const settings = {
  accountSid: `AC${'a'.repeat(32)}`,
  apiKey: `SK${'b'.repeat(32)}`,
  apiSecret: 'S3cretS3cretS3cretS3cretS3cret12',
  twimlAppSid: `AP${'c'.repeat(32)}`,
};
const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);

describe('Twilio access tokens', () => {
  // The library reads Date.now: the test fixes it.
  beforeEach(() => void vi.useFakeTimers({ now: NOW_MS, toFake: ['Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('carry the identity, a Voice grant and the TTL, signed with the API secret', async () => {
    const token = await new TwilioAccessTokens(settings, 600).issue(7);
    expect(decodeProtectedHeader(token)).toMatchObject({
      alg: 'HS256',
      typ: 'JWT',
      cty: 'twilio-fpa;v=1',
    });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(settings.apiSecret), {
      algorithms: ['HS256'],
      currentDate: new Date(NOW_MS + 1000),
    });
    expect(payload).toMatchObject({
      iss: settings.apiKey,
      sub: settings.accountSid,
      grants: {
        identity: '7',
        voice: {
          incoming: { allow: true },
          outgoing: { application_sid: settings.twimlAppSid },
        },
      },
    });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(payload.iat).toBe(NOW_MS / 1000);
  });

  it('is refused with another secret and after its TTL', async () => {
    const token = await new TwilioAccessTokens(settings, 60).issue(7);
    await expect(
      jwtVerify(token, new TextEncoder().encode('another-secret-another-secret-00'), {
        currentDate: new Date(NOW_MS + 1000),
      }),
    ).rejects.toThrow(/signature/);
    await expect(
      jwtVerify(token, new TextEncoder().encode(settings.apiSecret), {
        currentDate: new Date(NOW_MS + 61_000),
      }),
    ).rejects.toThrow(/exp/);
  });

  it('name the login they were issued to in the outgoing parameters Twilio adds to each call', async () => {
    const token = await new TwilioAccessTokens(settings, 600).issue(7, 1, 'login-tag-of-session');
    const { payload } = await jwtVerify(token, new TextEncoder().encode(settings.apiSecret), {
      currentDate: new Date(NOW_MS + 1000),
    });
    expect(payload.grants).toEqual({
      identity: '7',
      voice: {
        incoming: { allow: true },
        outgoing: {
          application_sid: settings.twimlAppSid,
          params: { [TWILIO_LOGIN_PARAM]: 'login-tag-of-session' },
        },
      },
    });
    expect(TWILIO_LOGIN_PARAM).toBe('leadline_login');
  });
});
