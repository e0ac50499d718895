import type { DtmfTone } from './dtmf-tone';
import type { ClientLeftReason, DialFailure, ParticipantId } from './participant';

/**
 * What a telephony provider reports, one event per fact; `callSid` is always the call (room), and
 * `participantId` in a `phone.*` event is the phone party it is about (as `dial` or `addCaller`
 * returned it).
 */
export type TelephonyEvent =
  | { type: 'device.online'; identity: string }
  | { type: 'device.offline'; identity: string }
  | { type: 'agent.answered'; callSid: string; identity: string }
  | { type: 'agent.rejected'; callSid: string; identity: string }
  | { type: 'agent.left'; callSid: string; identity: string; reason: ClientLeftReason }
  /**
   * A client placed a call: the engine dials `to` into it as the phone party `participantId`
   * (whose `phone.*` events then drive the client's ringing, answer or failure).
   */
  | {
      type: 'outgoing.placed';
      callSid: string;
      identity: string;
      to: string;
      participantId: ParticipantId;
    }
  /** A dialled number is ringing. */
  | { type: 'phone.ringing'; callSid: string; participantId: ParticipantId }
  /** A phone party answered (an inbound caller: at once); its audio is in the call. */
  | { type: 'phone.answered'; callSid: string; participantId: ParticipantId }
  /** A dialled number did not answer; it has left the call, which goes on. */
  | { type: 'phone.unanswered'; callSid: string; participantId: ParticipantId; reason: DialFailure }
  /** A phone party hung up by itself (not by `hangupPhone` or `hangup`); the call goes on. */
  | { type: 'phone.left'; callSid: string; participantId: ParticipantId }
  /**
   * What a phone party heard, written when it left however it left (8 kHz mono WAV at `path`);
   * only parties that answered record.
   */
  | {
      type: 'phone.recorded';
      callSid: string;
      participantId: ParticipantId;
      path: string;
      seconds: number;
    }
  /** Digits a phone party (a lead) received, as it logged them. */
  | { type: 'phone.dtmf'; callSid: string; participantId: ParticipantId; digits: string }
  /**
   * Digits an agent pressed: over signalling (`digits` as sent), or one RFC 4733 key press from
   * the agent's media, with `tone`: when it played on the sender's RTP clock and how long.
   */
  | {
      type: 'dtmf';
      callSid: string;
      source: 'agent' | 'phone';
      digits: string;
      tone?: DtmfTone;
    }
  /** The call's mixed recording, written when the call ended (`<recordingsDir>/<callSid>.wav`). */
  | { type: 'recording.ready'; callSid: string; path: string; seconds: number };
