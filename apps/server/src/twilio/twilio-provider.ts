/**
 * The Twilio side of the product, built from the settings (`TELEPHONY_PROVIDER=twilio`): the
 * REST client, the conference provider, access tokens, SMS, the recordings' fetcher and the
 * webhooks. Opening it checks the credentials (Twilio must list the account's numbers), so a
 * wrong key stops the start with Twilio's own message rather than failing the first call.
 */
import type twilio from 'twilio';
import type { OutgoingCallDecision } from '@leadline/voice';
import type { TwilioSettings } from '../config';
import type { Db } from '../db/database';
import { ConfigError } from '../config';
import { TwilioAccessTokens } from '../auth/twilio-access-tokens';
import { twilioClient } from './twilio-client';
import { TwilioRecordings } from './twilio-recordings';
import { TwilioSmsSender } from './twilio-sms-sender';
import { TwilioTelephony } from './twilio-telephony';
import type { WebhookReceipts } from '../http/webhook-receipts';
import type { NumberInventory } from '../admin/number-inventory';
import { twilioNumberInventory } from './twilio-number-inventory';
import { twilioWebhookRoutes, voiceAnswer } from './twilio-webhooks';

/** What the provider logs. */
interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** The opened provider. */
export interface TwilioProvider {
  client: twilio.Twilio;
  telephony: TwilioTelephony;
  tokens: TwilioAccessTokens;
  sms: TwilioSmsSender;
  recordings: TwilioRecordings;
  /** The account's Twilio numbers (E.164), the first being the default caller ID. */
  numbers: string[];
  /** The account's numbers as they are when asked (the admin's caller numbers come from them). */
  inventory: NumberInventory;
  /** The webhook routes, answering with the flows' decisions. */
  webhooks(deps: {
    authorizeOutgoing: (
      identity: string,
      params: Record<string, string>,
    ) => Promise<OutgoingCallDecision>;
    inbound: (params: Record<string, string>) => Promise<boolean | void>;
    /** The callbacks already handled (shared by the instances). */
    receipts?: WebhookReceipts;
  }): ReturnType<typeof twilioWebhookRoutes>;
}

/** Opens the provider; refuses (ConfigError) when Twilio refuses the credentials. */
export async function openTwilioProvider(
  settings: TwilioSettings,
  options: {
    log: Log;
    /** Where the provider keeps its calls' state (shared by the instances). */
    db: Db;
    ringTimeoutMs: number;
    tokenTtlSeconds: number;
    holdUrl?: string;
  },
): Promise<TwilioProvider> {
  const client = twilioClient(settings);
  let numbers: string[];
  try {
    const listed = await client.incomingPhoneNumbers.list({ limit: 1000 });
    numbers = listed.map((n) => n.phoneNumber);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Twilio refused the account's settings (TWILIO_ACCOUNT_SID, TWILIO_API_KEY, TWILIO_API_SECRET): ${detail}`,
    );
  }
  const callerId = numbers[0] ?? '';
  if (numbers.length === 0) {
    options.log.warn({}, 'the Twilio account has no phone numbers: calls to phones will fail');
  } else {
    options.log.info({ numbers }, 'Twilio numbers');
  }
  const telephony = new TwilioTelephony({
    client,
    publicBaseUrl: settings.publicBaseUrl,
    callerId,
    log: options.log,
    db: options.db,
    // Twilio rings a little longer than the flows' own timer, which decides and cancels.
    ringTimeoutS: Math.min(600, Math.ceil(options.ringTimeoutMs / 1000) + 5),
    ...(options.holdUrl ? { holdUrl: options.holdUrl } : {}),
  });
  return {
    client,
    telephony,
    tokens: new TwilioAccessTokens(settings, options.tokenTtlSeconds),
    sms: new TwilioSmsSender(client),
    recordings: new TwilioRecordings(settings),
    numbers,
    inventory: twilioNumberInventory(client),
    webhooks: ({ receipts, ...deps }) =>
      twilioWebhookRoutes({
        telephony,
        authToken: settings.authToken,
        publicBaseUrl: settings.publicBaseUrl,
        voice: voiceAnswer({ telephony, ...deps }),
        receipts,
      }),
  };
}
