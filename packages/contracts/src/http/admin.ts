/**
 * The administration API (`/api/v1/admin/…`, issue 37): what an account's admin sends and gets
 * back. Every body is parsed with these schemas at the server's boundary; a failure is a 422
 * whose sentence names the field. The same sentences reach the admin screens.
 */
import { z } from 'zod';
import { TAG_MIN_CONTRAST, tagTextContrast } from '../lib/colour-contrast';
import { AccountSettingsSchema } from './auth';
import { PASSWORD_MAX_LENGTH, PERMISSION_STRINGS, USER_ROLES } from './admin-constants';

import { PageField, PageMetaSchema } from './paging';
import { phoneNumberField } from './phone';

const trimmed = (field: string, max: number) =>
  z
    .string({ error: `The ${field} field is required.` })
    .trim()
    .min(1, { error: `The ${field} field is required.` })
    .max(max, { error: `The ${field} may not be longer than ${max} characters.` });

/** An e-mail address, stored as typed (unique without regard to case). */
export const AdminEmail = z
  .string({ error: 'The email field is required.' })
  .trim()
  .min(1, { error: 'The email field is required.' })
  .max(254, { error: 'The email may not be longer than 254 characters.' })
  .pipe(z.email({ error: 'The email must be a valid email address.' }));

/** A password as an admin sets it (strength is checked with the e-mail: `passwordWeakness`). */
export const AdminPassword = z
  .string({ error: 'The password must be text.' })
  .max(PASSWORD_MAX_LENGTH, {
    error: `The password may not be longer than ${PASSWORD_MAX_LENGTH} characters.`,
  });

const positiveId = (field: string) =>
  z
    .int({ error: `The ${field} must be a whole number.` })
    .positive({ error: `The ${field} must be a positive number.` })
    .max(2_147_483_647, { error: `The ${field} is too large.` });

/** An ISO 3166-1 alpha-2 country code, upper case. */
export const CountryCode = z
  .string({ error: 'The country code must be text.' })
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, { error: 'The country code must be two letters (ISO 3166-1), such as US.' });

/** An IANA time zone the runtime knows, such as America/New_York. */
export const TimeZone = z
  .string({ error: 'The time zone field is required.' })
  .trim()
  .min(1, { error: 'The time zone field is required.' })
  .refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'The time zone must be an IANA time zone, such as America/New_York.' },
  );

/** A user's CRM ids (the lead card's CRM buttons). */
export const AdminIntegrations = z.strictObject({
  hubspot_id: z.string().trim().max(100).nullable().optional(),
  salesforce_domain: z.string().trim().max(253).nullable().optional(),
  activecampaign_domain: z.string().trim().max(253).nullable().optional(),
});

// ---------------------------------------------------------------------------------------------
// Lists

/** The query of every admin list: page and a free-text search. */
export const AdminListQuery = z.object({
  page: PageField,
  search: z.optional(
    z.string().trim().max(100, { error: 'The search may not be longer than 100 characters.' }),
  ),
});
export type AdminListQuery = z.infer<typeof AdminListQuery>;

const listOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({ data: z.array(item), meta: PageMetaSchema });
const createdOf = <T extends z.ZodType>(item: T) => z.strictObject({ data: item });

// ---------------------------------------------------------------------------------------------
// Users

/** A user as the admin screens show it. */
export const AdminUserSchema = z.strictObject({
  id: z.int(),
  full_name: z.string(),
  email: z.string(),
  role: z.enum(USER_ROLES),
  permissions: z.array(z.string()),
  team_ids: z.array(z.int()),
  country_code: z.string(),
  /** E.164, or null. */
  phone_number: z.string().nullable(),
  integrations: z.strictObject({
    hubspot_id: z.string().nullable(),
    salesforce_domain: z.string().nullable(),
    activecampaign_domain: z.string().nullable(),
  }),
  active: z.boolean(),
  /** Signs in with single sign-on (bound to an identity). */
  sso_bound: z.boolean(),
  created_at: z.string(),
});
export type AdminUser = z.infer<typeof AdminUserSchema>;
export const AdminUserListSchema = listOf(AdminUserSchema);
export type AdminUserList = z.infer<typeof AdminUserListSchema>;
export const AdminUserCreatedSchema = createdOf(AdminUserSchema);

