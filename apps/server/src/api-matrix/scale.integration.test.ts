/**
 * The paged lists stay correct with 10,000 users and 100,000 calls in one account (their
 * speed is the benchmark's, bench/api).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { login, startTestApp, type Agent, type TestApp } from '../test-support/test-app';
import { seedScale, type ScaleSeed } from '../test-support/scale-seed';
import { AGENT_PAGE_SIZE } from '../users/agents-repo';

let t: TestApp;
let seed: ScaleSeed;
let supervisor: Agent;

beforeAll(async () => {
  t = await startTestApp();
  seed = await seedScale(t.database.db, { users: 10_000, calls: 100_000 });
  supervisor = await login(t.app, 'supervisor@example.com');
}, 300_000);
afterAll(() => t?.close());

const get = async <T>(url: string, as: Agent = supervisor): Promise<T> => {
  const res = await t.app.inject({ method: 'GET', url, headers: { cookie: as.cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
};

interface Page<T> {
  data: T[];
  meta: { current_page: number; last_page: number; total: number; per_page: number };
}
interface Agentish {
  id: number;
  full_name: string;
  on_call_id: number | null;
  is_online_app: boolean;
}

it('pages all 10,000 agents by name, with exact totals per status', async () => {
  const all = await get<Page<Agentish>>('/api/v1/users/paginated?status=all&page=1');
  // The seeded agents plus the demo's agent1, agent2 and admin (the supervisor asking is left
  // out; an admin takes calls like anyone when online).
  expect(all.meta).toEqual({
    current_page: 1,
    last_page: Math.ceil(10_003 / AGENT_PAGE_SIZE),
    total: 10_003,
    per_page: AGENT_PAGE_SIZE,
  });
  expect(all.data.map((a) => a.full_name)).toEqual(
    Array.from({ length: 10 }, (_, i) => `Agent ${String(i + 1).padStart(6, '0')}`),
  );
  const last = await get<Page<Agentish>>(
    `/api/v1/users/paginated?status=all&page=${all.meta.last_page}`,
  );
  expect(last.data.map((a) => a.full_name)).toEqual(['Alex Rivera', 'Blake Chen', 'Morgan Ellis']);
  const online = await get<Page<Agentish>>('/api/v1/users/paginated?page=7');
  expect(online.meta.total).toBe(1_000);
  expect(online.data.every((a) => a.is_online_app)).toBe(true);
  const onCall = await get<Page<Agentish>>('/api/v1/users/paginated?status=on_call');
  expect(onCall.meta.total).toBe(200);
  expect(onCall.data.every((a) => a.on_call_id !== null)).toBe(true);
  // Online (every 10th) and not on a call (every 50th, all online, is): 1,000 − 200.
  const available = await get<Page<Agentish>>('/api/v1/users/paginated?status=available');
  expect(available.meta.total).toBe(800);
  expect(available.data.every((a) => a.on_call_id === null && a.is_online_app)).toBe(true);
  const search = await get<Page<Agentish>>(
    '/api/v1/users/paginated?status=all&search=Agent%200099',
  );
  expect(search.meta.total).toBe(100); // Agent 009900 … Agent 009999
});

it('pages a busy agent’s history newest first, with exact totals', async () => {
  // The seed spreads the 100,000 calls over the 10,000 agents: 10 each, plus one live call for every 50th.
  const agent = { id: seed.firstUserId + 49 }; // the 50th seeded agent: 10 calls and a live one
  const session = await t.app.inject({
    method: 'POST',
    url: '/api/v1/user/login',
    payload: { email: 'scale50@example.com', password: 'x' },
  });
  expect(session.statusCode).toBe(401); // the seeded agents have no usable password: act as one through a session
  const { SessionStore } = await import('../auth/sessions');
  const sessions = new SessionStore(t.database.db, 60_000);
  const { cookie } = await sessions.create(agent.id);
  const as = { cookie: `leadline_session=${cookie}`, csrf: '', userId: agent.id, accountId: 1 };
  const first = await get<Page<{ id: number; created_at: string; status: string }>>(
    '/api/v1/mycalls?limit=5&page=1',
    as,
  );
  expect(first.meta).toEqual({ current_page: 1, last_page: 3, total: 11, per_page: 5 });
  expect(first.data[0]!.status).toBe('in-progress');
  const times = first.data.map((r) => Date.parse(r.created_at));
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  const third = await get<Page<{ id: number }>>('/api/v1/mycalls?limit=5&page=3', as);
  expect(third.data).toHaveLength(1);
  const beyond = await get<Page<{ id: number }>>('/api/v1/mycalls?limit=5&page=4', as);
  expect(beyond.data).toEqual([]);
});
