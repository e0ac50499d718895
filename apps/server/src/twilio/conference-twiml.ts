/**
 * The TwiML the conference provider answers with (the `twilio` library's `VoiceResponse`): join
 * the Leadline call's named conference as a labelled participant (so later REST commands and
 * the conference's `participant-*` callbacks name it), the conference reporting to
 * `/twilio/status` and recording from the start to `/twilio/recording`; a wait for an inbound
 * caller not placed yet; a refusal.
 */
import twilio from 'twilio';

const { VoiceResponse } = twilio.twiml;

/** Joins the conference named `callSid` as the participant `label`. */
export function conferenceTwiml(
  callSid: string,
  options: {
    label: string;
    publicBaseUrl: string;
    callerId?: string;
    /**
     * An inbound caller joining before an agent answered: the conference does not start with
     * them, so they hear Twilio's wait music (not silence) until the agent joins and starts it.
     */
    waitsForAgent?: boolean;
  },
): string {
  const response = new VoiceResponse();
  const dial = response.dial(options.callerId ? { callerId: options.callerId } : {});
  dial.conference(
    {
      participantLabel: options.label,
      startConferenceOnEnter: !options.waitsForAgent,
      // The call goes on when one party leaves (a transfer); the flows end it.
      endConferenceOnExit: false,
      beep: 'false',
      statusCallback: `${options.publicBaseUrl}/twilio/status`,
      statusCallbackMethod: 'POST',
      statusCallbackEvent: ['start', 'end', 'join', 'leave'],
      record: 'record-from-start',
      recordingStatusCallback: `${options.publicBaseUrl}/twilio/recording`,
      recordingStatusCallbackMethod: 'POST',
      recordingStatusCallbackEvent: ['completed'],
    },
    callSid,
  );
  return response.toString();
}

/** Keeps an inbound caller on the line (ringing tone) until the provider moves its call. */
export function waitTwiml(waitS: number): string {
  const response = new VoiceResponse();
  response.pause({ length: waitS });
  response.hangup();
  return response.toString();
}

/** Refuses a call: `<Reject/>` without a reason, else the reason spoken, then hang up. */
export function refuseTwiml(reason?: string): string {
  const response = new VoiceResponse();
  if (reason === undefined) {
    response.reject();
    return response.toString();
  }
  response.say(reason);
  response.hangup();
  return response.toString();
}
