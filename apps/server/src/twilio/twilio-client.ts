/**
 * The `twilio` REST client the provider uses, authenticated with the API key, pointed at
 * `TWILIO_API_BASE_URL`: Twilio's API in production, a stand-in on loopback in tests (no test
 * may call the internet). The library builds `https://<product>.twilio.com/...` URIs itself, so
 * a request client rewrites their origin when the base is not Twilio's.
 */
import twilio from 'twilio';
import type { TwilioSettings } from '../config';

type RequestOptions<TData> = Parameters<typeof twilio.RequestClient.prototype.request<TData>>[0];

const TWILIO_ORIGIN = /^https:\/\/[a-z]+\.twilio\.com/;

/** A request client sending every request to `base` instead of Twilio's hosts. */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super();
  }

  override request<TData>(opts: RequestOptions<TData>) {
    return super.request<TData>({ ...opts, uri: opts.uri.replace(TWILIO_ORIGIN, this.base) });
  }
}

/** The REST client for the configured account. */
export function twilioClient(
  settings: Pick<TwilioSettings, 'accountSid' | 'apiKey' | 'apiSecret' | 'apiBaseUrl'>,
): twilio.Twilio {
  const rebased = settings.apiBaseUrl !== 'https://api.twilio.com';
  return twilio(settings.apiKey, settings.apiSecret, {
    accountSid: settings.accountSid,
    ...(rebased ? { httpClient: new RebasedRequestClient(settings.apiBaseUrl) } : {}),
  });
}
