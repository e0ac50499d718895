/**
 * Pure rules of placing an outbound call (spec sections 2, 4, 5 and 7): the New Call request,
 * the server's body and the softphone's connect params built from it, the console call the
 * answer becomes, the Caller ID option labels, and the `?url=tel:/…` launch link.
 */
import type {
  CallerNumber,
  OutboundCallBody,
  OutboundCallResponse,
  User,
} from '@leadline/contracts';
import {
  CALLER_ID_NAME_ELLIPSIS,
  CALLER_ID_NAME_MAX_CHARS,
  OUTBOUND_INTERFACE,
  TEL_LINK_PARAM,
  TEL_LINK_PREFIX,
} from '../constants';
import type { PhoneConnectParams } from '../phone/phone-port';
import type { ConsoleCall } from './call-rules';

/** The caller number the agent chose to call from. */
export interface ChosenCallerId {
  /** The caller number's id (`caller_id` in the request body). */
  readonly number: CallerNumber;
  /** Its E.164 form, for the softphone's `callerId` connect param. */
  readonly e164: string;
}

/** What the New Call panel asks the console to place. */
export interface PlaceCallRequest {
  readonly fname: string;
  readonly lname: string;
  /** E.164 when the phone input could read the number, else the text as typed (the server says why it is wrong). */
  readonly phoneNumber: string;
  /** A caller number of the account; the account's default when null. */
  readonly callerId: ChosenCallerId | null;
}

/**
 * The body of `POST /api/v1/calls/twilio/outbound` for `request`, placed by `user`; from the
 * desktop wrapper it says `interface: 'desktop'` (spec sections 1 and 7).
 */
export function outboundCallBody(
  request: PlaceCallRequest,
  user: User,
  desktop: boolean,
): OutboundCallBody {
  return {
    fname: request.fname.trim(),
    lname: request.lname.trim(),
    phone_number: request.phoneNumber,
    agent_id: user.id,
    ...(desktop ? { interface: OUTBOUND_INTERFACE } : {}),
    ...(request.callerId ? { caller_id: request.callerId.number.id } : {}),
  };
}

/**
 * The softphone's connect params once the server accepted the call (spec section 7):
 * `call_user_id`, the `To` number and, when chosen, the `callerId`.
 */
export function outboundConnectParams(
  answer: OutboundCallResponse,
  callerId: ChosenCallerId | null,
): PhoneConnectParams {
  return {
    call_user_id: String(answer.call_user_id),
    To: answer.call.phone_number,
    ...(callerId ? { callerId: callerId.e164 } : {}),
  };
}

/**
 * The call the console shows while dialing and on the call: the server's answer carries the
 * whole call (lead, caller number, profile and its tags), as `GET /api/v1/callusers/{id}`
 * would give it, so a Contacted result on a profile with tags reaches Tags & Stages (spec
 * section 4). The agent joins it as an ordinary lead call, answered by the far end.
 */
export function outboundConsoleCall(answer: OutboundCallResponse): ConsoleCall {
  return {
    // The gateway names the call once it is placed; the console does not need the sid.
    callSid: '',
    callUserId: answer.call_user_id,
    type: 'lead',
    autoaccept: false,
    call: answer.call,
  };
}

/**
 * A Caller ID option (spec section 2): the name cut to 40 characters with '...' when longer,
 * a colon and the formatted number. Characters as a person counts them (grapheme clusters): a
 * cut by UTF-16 units could split an emoji or an astral letter into half a surrogate pair.
 */
export function callerIdLabel(number: CallerNumber): string {
  // Firefox before 125 has no Intl.Segmenter: code points there, which never split a pair.
  const characters =
    'Segmenter' in Intl
      ? Array.from(new Intl.Segmenter().segment(number.name), (s) => s.segment)
      : Array.from(number.name);
  const name =
    characters.length > CALLER_ID_NAME_MAX_CHARS
      ? `${characters.slice(0, CALLER_ID_NAME_MAX_CHARS).join('')}${CALLER_ID_NAME_ELLIPSIS}`
      : number.name;
  return `${name}: ${number.phone_number_formatted}`;
}

/** What the launch URL asks for. */
export type TelLink =
  /** No `url` parameter. */
  | { readonly kind: 'none' }
  /** A tel: link: open New Call with `number` (its digits and plus sign). */
  | { readonly kind: 'call'; readonly number: string }
  /** A `url` parameter that is not a tel:/ link (spec section 5); `reason` says why. */
  | { readonly kind: 'invalid'; readonly reason: string };

/**
 * Reads `?url=tel:/…` from the page's URL (spec sections 2 and 5). The link must start with
 * `tel:/`; the number is its digits and plus signs.
 */
export function parseTelLink(pageUrl: string): TelLink {
  const value = rawQueryParam(pageUrl, TEL_LINK_PARAM);
  if (value === null) return { kind: 'none' };
  if (!value.toLowerCase().startsWith(TEL_LINK_PREFIX)) {
    return { kind: 'invalid', reason: `The url parameter must start with ${TEL_LINK_PREFIX}.` };
  }
  const number = value.slice(TEL_LINK_PREFIX.length).replace(/[^\d+]/g, '');
  if (!/\d/.test(number)) {
    return { kind: 'invalid', reason: 'The tel: link has no phone number.' };
  }
  return { kind: 'call', number };
}

/**
 * A query parameter of `pageUrl`, percent-decoded but with `+` kept: in a hand-written
 * `?url=tel:/+1…` the plus is the number's, not a space.
 */
function rawQueryParam(pageUrl: string, name: string): string | null {
  let search: string;
  try {
    search = new URL(pageUrl).search.slice(1);
  } catch {
    return null;
  }
  for (const pair of search.split('&')) {
    const at = pair.indexOf('=');
    const key = at < 0 ? pair : pair.slice(0, at);
    if (key !== name) continue;
    try {
      return decodeURIComponent(at < 0 ? '' : pair.slice(at + 1));
    } catch {
      return pair.slice(at + 1);
    }
  }
  return null;
}
