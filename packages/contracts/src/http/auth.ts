import { z } from 'zod';
import { USER_ROLES } from './admin-constants';
import type { RealtimeSettings } from '../realtime/realtime-settings';
import { RefusalSchema } from './common';
import { PRESENCE_STATUSES } from './users';

/** The one message a failed login shows (spec section 8). */
export const LOGIN_FAILED_MESSAGE = 'Your login credentials are invalid.';

/** POST /api/v1/user/login */
export const LoginBody = z.object({
  email: z.email({ error: 'The email must be a valid email address.' }).max(254),
  password: z.string().min(1, { error: 'The password field is required.' }).max(1024),
});
export type LoginBody = z.infer<typeof LoginBody>;

/** Answer of POST /api/v1/user/login: signed in, or refused (401, `{ success: false, error }`). */
export const LoginResponseSchema = z.union([
  z.strictObject({ success: z.literal(true) }),
  RefusalSchema,
]);
/** Answer of POST /api/v1/user/login. */
export type LoginResponse = z.infer<typeof LoginResponseSchema>;

export * from './sso';

/** Answer of GET /api/v1/login/options (public), as `LoginOptionsResponse` in `sso.ts` says. */
export const LoginOptionsResponseSchema = z.strictObject({
  success: z.literal(true),
  sso: z.boolean(),
});

/** Account feature flags the console needs (the spec's account ids, as settings). */
export const AccountSettingsSchema = z.strictObject({
  hide_lead_email: z.boolean().optional(),
  history_shows_lead_name: z.boolean().optional(),
  external_crm_link_template: z.string().optional(),
  lead_card_shows_phone: z.boolean().optional(),
  inbound_banner_shows_number: z.boolean().optional(),
  no_token_refetch: z.boolean().optional(),
});
/** Account feature flags the console needs (the spec's account ids, as settings). */
export type AccountSettings = z.infer<typeof AccountSettingsSchema>;

/** The signed-in user, as GET /api/v1/user returns it (spec section 3). */
export const UserSchema = z.strictObject({
  id: z.int(),
  account_id: z.int(),
  full_name: z.string(),
  email: z.string(),
  phone_number_formatted: z.string().nullable(),
  profile_picture: z.string().nullable(),
  permissions: z.array(z.string()),
  /** What the user is in their account (issue 37): admins see the Admin screens. */
  role: z.enum(USER_ROLES),
  country_code: z.string(),
  integrations: z.strictObject({
    hubspot_id: z.string().nullable(),
    salesforce_domain: z.string().nullable(),
    activecampaign_domain: z.string().nullable(),
  }),
  settings: AccountSettingsSchema,
  /** Incoming calls are answered automatically (the Settings panel's Auto Accept). */
  autoaccept: z.boolean(),
  /** The agent takes calls when free (Available) or not (Away). */
  is_available: z.boolean(),
  /** Where the agent is now (routing's view): available, away, on a call, wrapping up, offline. */
  status: z.enum(PRESENCE_STATUSES),
  csrf_token: z.string().min(1),
});
/** The signed-in user, as GET /api/v1/user returns it (spec section 3). */
export type User = z.infer<typeof UserSchema>;

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
export const SoftphoneSettingsSchema = z.strictObject({
  /** `leadline`: our SDK against the embedded engine; `twilio`: the official Voice SDK. */
  sdk: z.enum(['leadline', 'twilio']),
  /** Sound URLs (served by the product; nothing comes from a CDN). */
  sounds: z.record(z.enum(SOFTPHONE_SOUND_NAMES), z.string().min(1)),
  /**
   * `twilio`: the SDK connects to Twilio's own edge (`TELEPHONY_PROVIDER=twilio`); absent: to
   * the embedded engine on the page's host.
   */
  edge: z.literal('twilio').optional(),
});
/** How the console reaches the phone: which SDK to load and the product's own sounds. */
export type SoftphoneSettings = z.infer<typeof SoftphoneSettingsSchema>;

/**
 * `realtime` of GET /api/v1/user: what the console passes to pusher-js (the
 * {@link RealtimeSettings} type, `realtime/realtime-settings.ts`).
 */
export const RealtimeSettingsSchema = z.strictObject({
  key: z.string().min(1),
  options: z.strictObject({
    cluster: z.string(),
    forceTLS: z.boolean(),
    wsHost: z.string().optional(),
    wsPort: z.int().optional(),
    wssPort: z.int().optional(),
    enabledTransports: z.array(z.enum(['ws', 'wss'])).optional(),
    disableStats: z.boolean().optional(),
    channelAuthorization: z.strictObject({
      endpoint: z.string().min(1),
      transport: z.literal('ajax'),
      headers: z.record(z.string(), z.string()),
    }),
    activityTimeout: z.number().positive(),
    pongTimeout: z.number().positive(),
    unavailableTimeout: z.number().positive(),
  }),
  channels: z.strictObject({ user: z.string().min(1), account: z.string().min(1) }),
});

/** Answer of GET /api/v1/user. */
export const UserResponseSchema = z.strictObject({
  success: z.literal(true),
  user: UserSchema,
  csrf_token: z.string().min(1),
  softphone: SoftphoneSettingsSchema,
  /** How the console connects its realtime client (pusher-js). */
  realtime: RealtimeSettingsSchema,
});

/** Answer of GET /api/v1/user. */
export interface UserResponse {
  success: true;
  user: User;
  csrf_token: string;
  softphone: SoftphoneSettings;
  /** How the console connects its realtime client (pusher-js). */
  realtime: RealtimeSettings;
}

/** Answer of GET /api/v1/twilio/token2: the softphone's access token. */
export const TokenResponseSchema = z.strictObject({ token: z.string().min(1) });
/** Answer of GET /api/v1/twilio/token2. */
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
