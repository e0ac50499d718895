/**
 * Where an agent is, as routing sees it: offline (no device registered), on a call (rung or
 * talking), wrapping up after a call, away (chose not to take calls), or available.
 */
export const PRESENCE_STATUSES = ['available', 'away', 'on_call', 'wrap_up', 'offline'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];
