/**
 * What an `agent-status` event changes in the console's server state (issue 18): the agent's row
 * in every cached page of the agent lists, and the signed-in user when it is about them; then the
 * agent and team lists are read again (an open Transfer or Conference list filters by status, and
 * a team's availability follows its members'). The floor is read again too, by the realtime feed
 * (`realtime-feed.ts`), once for a burst of events.
 */
import type { AgentRow, AgentStatusEvent, Paged, User } from '@leadline/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { QUERY_KEYS } from '../api/queries';

/** The fields an agent's status change sets. */
type StatusFields = Pick<AgentRow, 'status' | 'is_available'>;

/** See the module comment. */
export function applyAgentStatus(client: QueryClient, event: AgentStatusEvent): void {
  const fields: StatusFields = { status: event.status, is_available: event.is_available };
  client.setQueriesData<Paged<AgentRow>>({ queryKey: QUERY_KEYS.agents }, (page) =>
    page ? patchPage(page, event.user_id, fields) : page,
  );
  setUserStatus(client, fields, event.user_id);
  void client.invalidateQueries({ queryKey: QUERY_KEYS.agents });
  void client.invalidateQueries({ queryKey: QUERY_KEYS.teams });
}

/**
 * Puts `fields` into the signed-in user's cached query (the answer of `PUT /api/v1/user/status`,
 * or an event about them); with `userId`, only when that is the signed-in user.
 */
export function setUserStatus(client: QueryClient, fields: StatusFields, userId?: number): void {
  client.setQueryData<User | null>(QUERY_KEYS.user, (user) =>
    user && (userId === undefined || user.id === userId)
      ? { ...user, status: fields.status, is_available: fields.is_available }
      : user,
  );
}

function patchPage(page: Paged<AgentRow>, userId: number, fields: StatusFields): Paged<AgentRow> {
  if (!page.data.some((row) => row.id === userId)) return page;
  return {
    ...page,
    data: page.data.map((row) =>
      row.id === userId
        ? { ...row, status: fields.status, is_available: fields.is_available }
        : row,
    ),
  };
}
