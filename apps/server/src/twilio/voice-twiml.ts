/**
 * The TwiML Leadline answers Twilio with, built with the `twilio` library's `VoiceResponse`.
 * Every Leadline call is a named Twilio Conference whose name is the Leadline call sid: whoever
 * joins it (an agent's browser placing or taking the call, an inbound caller) is answered with
 * `joinConference`; the lead's phone, transfers and supervisors are added to the same conference
 * through the REST API. The conference reports its participants to `/twilio/status` and its
 * recording to `/twilio/recording`.
 */
import twilio from 'twilio';
import { TWILIO_WEBHOOK_PATHS } from './signed-webhooks';

const { VoiceResponse } = twilio.twiml;

/** Joins the caller to the call's conference. */
export function joinConference(
  callSid: string,
  options: {
    publicBaseUrl: string;
    /** Whether the conference is recorded (from the start). */
    record: boolean;
    /** Caller ID for the dial (E.164), if any. */
    callerId?: string;
  },
): string {
  const response = new VoiceResponse();
  const dial = response.dial(options.callerId ? { callerId: options.callerId } : {});
  dial.conference(
    {
      startConferenceOnEnter: true,
      // The call goes on when one party leaves (a transfer); the flows end it.
      endConferenceOnExit: false,
      beep: 'false',
      statusCallback: `${options.publicBaseUrl}${TWILIO_WEBHOOK_PATHS.status}`,
      statusCallbackEvent: ['start', 'end', 'join', 'leave', 'mute', 'hold'],
      ...(options.record
        ? {
            record: 'record-from-start',
            recordingStatusCallback: `${options.publicBaseUrl}${TWILIO_WEBHOOK_PATHS.recording}`,
            recordingStatusCallbackEvent: ['completed'],
          }
        : {}),
    },
    callSid,
  );
  return response.toString();
}

/** Refuses a call with a spoken reason, then hangs up. */
export function refuseCall(reason: string): string {
  const response = new VoiceResponse();
  response.say(reason);
  response.hangup();
  return response.toString();
}
