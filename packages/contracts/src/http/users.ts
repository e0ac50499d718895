import { z } from 'zod';
import { TimeQuery } from './common';
import { PageField } from './paging';

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

/**
 * Where an agent is, as routing sees it: offline (no device registered), on a call (rung or
 * talking), wrapping up after a call, away (chose not to take calls), or available.
 */
export const PRESENCE_STATUSES = ['available', 'away', 'on_call', 'wrap_up', 'offline'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];

/** PUT /api/v1/user/status: the agent takes calls (Available) or not (Away). */
export const UserStatusBody = z.object({
  status: z.enum(['available', 'away'], { error: 'The status must be available or away.' }),
});
export type UserStatusBody = z.infer<typeof UserStatusBody>;

/** Answer of PUT /api/v1/user/status and POST /api/v1/user/wrap-up/done. */
export interface UserStatusResponse {
  success: true;
  /** Where the agent is now (e.g. still `on_call` when they set Available during a call). */
  status: PresenceStatus;
  /** The agent's choice: takes calls when free. */
  is_available: boolean;
  /** While wrapping up: when it ends by itself (ISO), else null. */
  wrap_up_until: string | null;
}

/** An agent as the transfer and conference panels list it (spec section 3). */
export interface AgentRow {
  id: number;
  full_name: string;
  /** The call the agent is on (the id listen/whisper/barge take), or null. */
  on_call_id: number | null;
  /** Where the agent is now. */
  status: PresenceStatus;
  is_available: boolean;
  is_app_only: boolean;
  is_online_app: boolean;
  is_mobile: boolean;
}

/** A team as the transfer panel lists it. */
export interface TeamRow {
  id: number;
  name: string;
  /** Some member can take a transfer now. */
  is_available: boolean;
}

/** PUT /api/v1/user/settings (the Settings panel's Auto Accept toggle; needs app-autoaccept). */
export const UserSettingsBody = z.object({
  autoaccept: z.boolean({ error: 'The autoaccept field must be true or false.' }),
});
export type UserSettingsBody = z.infer<typeof UserSettingsBody>;