const userFields = {
  full_name: trimmed('full name', 100),
  email: AdminEmail,
  role: z.enum(USER_ROLES, { error: 'The role must be admin, supervisor or agent.' }),
  permissions: z
    .array(
      z.enum(PERMISSION_STRINGS, {
        error: `The permissions may only be ${PERMISSION_STRINGS.join(', ')}.`,
      }),
      { error: 'The permissions must be a list.' },
    )
    .max(PERMISSION_STRINGS.length, { error: 'The permissions list is too long.' })
    .transform((list) => [...new Set(list)]),
  team_ids: z
    .array(positiveId('team id'), { error: 'The team ids must be a list.' })
    .max(100, { error: 'A user may be in at most 100 teams.' })
    .transform((list) => [...new Set(list)]),
  country_code: CountryCode.optional(),
  // Nullable, not a union with null: a union's failure would hide the field's own sentence.
  phone_number: phoneNumberField('phone number').nullable().optional(),
  integrations: AdminIntegrations.optional(),
  active: z.boolean({ error: 'The active field must be true or false.' }).optional(),
};

/** POST /api/v1/admin/users (without a password the user signs in with single sign-on only). */
export const AdminUserCreateBody = z.strictObject({
  ...userFields,
  permissions: userFields.permissions.default([]),
  team_ids: userFields.team_ids.default([]),
  password: AdminPassword.optional(),
});
export type AdminUserCreateBody = z.infer<typeof AdminUserCreateBody>;

/** PATCH /api/v1/admin/users/{id}: the fields to change. */
export const AdminUserUpdateBody = z.strictObject({
  full_name: userFields.full_name.optional(),
  email: AdminEmail.optional(),
  role: userFields.role.optional(),
  permissions: userFields.permissions.optional(),
  team_ids: userFields.team_ids.optional(),
  country_code: userFields.country_code,
  phone_number: userFields.phone_number,
  integrations: userFields.integrations,
  active: userFields.active,
  password: AdminPassword.optional(),
});
export type AdminUserUpdateBody = z.infer<typeof AdminUserUpdateBody>;

// ---------------------------------------------------------------------------------------------
// Teams

export const AdminTeamSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  member_count: z.int().nonnegative(),
  created_at: z.string(),
});
export type AdminTeam = z.infer<typeof AdminTeamSchema>;
export const AdminTeamListSchema = listOf(AdminTeamSchema);
export type AdminTeamList = z.infer<typeof AdminTeamListSchema>;
export const AdminTeamCreatedSchema = createdOf(AdminTeamSchema);

/** POST /api/v1/admin/teams and PATCH /api/v1/admin/teams/{id}. */
export const AdminTeamBody = z.strictObject({ name: trimmed('name', 100) });
export type AdminTeamBody = z.infer<typeof AdminTeamBody>;

// ---------------------------------------------------------------------------------------------
// Profiles and their tags

/** A tag colour: `#rrggbb` (or `#rgb`) on which the console's dark or light text is readable. */
export const TagColour = z
  .string({ error: 'The tag colour field is required.' })
  .trim()
  .regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, {
    error: 'The tag colour must be a hex colour such as #1a73e8.',
  })
  .refine((colour) => (tagTextContrast(colour) ?? 0) >= TAG_MIN_CONTRAST, {
    error: `The tag colour is too close to mid-grey: neither dark nor light text on it reaches a contrast of ${TAG_MIN_CONTRAST}:1. Pick a darker or lighter colour.`,
  })
  .transform((colour) => colour.toLowerCase());

export const AdminTagSchema = z.strictObject({
  key: z.string(),
  name: z.string(),
  color: z.string(),
});
export type AdminTag = z.infer<typeof AdminTagSchema>;

