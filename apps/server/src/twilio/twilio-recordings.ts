/**
 * Conference recordings kept by Twilio, served through the product's own `recording_url`: the
 * recording callback stores Twilio's `RecordingUrl`; the route fetches `<url>.wav` with the API
 * key (Twilio can require HTTP auth on media URLs) and streams it to the account's user, a
 * `Range` passed through so the history's player can seek. Only URLs of the configured account
 * on Twilio's API are fetched, so the key is never sent anywhere else.
 */
import type { TwilioSettings } from '../config';

const TWILIO_API = 'https://api.twilio.com';

/** Fetches the account's recordings from Twilio's API (or the configured stand-in). */
export class TwilioRecordings {
  readonly #prefix: string;

  constructor(
    private readonly settings: Pick<
      TwilioSettings,
      'accountSid' | 'apiKey' | 'apiSecret' | 'apiBaseUrl'
    >,
  ) {
    this.#prefix = `${TWILIO_API}/2010-04-01/Accounts/${settings.accountSid}/Recordings/`;
  }

  /** Whether `url` names one of the account's recordings (what the callback stores). */
  owns(url: string): boolean {
    return url.startsWith(this.#prefix) && /^RE[0-9a-f]{32}$/.test(url.slice(this.#prefix.length));
  }

  /** The recording as WAV; `range` is the client's `Range` header, passed on. */
  fetch(url: string, range?: string): Promise<Response> {
    if (!this.owns(url)) throw new Error(`Not a recording of this Twilio account: ${url}`);
    const { apiKey, apiSecret, apiBaseUrl } = this.settings;
    const target = `${apiBaseUrl}${url.slice(TWILIO_API.length)}.wav`;
    return fetch(target, {
      headers: {
        authorization: `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString('base64')}`,
        ...(range ? { range } : {}),
      },
      signal: AbortSignal.timeout(30_000),
    });
  }
}
