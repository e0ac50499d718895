/**
 * The realtime feed in React: its state, and the agent lists' fallback polling (issue 18: the
 * open lists are read again every {@link AGENT_LISTS_REFRESH_MS} while the feed is not connected,
 * and not at all once it is).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { QUERY_KEYS } from '../api/queries';
import { AGENT_LISTS_REFRESH_MS } from '../constants';
import { useServices } from '../use-services';
import type { RealtimeFeedState } from './realtime-feed';

/** The realtime feed's state, re-rendering on change. */
export function useRealtimeState(): RealtimeFeedState {
  const { realtime } = useServices();
  return useSyncExternalStore(realtime.subscribe, realtime.getSnapshot);
}

/** How often the agent lists are read again in `state`: null (never) once connected. */
export function agentListsRefreshMs(state: RealtimeFeedState): number | null {
  return state === 'connected' ? null : AGENT_LISTS_REFRESH_MS;
}

/**
 * Reads the agent and team lists again, on the platform's timers, every
 * {@link AGENT_LISTS_REFRESH_MS} while the caller is shown and the realtime feed is not connected.
 */
export function useAgentListsPolling(): void {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  const refreshMs = agentListsRefreshMs(useRealtimeState());
  useEffect(() => {
    if (refreshMs === null) return;
    const handle = platform.timers.setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.agents });
      void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.teams });
    }, refreshMs);
    return () => platform.timers.clearInterval(handle);
  }, [platform, queryClient, refreshMs]);
}
