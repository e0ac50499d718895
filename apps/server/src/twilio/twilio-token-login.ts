/**
 * `/twilio/voice` and the login a browser's token was issued to: Twilio tokens cannot be revoked,
 * so each names its login in the outgoing parameters Twilio adds to every call it places
 * (`auth/twilio-access-tokens.ts`), and a call goes on only while that login lasts.
 */
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import type { OutgoingCallDecision } from '@leadline/voice';
import { TWILIO_LOGIN_PARAM } from '../auth/twilio-access-tokens';
import { LOGIN_ENDED_MESSAGE } from '../calls/dial-guard';

/** Decides a call a browser placed (`From: client:<identity>`), from its form's parameters. */
export type AuthorizeOutgoing = (
  identity: string,
  params: Record<string, string>,
) => Promise<OutgoingCallDecision>;

/**
 * Wraps `authorize` for `/twilio/voice`: a browser's call goes on only when the login its token
 * names (`TWILIO_LOGIN_PARAM`) is still on for that user (`isLive`), else it is refused with the
 * dial guard's sentence ('Your login has ended: log in again to place calls.'). A call without the
 * parameter (a token made before tokens named their login, or a form made up) is refused too.
 * `authorize` gets the parameters without it.
 */
export function requireTokenLogin(
  authorize: AuthorizeOutgoing,
  isLive: (userId: number, login: string) => Promise<boolean>,
): AuthorizeOutgoing {
  return async (identity, params) => {
    const { [TWILIO_LOGIN_PARAM]: login, ...rest } = params;
    const userId = Number(identity);
    if (
      login === undefined ||
      login === '' ||
      !Number.isSafeInteger(userId) ||
      !(await isLive(userId, login))
    ) {
      return { error: { code: SignallingErrorCode.Declined, message: LOGIN_ENDED_MESSAGE } };
    }
    return authorize(identity, rest);
  };
}
