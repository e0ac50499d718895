/**
 * Access tokens for Twilio Programmable Voice (`TELEPHONY_PROVIDER=twilio`), issued with the
 * `twilio` library: an API key signs a token whose Voice grant lets the user's browser receive
 * calls (`incomingAllow`) and place them through the TwiML App (`outgoingApplicationSid`, whose
 * voice URL is `<PUBLIC_BASE_URL>/twilio/voice`). The identity is the user id, as with the
 * embedded engine (`identityOf`); Twilio addresses that device as `client:<user id>`. The
 * library reads the time from `Date.now` (tests set the system time).
 */
import twilio from 'twilio';
import type { TwilioSettings } from '../config';
import { identityOf } from './access-token';

const { AccessToken } = twilio.jwt;

/** What the token route needs of an issuer. */
export interface TokenIssuer {
  /** `session`: the login the token is for (`sessionTagOf`), when the issuer can tie it to one. */
  issue(userId: number, accountId: number, session?: string): Promise<string>;
}

/** Issues Twilio Voice access tokens. */
export class TwilioAccessTokens implements TokenIssuer {
  constructor(
    private readonly settings: Pick<
      TwilioSettings,
      'accountSid' | 'apiKey' | 'apiSecret' | 'twimlAppSid'
    >,
    private readonly ttlSeconds: number,
  ) {}

  async issue(userId: number): Promise<string> {
    const { accountSid, apiKey, apiSecret, twimlAppSid } = this.settings;
    const token = new AccessToken(accountSid, apiKey, apiSecret, {
      identity: identityOf(userId),
      ttl: this.ttlSeconds,
    });
    token.addGrant(
      new AccessToken.VoiceGrant({ incomingAllow: true, outgoingApplicationSid: twimlAppSid }),
    );
    return token.toJwt();
  }
}
