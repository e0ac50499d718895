/** TanStack Query keys and options for the console's server state. */
import { QueryClient, queryOptions } from '@tanstack/react-query';
import { NetworkError, type AgentsQuery, type ApiClient } from './api-client';

/** Query keys, in one place. */
export const QUERY_KEYS = {
  user: ['user'] as const,
  callUser: (callUserId: number) => ['callusers', callUserId] as const,
  callerIds: ['callerids'] as const,
  agents: ['agents'] as const,
  teams: ['teams'] as const,
  history: ['mycalls'] as const,
  floor: ['floor'] as const,
  reports: ['reports'] as const,
};

/** The summaries of a range of days (Reports). */
export function reportSummaryQuery(api: ApiClient, from: string, to: string) {
  return queryOptions({
    queryKey: [...QUERY_KEYS.reports, from, to] as const,
    queryFn: () => api.getReportSummary(from, to),
    staleTime: 0,
  });
}

/** How often the floor is read again while the realtime feed is not connected (no events). */
export const FLOOR_REFRESH_MS = 5_000;

/**
 * How often the floor is read again while the realtime feed is connected: a safety net only.
 * Events say every move of a call and agent (`floor-changed`, `agent-status`), but not all that
 * the floor shows: a user, team or profile renamed or added, the threshold changed, the day
 * rolling over, and an event lost (a publish that failed is not sent again).
 */
export const FLOOR_LIVE_REFRESH_MS = 30_000;

/**
 * The floor (supervisors and admins): read again on `floor-changed` and `agent-status` events
 * and on realtime (re)subscription (`realtime/realtime-feed.ts`), and every
 * {@link FLOOR_LIVE_REFRESH_MS} while `live` (the realtime feed is connected), else every
 * {@link FLOOR_REFRESH_MS}.
 */
export function floorQuery(api: ApiClient, live: boolean) {
  return queryOptions({
    queryKey: QUERY_KEYS.floor,
    queryFn: () => api.getFloor(),
    staleTime: 0,
    refetchInterval: live ? FLOOR_LIVE_REFRESH_MS : FLOOR_REFRESH_MS,
  });
}

/** One page of the user's call history (read again whenever the panel shows it). */
export function historyQuery(api: ApiClient, page: number) {
  return queryOptions({
    queryKey: [...QUERY_KEYS.history, page] as const,
    queryFn: () => api.getHistory(page),
    staleTime: 0,
  });
}

/** One page of the account's agents (transfer panel), by its filters. */
export function agentsQuery(api: ApiClient, query: AgentsQuery) {
  return queryOptions({
    queryKey: [...QUERY_KEYS.agents, query] as const,
    queryFn: () => api.getAgents(query),
    staleTime: 0,
  });
}

/** The account's teams (transfer panel). */
export function teamsQuery(api: ApiClient) {
  return queryOptions({
    queryKey: QUERY_KEYS.teams,
    queryFn: () => api.getTeams(),
    staleTime: 0,
  });
}

/** The longest wait between two tries to load the user while the server cannot be reached. */
export const USER_RETRY_MAX_MS = 30_000;

/**
 * The signed-in user (`null` when there is no session). Loaded once per page. When the server
 * cannot be reached (offline, a reload during an outage) it is tried again, 1 s, 2 s, 4 s… up to
 * 30 s apart, rather than showing the login view: the session is most likely fine.
 */
export function userQuery(api: ApiClient) {
  return queryOptions({
    queryKey: QUERY_KEYS.user,
    queryFn: () => api.getUser(),
    staleTime: Infinity,
    retry: (_failures, error) => error instanceof NetworkError,
    retryDelay: (failures) => Math.min(1000 * 2 ** failures, USER_RETRY_MAX_MS),
  });
}

/** A call user, always fetched fresh for an incoming call. */
export function callUserQuery(api: ApiClient, callUserId: number) {
  return queryOptions({
    queryKey: QUERY_KEYS.callUser(callUserId),
    queryFn: () => api.getCallUser(callUserId),
    staleTime: 0,
  });
}

/** How long the caller numbers are reused before the New Call panel fetches them again. */
const CALLER_IDS_FRESH_MS = 5 * 60_000;

/** The account's caller numbers (New Call's Caller ID). */
export function callerIdsQuery(api: ApiClient) {
  return queryOptions({
    queryKey: QUERY_KEYS.callerIds,
    queryFn: () => api.getCallerIds(),
    staleTime: CALLER_IDS_FRESH_MS,
  });
}

/**
 * The console's query client: no automatic retries (a 401 must not be retried, and a failed
 * disposition is shown, not repeated), no refetch on focus, and requests even while the
 * browser reports offline (the agent sees the error instead of a silent pause).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, networkMode: 'always' },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}
