/**
 * Access tokens for Twilio Programmable Voice (`TELEPHONY_PROVIDER=twilio`), issued with the
 * `twilio` library: an API key signs a token whose Voice grant lets the user's browser receive
 * calls (`incomingAllow`) and place them through the TwiML App (`outgoingApplicationSid`, whose
 * voice URL is `<PUBLIC_BASE_URL>/twilio/voice`). The identity is the user id, as with the
 * embedded engine (`identityOf`); Twilio addresses that device as `client:<user id>`. The
 * library reads the time from `Date.now` (tests set the system time).
 *
 * A Twilio token cannot be revoked at Twilio: it places calls for its whole lifetime. So each one
 * carries the login it was issued to (`sessionTagOf`, as the embedded engine's tokens carry it in
 * `session`) in its grant's outgoing parameters, which Twilio adds to every call the token places
 * (`TWILIO_LOGIN_PARAM` in `/twilio/voice`'s form), and `twilio/twilio-token-login.ts` refuses a call
 * whose login has ended: a logout ends what its tokens can dial, even while the user has other
 * logins. The console changes nothing (the parameter is in the token, not in `connect`).
 */
import twilio from 'twilio';
import type { TwilioSettings } from '../config';
import { identityOf } from './access-token';

/** The outgoing parameter naming a token's login (`sessionTagOf`), in `/twilio/voice`'s form. */
export const TWILIO_LOGIN_PARAM = 'leadline_login';

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

  /** A token for `userId`'s browser, tied to the login `session` (`sessionTagOf`) when given. */
  async issue(userId: number, _accountId?: number, session?: string): Promise<string> {
    const { accountSid, apiKey, apiSecret, twimlAppSid } = this.settings;
    const token = new AccessToken(accountSid, apiKey, apiSecret, {
      identity: identityOf(userId),
      ttl: this.ttlSeconds,
    });
    token.addGrant(
      new AccessToken.VoiceGrant({
        incomingAllow: true,
        outgoingApplicationSid: twimlAppSid,
        ...(session === undefined
          ? {}
          : { outgoingApplicationParams: { [TWILIO_LOGIN_PARAM]: session } }),
      }),
    );
    return token.toJwt();
  }
}