export const AdminTagBody = z.strictObject({
  key: z
    .string({ error: 'The tag key field is required.' })
    .trim()
    .min(1, { error: 'The tag key field is required.' })
    .max(50, { error: 'The tag key may not be longer than 50 characters.' })
    .regex(/^[a-z0-9][a-z0-9_-]*$/, {
      error: 'The tag key may hold only lower-case letters, digits, - and _.',
    }),
  name: trimmed('tag name', 50),
  color: TagColour,
});

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const interval = z
  .tuple([z.string(), z.string()], { error: 'Each opening interval must be two HH:MM times.' })
  .refine(([from, to]) => HHMM.test(from) && (HHMM.test(to) || to === '24:00') && from < to, {
    error: 'Each opening interval must be two HH:MM times, the first before the second.',
  });

/**
 * When a profile takes calls: per weekday (0 Sunday … 6 Saturday) its open intervals; a day
 * left out (or with no intervals) is closed.
 */
export const ProfileHours = z.strictObject({
  time_zone: TimeZone,
  days: z.partialRecord(
    z.enum(['0', '1', '2', '3', '4', '5', '6'], {
      error: 'The days of the hours are 0 (Sunday) to 6 (Saturday).',
    }),
    z.array(interval).max(6, { error: 'A day may have at most 6 opening intervals.' }),
  ),
});
export type ProfileHours = z.infer<typeof ProfileHours>;

export const AdminProfileSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  is_deal_whispertext: z.boolean(),
  auto_answer: z.boolean(),
  ring_timeout_seconds: z.int().nullable(),
  team_id: z.int().nullable(),
  hours: ProfileHours.nullable(),
  tags: z.array(AdminTagSchema),
  created_at: z.string(),
});
export type AdminProfile = z.infer<typeof AdminProfileSchema>;
export const AdminProfileListSchema = listOf(AdminProfileSchema);
export type AdminProfileList = z.infer<typeof AdminProfileListSchema>;
export const AdminProfileCreatedSchema = createdOf(AdminProfileSchema);

const tagList = z
  .array(AdminTagBody, { error: 'The tags must be a list.' })
  .max(30, { error: 'A profile may have at most 30 tags.' })
  .refine((list) => new Set(list.map((tag) => tag.key)).size === list.length, {
    error: 'Each tag key may appear once in a profile.',
  });

const profileFields = {
  name: trimmed('name', 100),
  is_deal_whispertext: z.boolean({ error: 'The is_deal_whispertext field must be true or false.' }),
  auto_answer: z.boolean({ error: 'The auto_answer field must be true or false.' }),
  ring_timeout_seconds: z
    .int({ error: 'The ring timeout must be a whole number of seconds.' })
    .min(5, { error: 'The ring timeout must be at least 5 seconds.' })
    .max(120, { error: 'The ring timeout may be at most 120 seconds.' })
    .nullable()
    .optional(),
  team_id: positiveId('team id').nullable().optional(),
  hours: ProfileHours.nullable().optional(),
  tags: tagList,
};

/** POST /api/v1/admin/profiles. */
export const AdminProfileCreateBody = z.strictObject({
  ...profileFields,
  is_deal_whispertext: profileFields.is_deal_whispertext.default(false),
  auto_answer: profileFields.auto_answer.default(true),
  tags: tagList.default([]),
});
export type AdminProfileCreateBody = z.infer<typeof AdminProfileCreateBody>;

/** PATCH /api/v1/admin/profiles/{id}: the fields to change (`tags` replaces the list, in order). */
export const AdminProfileUpdateBody = z.strictObject({
  name: profileFields.name.optional(),
  is_deal_whispertext: profileFields.is_deal_whispertext.optional(),
  auto_answer: profileFields.auto_answer.optional(),
  ring_timeout_seconds: profileFields.ring_timeout_seconds,
  team_id: profileFields.team_id,
  hours: profileFields.hours,
  tags: tagList.optional(),
});
export type AdminProfileUpdateBody = z.infer<typeof AdminProfileUpdateBody>;

// ---------------------------------------------------------------------------------------------
// Caller numbers

