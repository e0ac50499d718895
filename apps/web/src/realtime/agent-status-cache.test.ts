import type { AgentRow, AgentStatusEvent, Paged, User } from '@leadline/contracts';
import { describe, expect, it } from 'vitest';
import { demoAgent, demoUser } from '../test-support/fake-api';
import { QUERY_KEYS, createQueryClient } from '../api/queries';
import { applyAgentStatus, setUserStatus } from './agent-status-cache';

const page = (rows: AgentRow[], current = 1): Paged<AgentRow> => ({
  data: rows,
  meta: { current_page: current, last_page: 2, per_page: 10, total: 12 },
});

const ALL_PAGE_1 = [...QUERY_KEYS.agents, { page: 1, status: 'all', search: '', teamId: null }];
const AVAILABLE = [
  ...QUERY_KEYS.agents,
  { page: 1, status: 'available', search: '', teamId: null },
];
const ALL_PAGE_2 = [...QUERY_KEYS.agents, { page: 2, status: 'all', search: '', teamId: null }];

function cacheWithLists() {
  const client = createQueryClient();
  client.setQueryData(ALL_PAGE_1, page([demoAgent(11, 'Sam Lee'), demoAgent(12, 'Ira Gold')]));
  client.setQueryData(AVAILABLE, page([demoAgent(11, 'Sam Lee')]));
  client.setQueryData(ALL_PAGE_2, page([demoAgent(13, 'Noor Haddad')], 2));
  client.setQueryData(QUERY_KEYS.teams, [{ id: 1, name: 'Sales', is_available: true }]);
  client.setQueryData<User | null>(QUERY_KEYS.user, demoUser({ id: 7 }));
  return client;
}

const samAway: AgentStatusEvent = {
  user_id: 11,
  status: 'away',
  is_available: false,
  at: '2026-01-06T09:00:00.000Z',
};

const rowOf = (client: ReturnType<typeof createQueryClient>, key: unknown[], id: number) =>
  client.getQueryData<Paged<AgentRow>>(key)?.data.find((row) => row.id === id);

describe('an agent-status event in the query cache', () => {
  it("sets the agent's status and choice in every cached agents page that lists them", () => {
    const client = cacheWithLists();
    const untouched = client.getQueryData(ALL_PAGE_2);
    applyAgentStatus(client, samAway);
    expect(rowOf(client, ALL_PAGE_1, 11)).toEqual({
      ...demoAgent(11, 'Sam Lee'),
      status: 'away',
      is_available: false,
    });
    expect(rowOf(client, AVAILABLE, 11)).toMatchObject({ status: 'away', is_available: false });
    // Other rows and pages stay as they were.
    expect(rowOf(client, ALL_PAGE_1, 12)).toEqual(demoAgent(12, 'Ira Gold'));
    expect(client.getQueryData(ALL_PAGE_2)).toBe(untouched);
  });

  it('marks the agent and team lists for reading again, not the user (nor the floor: the feed reads it)', () => {
    const client = cacheWithLists();
    client.setQueryData(QUERY_KEYS.floor, { agents: [] });
    applyAgentStatus(client, samAway);
    for (const key of [ALL_PAGE_1, AVAILABLE, ALL_PAGE_2, QUERY_KEYS.teams]) {
      expect(client.getQueryState(key)?.isInvalidated).toBe(true);
    }
    expect(client.getQueryState(QUERY_KEYS.user)?.isInvalidated).toBe(false);
    expect(client.getQueryState(QUERY_KEYS.floor)?.isInvalidated).toBe(false);
  });

  it('leaves the signed-in user alone when it is about someone else', () => {
    const client = cacheWithLists();
    const before = client.getQueryData(QUERY_KEYS.user);
    applyAgentStatus(client, samAway);
    expect(client.getQueryData(QUERY_KEYS.user)).toBe(before);
  });

  it("sets the signed-in user's status and choice when it is about them", () => {
    const client = cacheWithLists();
    applyAgentStatus(client, { ...samAway, user_id: 7, status: 'wrap_up', is_available: true });
    expect(client.getQueryData<User>(QUERY_KEYS.user)).toEqual({
      ...demoUser({ id: 7 }),
      status: 'wrap_up',
      is_available: true,
    });
  });

  it('changes nothing without a user or lists (signed out, nothing open)', () => {
    const client = createQueryClient();
    client.setQueryData<User | null>(QUERY_KEYS.user, null);
    applyAgentStatus(client, samAway);
    expect(client.getQueryData(QUERY_KEYS.user)).toBeNull();
    expect(client.getQueriesData({ queryKey: QUERY_KEYS.agents })).toEqual([]);
  });
});

describe('setUserStatus', () => {
  it('puts a status answer into the signed-in user', () => {
    const client = cacheWithLists();
    setUserStatus(client, { status: 'on_call', is_available: false });
    expect(client.getQueryData<User>(QUERY_KEYS.user)).toMatchObject({
      id: 7,
      status: 'on_call',
      is_available: false,
    });
  });
});
