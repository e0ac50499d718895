import { z } from 'zod';
import { PRESENCE_STATUSES, type PresenceStatus } from '../realtime/presence-status';
import { TimeQuery } from './common';
import { PageField, pagedSchema } from './paging';

/** Filters of the agent lists (transfer and conference panels). */
export const AGENT_STATUSES = ['online', 'all', 'available', 'on_call'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** GET /api/v1/users/paginated */
export const UsersPaginatedQuery = z.object({
  page: PageField,
  status: z
    .enum(AGENT_STATUSES, { error: 'The status must be one of online, all, available, on_call.' })
    .default('online'),
  search: z.optional(
    z.string().trim().max(100, { error: 'The search may not be longer than 100 characters.' }),
  ),
  team_id: z.optional(
    z.union([
      z.literal(''),
      z.coerce.number({ error: 'The team id must be a number.' }).int().positive(),
    ]),
  ),
  ...TimeQuery.shape,
});
export type UsersPaginatedQuery = z.infer<typeof UsersPaginatedQuery>;

// Where an agent is (`realtime/presence-status.ts`): the realtime events carry it too.
export { PRESENCE_STATUSES, type PresenceStatus };

/** PUT /api/v1/user/status: the agent takes calls (Available) or not (Away). */
export const UserStatusBody = z.object({
  status: z.enum(['available', 'away'], { error: 'The status must be available or away.' }),
});
export type UserStatusBody = z.infer<typeof UserStatusBody>;

/** Answer of PUT /api/v1/user/status and POST /api/v1/user/wrap-up/done. */
export const UserStatusResponseSchema = z.strictObject({
  success: z.literal(true),
  /** Where the agent is now (e.g. still `on_call` when they set Available during a call). */
  status: z.enum(PRESENCE_STATUSES),
  /** The agent's choice: takes calls when free. */
  is_available: z.boolean(),
  /** While wrapping up: when it ends by itself (ISO), else null. */
  wrap_up_until: z.iso.datetime().nullable(),
});
/** Answer of PUT /api/v1/user/status and POST /api/v1/user/wrap-up/done. */
export type UserStatusResponse = z.infer<typeof UserStatusResponseSchema>;

/** An agent as the transfer and conference panels list it (spec section 3). */
export const AgentRowSchema = z.strictObject({
  id: z.int(),
  full_name: z.string(),
  /** The call the agent is on (the id listen/whisper/barge take), or null. */
  on_call_id: z.int().nullable(),
  /** Where the agent is now. */
  status: z.enum(PRESENCE_STATUSES),
  is_available: z.boolean(),
  is_app_only: z.boolean(),
  is_online_app: z.boolean(),
  is_mobile: z.boolean(),
});
/** An agent as the transfer and conference panels list it (spec section 3). */
export type AgentRow = z.infer<typeof AgentRowSchema>;

/** Answer of GET /api/v1/users/paginated: one page of the account's agents. */
export const AgentsPageSchema = pagedSchema(AgentRowSchema);

/** A team as the transfer panel lists it. */
export const TeamRowSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  /** Some member can take a transfer now. */
  is_available: z.boolean(),
});
/** A team as the transfer panel lists it. */
export type TeamRow = z.infer<typeof TeamRowSchema>;

/** Answer of GET /api/v1/teams: the account's teams. */
export const TeamsResponseSchema = z.strictObject({ data: z.array(TeamRowSchema) });

/** PUT /api/v1/user/settings (the Settings panel's Auto Accept toggle; needs app-autoaccept). */
export const UserSettingsBody = z.object({
  autoaccept: z.boolean({ error: 'The autoaccept field must be true or false.' }),
});
export type UserSettingsBody = z.infer<typeof UserSettingsBody>;

/** Answer of PUT /api/v1/user/settings: Auto Accept as it is now. */
export const UserSettingsResponseSchema = z.strictObject({
  success: z.literal(true),
  autoaccept: z.boolean(),
});
/** Answer of PUT /api/v1/user/settings. */
export type UserSettingsResponse = z.infer<typeof UserSettingsResponseSchema>;
