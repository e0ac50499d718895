/**
 * Pure rules about a call the console shows (spec section 4): the ringing banner, auto-accept,
 * where the flow goes after the call ends, and the call-user id in the caller id.
 */
import type { AccountSettings, Call, CallType, Lead } from '@leadline/contracts';
import {
  CALL_USER_IDENTITY_PREFIX,
  DEFAULT_SMS_TEXT,
  PERMISSION_RETRY,
  PERMISSION_SMS,
  INCOMING_CONFERENCE_BANNER,
  INCOMING_LEAD_BANNER,
  INCOMING_TRANSFER_BANNER,
} from '../constants';

/** The call the console is handling, as loaded from `GET /api/v1/callusers/{id}`. */
export interface ConsoleCall {
  /** The softphone call's `CallSid`. */
  readonly callSid: string;
  /** The call-user id taken from `From: client:<id>`. */
  readonly callUserId: number;
  /** The call as the server describes it (lead, number, profile…). */
  readonly call: Call;
  /** How this agent joins the call (the call-user's type). */
  readonly type: CallType;
  /** Whether the server asks to answer it without a click. */
  readonly autoaccept: boolean;
}

/**
 * The call-user id in an incoming call's `From` (`client:<id>`), or `null` if it is not one.
 */
export function parseCallUserId(from: string): number | null {
  if (!from.startsWith(CALL_USER_IDENTITY_PREFIX)) return null;
  const digits = from.slice(CALL_USER_IDENTITY_PREFIX.length);
  if (!/^\d{1,15}$/.test(digits)) return null;
  const id = Number(digits);
  return id > 0 ? id : null;
}

/**
 * The ringing banner: an inbound call shows its number's name (plus the formatted number when
 * the account asks for it); a transfer, a conference and any other call have fixed texts.
 */
export function incomingBanner(call: ConsoleCall, settings: AccountSettings): string {
  const number = call.call.number;
  if (call.call.direction === 'inbound' && number) {
    return settings.inbound_banner_shows_number
      ? `${number.name} ${number.phone_number_formatted}`
      : number.name;
  }
  if (call.type === 'transfer') return INCOMING_TRANSFER_BANNER;
  if (call.type === 'conference') return INCOMING_CONFERENCE_BANNER;
  return INCOMING_LEAD_BANNER;
}

/** What the ringing view's answer button says (spec section 2). */
export type AnswerWord = 'Accept' | 'Call';

/**
 * The ringing view's answer button (spec section 2: "Accept (inbound or transfer) or Call"):
 * an inbound call or a transfer is accepted; a rung lead, a conference invitation (and a
 * supervisor's own listen, whisper or barge) is a call the agent places by answering.
 */
export function answerWord(call: ConsoleCall | null): AnswerWord {
  if (call === null) return 'Accept';
  return call.call.direction === 'inbound' || call.type === 'transfer' ? 'Accept' : 'Call';
}

/** Auto-accept when the server says so, unless the call's profile turns auto-answer off. */
export function shouldAutoAccept(call: ConsoleCall): boolean {
  return call.autoaccept && call.call.profile?.auto_answer !== false;
}

/** Inbound, listen and whisper calls skip the Call Result view and go to thank-you. */
export function endsInThankyou(call: ConsoleCall): boolean {
  return call.call.direction === 'inbound' || call.type === 'listen' || call.type === 'whisper';
}

/** Listen calls cannot unmute: the supervisor only hears (spec section 2). */
export function canMute(call: ConsoleCall): boolean {
  return call.type !== 'listen';
}

/** Listen and whisper calls: a supervisor coaching or hearing someone else's call. */
function supervises(call: ConsoleCall): boolean {
  return call.type === 'listen' || call.type === 'whisper';
}

/** The call has a lead (its lead card is filled). */
export function hasLead(call: ConsoleCall): boolean {
  return call.call.lead !== null;
}

/** Hold/Resume and Transfer: only a call with a lead that is not a listen or whisper call. */
export function canHoldOrTransfer(call: ConsoleCall): boolean {
  return hasLead(call) && !supervises(call);
}

/** The keypad: hidden for listen and whisper calls. */
export function showsKeypad(call: ConsoleCall): boolean {
  return !supervises(call);
}

/**
 * How long the call had been going when this agent joined (ms): listen, whisper and barge calls
 * start their timer from the call's `seconds_since_started_at` (spec section 4); others from 0.
 */
export function elapsedWhenJoinedMs(call: ConsoleCall): number {
  const joinsMidway = call.type === 'listen' || call.type === 'whisper' || call.type === 'barge';
  return joinsMidway ? Math.max(0, call.call.seconds_since_started_at) * 1000 : 0;
}

/**
 * What the on-call status line says: on hold, a supervisor's role and whose call it is
 * ('Listening to Sam Lee's call'), a conference the agent was added to, or on call.
 */
export function callStatusText(call: ConsoleCall | null, held: boolean): string {
  if (held) return 'On hold';
  const agent = call?.call.agent_name;
  switch (call?.type) {
    case 'listen':
      return agent ? `Listening to ${agent}'s call` : 'Listening';
    case 'whisper':
      return agent ? `Whispering to ${agent}` : 'Whispering';
    case 'barge':
      return agent ? `Barged into ${agent}'s call` : 'Barged in';
    default:
      // Joined as a conference, or this agent added someone to the call (spec section 7).
      return call?.type === 'conference' || call?.call.type === 'conference'
        ? 'Conference'
        : 'On call';
  }
}

/**
 * What the agent may do after a call, from their permissions (spec section 6): the SMS
 * follow-up (`app-sms`, with the default text) and Retry (`app-retry`). Fixed when the call
 * starts, so the Call Result view and its branches agree for the whole wrap-up.
 */
export interface FollowUps {
  readonly sms: boolean;
  readonly retry: boolean;
  /** The SMS text offered (spec section 4: the default text for `app-sms` users). */
  readonly smsText: string;
}

/** No follow-ups (no call, or no permissions). */
export const NO_FOLLOW_UPS: FollowUps = { sms: false, retry: false, smsText: '' };

/** The follow-ups `permissions` allow. */
export function followUpsOf(permissions: readonly string[]): FollowUps {
  const sms = permissions.includes(PERMISSION_SMS);
  return {
    sms,
    retry: permissions.includes(PERMISSION_RETRY),
    smsText: sms ? DEFAULT_SMS_TEXT : '',
  };
}

/** The call's profile asks for Tags & Stages after a contacted call (`is_deal_whispertext`). */
export function wantsTags(call: ConsoleCall): boolean {
  return call.call.profile?.is_deal_whispertext === true;
}

/** The lead Retry calls again: the call's lead, when it has a phone number. */
export function retryableLead(call: ConsoleCall): Lead | null {
  const lead = call.call.lead;
  return lead && lead.phone_number ? lead : null;
}
