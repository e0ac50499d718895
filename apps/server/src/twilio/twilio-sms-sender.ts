/**
 * SMS through Twilio Messaging behind the `SmsSender` port: `POST /Accounts/{sid}/Messages.json`
 * from the account's number (or the configured default), to the lead. Twilio's refusal (an
 * invalid number, an unverified sender…) comes back as the message's error, as the sandbox's do.
 */
import type twilio from 'twilio';
import type { OutgoingSms, SmsResult, SmsSender } from '../sms/sms-sender';

/** Sends SMS with a `twilio` REST client. */
export class TwilioSmsSender implements SmsSender {
  constructor(
    private readonly client: twilio.Twilio,
    /** The sender when the message names none (E.164). */
    private readonly defaultFrom: string,
  ) {}

  async send(message: OutgoingSms): Promise<SmsResult> {
    try {
      const sent = await this.client.messages.create({
        from: message.from ?? this.defaultFrom,
        to: message.to,
        body: message.body,
      });
      return { ok: true, providerId: sent.sid };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `Twilio refused the message: ${detail}` };
    }
  }
}
