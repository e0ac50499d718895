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

/** An agent as the transfer and conference panels list it (spec section 3). */
export interface AgentRow {
  id: number;
  full_name: string;
  /** The call the agent is on (the id listen/whisper/barge take), or null. */
  on_call_id: number | null;
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
