import { z } from 'zod';
import type { RealtimeSettings } from '../realtime/realtime-settings';
import type { PresenceStatus } from './users';

/** The one message a failed login shows (spec section 8). */
export const LOGIN_FAILED_MESSAGE = 'Your login credentials are invalid.';

/** POST /api/v1/user/login */
export const LoginBody = z.object({
  email: z.email({ error: 'The email must be a valid email address.' }).max(254),
  password: z.string().min(1, { error: 'The password field is required.' }).max(1024),
});
export type LoginBody = z.infer<typeof LoginBody>;

/** Answer of POST /api/v1/user/login. */
export type LoginResponse = { success: true } | { success: false; error: string };

export * from './sso';

/** Account feature flags the console needs (the spec's account ids, as settings). */
export interface AccountSettings {
  hide_lead_email?: boolean;
  history_shows_lead_name?: boolean;
  external_crm_link_template?: string;
  lead_card_shows_phone?: boolean;
  inbound_banner_shows_number?: boolean;
  no_token_refetch?: boolean;
}

/** The signed-in user, as GET /api/v1/user returns it (spec section 3). */
export interface User {
  id: number;
  account_id: number;
  full_name: string;
  email: string;
  phone_number_formatted: string | null;
  profile_picture: string | null;
  permissions: string[];
  country_code: string;
  integrations: {
    hubspot_id: string | null;
    salesforce_domain: string | null;
    activecampaign_domain: string | null;
  };
  settings: AccountSettings;
  /** Incoming calls are answered automatically (the Settings panel's Auto Accept). */
  autoaccept: boolean;
  /** The agent takes calls when free (Available) or not (Away). */
  is_available: boolean;
  /** Where the agent is now (routing's view): available, away, on a call, wrapping up, offline. */
  status: PresenceStatus;
  csrf_token: string;
}

/** The sounds a softphone plays, by the official Voice SDK's names (`dtmfs` `*`, `dtmfh` `#`). */
export const SOFTPHONE_SOUND_NAMES = [
  'incoming',
  'outgoing',
  'disconnect',
  'dtmf0',
  'dtmf1',
  'dtmf2',
  'dtmf3',
  'dtmf4',
  'dtmf5',
  'dtmf6',
  'dtmf7',
  'dtmf8',
  'dtmf9',
  'dtmfs',
  'dtmfh',
] as const;

/** The name of a softphone sound. */
export type SoftphoneSoundName = (typeof SOFTPHONE_SOUND_NAMES)[number];

/** How the console reaches the phone: which SDK to load and the product's own sounds. */
export interface SoftphoneSettings {
  /** `leadline`: our SDK against the embedded engine; `twilio`: the official Voice SDK. */
  sdk: 'leadline' | 'twilio';
  /** Sound URLs (served by the product; nothing comes from a CDN). */
  sounds: Record<SoftphoneSoundName, string>;
  /**
   * `twilio`: the SDK connects to Twilio's own edge (`TELEPHONY_PROVIDER=twilio`); absent: to
   * the embedded engine on the page's host.
   */
  edge?: 'twilio';
}

/** Answer of GET /api/v1/user. */
export interface UserResponse {
  success: true;
  user: User;
  csrf_token: string;
  softphone: SoftphoneSettings;
  /** How the console connects its realtime client (pusher-js). */
  realtime: RealtimeSettings;
}

/** Answer of GET /api/v1/twilio/token2. */
export interface TokenResponse {
  token: string;
}
