/**
 * SMS through Twilio Messaging behind the `SmsSender` port: `POST /Accounts/{sid}/Messages.json`
 * from the account's number, to the lead. Twilio's refusal (an invalid number, an unverified
 * sender…) comes back as the message's error, as the sandbox's do. A message without the
 * account's number is refused here: the Twilio account's numbers are shared by every Leadline
 * account, so none of them is a default (issue 36, Twilio tenancy).
 */
import type twilio from 'twilio';
import { NO_OWN_NUMBER_FOR_TEXTS } from '../calls/dial-guard';
import type { OutgoingSms, SmsResult, SmsSender } from '../sms/sms-sender';

/** Sends SMS with a `twilio` REST client. */
export class TwilioSmsSender implements SmsSender {
  constructor(private readonly client: twilio.Twilio) {}

  async send(message: OutgoingSms): Promise<SmsResult> {
    if (!message.from) return { ok: false, error: NO_OWN_NUMBER_FOR_TEXTS };
    try {
      const sent = await this.client.messages.create({
        from: message.from,
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
