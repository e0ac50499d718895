/**
 * A conference participant at Twilio, addressed by its label under the conference's `CF…` sid
 * (or the call sid while Twilio has not named the conference yet), and its hold: what both the
 * commands and the callbacks (a phone answering while the call is held) send.
 */
import type twilio from 'twilio';
import type { Party, TwilioLegs } from './twilio-legs';

/** What the participants need. */
export interface TwilioParticipantsOptions {
  client: twilio.Twilio;
  legs: TwilioLegs;
  log: { warn(details: object, message: string): void };
  /** Music the lead hears on hold (Twilio's default when left out). */
  holdUrl?: string;
}

/** The participants of the calls' conferences at Twilio. */
export class TwilioParticipants {
  readonly #options: TwilioParticipantsOptions;

  constructor(options: TwilioParticipantsOptions) {
    this.#options = options;
  }

  /** The REST resource of the participant `label` of `callSid`'s conference. */
  async participant(callSid: string, label: string) {
    const conferenceSid = await this.#options.legs.conferenceSid(callSid);
    return this.#options.client.conferences(conferenceSid ?? callSid).participants(label);
  }

  /** Puts the party on hold (with the hold music) or takes it off; a failure is logged. */
  async hold(party: Party, hold: boolean): Promise<void> {
    const holdUrl = this.#options.holdUrl;
    try {
      const participant = await this.participant(party.callSid, party.label);
      await participant.update(hold && holdUrl ? { hold, holdUrl } : { hold });
    } catch (error) {
      this.#options.log.warn({ err: error, label: party.label, hold }, 'Twilio hold failed');
    }
  }
}

/** Twilio answered 404: it knows no such participant, conference or call. */
export function notFound(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 404;
}