export const AdminCallerNumberSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  /** E.164. */
  phone_number: z.string(),
  phone_number_formatted: z.string(),
  profile_id: z.int().nullable(),
  created_at: z.string(),
});
export type AdminCallerNumber = z.infer<typeof AdminCallerNumberSchema>;
export const AdminCallerNumberListSchema = listOf(AdminCallerNumberSchema);
export type AdminCallerNumberList = z.infer<typeof AdminCallerNumberListSchema>;
export const AdminCallerNumberCreatedSchema = createdOf(AdminCallerNumberSchema);

/** POST /api/v1/admin/caller-numbers. */
export const AdminCallerNumberBody = z.strictObject({
  name: trimmed('name', 100),
  phone_number: phoneNumberField('phone number'),
  profile_id: positiveId('profile id').nullable().optional(),
});
export type AdminCallerNumberBody = z.infer<typeof AdminCallerNumberBody>;

/** PATCH /api/v1/admin/caller-numbers/{id}. */
export const AdminCallerNumberUpdateBody = AdminCallerNumberBody.partial();
export type AdminCallerNumberUpdateBody = z.infer<typeof AdminCallerNumberUpdateBody>;

/** GET /api/v1/admin/caller-numbers/available: the numbers the telephony account holds. */
export const AdminAvailableNumbersSchema = z.strictObject({
  data: z.array(
    z.strictObject({
      phone_number: z.string(),
      phone_number_formatted: z.string(),
      friendly_name: z.string().nullable(),
      /** Already one of the account's caller numbers. */
      in_use: z.boolean(),
    }),
  ),
  /** Whether the list is the provider's (Twilio) or any number is allowed (embedded). */
  provider_checked: z.boolean(),
});
export type AdminAvailableNumbers = z.infer<typeof AdminAvailableNumbersSchema>;

// ---------------------------------------------------------------------------------------------
// API keys

export const AdminApiKeySchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  profile_id: z.int().nullable(),
  /** The key's first characters, to tell keys apart (the key itself is shown once). */
  prefix: z.string().nullable(),
  created_at: z.string(),
});
export type AdminApiKey = z.infer<typeof AdminApiKeySchema>;
export const AdminApiKeyListSchema = listOf(AdminApiKeySchema);
export type AdminApiKeyList = z.infer<typeof AdminApiKeyListSchema>;
/** The POST's answer: the key, this once. */
export const AdminApiKeyCreatedSchema = createdOf(
  z.strictObject({ ...AdminApiKeySchema.shape, key: z.string() }),
);
export type AdminApiKeyCreated = z.infer<typeof AdminApiKeyCreatedSchema>;

/** POST /api/v1/admin/api-keys. */
export const AdminApiKeyBody = z.strictObject({
  name: trimmed('name', 100),
  profile_id: positiveId('profile id').nullable().optional(),
});
export type AdminApiKeyBody = z.infer<typeof AdminApiKeyBody>;

// ---------------------------------------------------------------------------------------------
// The account

/** A dialling limit: a whole number from 1 to `max`, with the sentence naming it. */
const dialLimit = (name: string, max: number) =>
  z
    .int({ error: `The ${name} must be a whole number.` })
    .min(1, { error: `The ${name} must be at least 1.` })
    .max(max, { error: `The ${name} may be at most ${max.toLocaleString('en-US')}.` });

/** The toll-fraud guard's settings (issue 36) as the admin edits them. */
export const AdminDialPolicy = z.strictObject({
  call_countries: z
    .array(CountryCode, { error: 'The call countries must be a list of country codes.' })
    .min(1, { error: 'The call countries must name at least one country agents may call.' })
    .max(250, { error: 'The call countries list is too long.' })
    .transform((list) => [...new Set(list)]),
  calls_per_minute_per_agent: dialLimit('calls per minute per agent', 1000),
  calls_per_minute_per_account: dialLimit('calls per minute per account', 100_000),
  sms_per_hour_per_agent: dialLimit('texts per hour per agent', 10_000),
  // At most the server's policy limit (`DIAL_LIMIT_MAX`): a larger value would be read there as
  // unreadable, and applied as its strictest (1).
  sms_per_hour_per_account: dialLimit('texts per hour per account', 100_000),
});
export type AdminDialPolicy = z.infer<typeof AdminDialPolicy>;

export const AdminSingleSignOn = z.strictObject({
  enabled: z.boolean(),
  /** Only e-mail addresses of this domain may sign in; null: any. */
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, {
      error: 'The domain must be a domain such as example.com.',
    })
    .nullable(),
  /** Password login is refused: single sign-on only. */
  sso_only: z.boolean(),
});
export type AdminSingleSignOn = z.infer<typeof AdminSingleSignOn>;

/** GET /api/v1/admin/account. */
export const AdminAccountSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  country_code: z.string(),
  time_zone: z.string(),
  /** The account behaviours the spec names by account id (6671, 9920, 9420, 781), by name. */
  settings: AccountSettingsSchema,
  single_sign_on: AdminSingleSignOn,
  /**
   * The toll-fraud guard: the effective values (defaults filled in, each within the operator's
   * ceiling); the countries may be none when the account's are all beyond the ceiling.
   */
  dial_policy: AdminDialPolicy.extend({ call_countries: z.array(z.string()) }),
  /** A session unused this long ends (minutes); null: the server's SESSION_IDLE_MINUTES. */
  session_idle_minutes: z.int().nullable(),
  /** The floor's and reports' service level: the share of calls answered within this (s). */
  service_level_seconds: z.int(),
  /** CRM ids a new user gets unless the admin sets their own. */
  crm_defaults: z.strictObject({
    hubspot_id: z.string().nullable(),
    salesforce_domain: z.string().nullable(),
    activecampaign_domain: z.string().nullable(),
  }),
});
export type AdminAccount = z.infer<typeof AdminAccountSchema>;
export const AdminAccountResponseSchema = z.strictObject({ data: AdminAccountSchema });

/** PATCH /api/v1/admin/account: the fields to change. */
export const AdminAccountUpdateBody = z.strictObject({
  name: trimmed('name', 100).optional(),
  country_code: CountryCode.optional(),
  time_zone: TimeZone.optional(),
  settings: AccountSettingsSchema.optional(),
  single_sign_on: AdminSingleSignOn.partial().optional(),
  dial_policy: AdminDialPolicy.partial().optional(),
  session_idle_minutes: z
    .int({ error: 'The session idle minutes must be a whole number.' })
    .min(5, { error: 'The session idle minutes must be at least 5.' })
    .max(7 * 24 * 60, { error: 'The session idle minutes may be at most 10,080 (a week).' })
    .nullable()
    .optional(),
  service_level_seconds: z
    .int({ error: 'The service level seconds must be a whole number.' })
    .min(1, { error: 'The service level seconds must be at least 1.' })
    .max(3600, { error: 'The service level seconds may be at most 3,600 (an hour).' })
    .optional(),
  crm_defaults: AdminIntegrations.optional(),
});
export type AdminAccountUpdateBody = z.infer<typeof AdminAccountUpdateBody>;

// ---------------------------------------------------------------------------------------------
// Audit

/** What an admin write did, for the audit log. */
export const AdminAuditEntrySchema = z.strictObject({
  id: z.int(),
  at: z.string(),
  /** Who did it; null for the command line (`npm run admin`) and the demo seed. */
  actor: z.strictObject({ id: z.int(), full_name: z.string() }).nullable(),
  /** Such as `user.create`, `user.update`, `team.delete`, `api_key.create`. */
  action: z.string(),
  /** What it was done to, such as `user:12`. */
  target: z.string(),
  /** The fields changed: `{ field: [before, after] }` (secrets as `[redacted]`). */
  changes: z.record(z.string(), z.unknown()),
});
export type AdminAuditEntry = z.infer<typeof AdminAuditEntrySchema>;
export const AdminAuditListSchema = listOf(AdminAuditEntrySchema);
export type AdminAuditList = z.infer<typeof AdminAuditListSchema>;

/** GET /api/v1/admin/audit. */
export const AdminAuditQuery = AdminListQuery;
