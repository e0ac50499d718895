import { LOGIN_FAILED_MESSAGE } from '@leadline/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../platform/platform';
import { ApiClient, ApiError, NetworkError, SessionExpiredError } from './api-client';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';

const NOW_MS = 1_736_154_000_000;

function client(fetch: FetchLike) {
  let reloads = 0;
  const api = new ApiClient({ fetch, reload: () => (reloads += 1), now: () => NOW_MS });
  return { api, reloads: () => reloads };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('ApiClient', () => {
  it('loads no user without a session, and does not reload', async () => {
    const server = new FakeApi();
    const { api, reloads } = client(server.fetch);
    expect(await api.getUser()).toBeNull();
    expect(reloads()).toBe(0);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'GET', path: '/api/v1/user', credentials: 'include' });
    expect(request?.query.get('time')).toBe(String(NOW_MS));
  });

  it('sends the CSRF token from the user fetch on every mutating request', async () => {
    const server = new FakeApi().addCallUser(42, demoCallUser()).signIn();
    const { api } = client(server.fetch);
    expect(await api.getUser()).toEqual(demoUser());
    await api.setDisposition(9001, 'contacted');
    await api.addNote({ content: 'Call back', call_id: 9001 });
    await api.rejectCall(9001);
    await api.getCallUser(42);
    for (const request of server.requests) expect(request.credentials).toBe('include');
    const mutating = server.requests.filter((r) => r.method !== 'GET');
    expect(mutating.map((r) => r.path)).toEqual([
      '/apps/webrtc/9001/disposition',
      '/api/v1/notes',
      '/apps/webrtc/9001/reject',
    ]);
    for (const request of mutating) expect(request.headers.get('X-CSRF-TOKEN')).toBe('csrf-dana');
    expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition')[0]?.body).toEqual({
      status: 'contacted',
    });
    expect(server.requestsTo('POST', '/api/v1/notes')[0]?.body).toEqual({
      content: 'Call back',
      call_id: 9001,
    });
  });

  it('shows the server message of a refused login', async () => {
    const server = new FakeApi();
    const { api } = client(server.fetch);
    const error = await rejection(api.login({ email: 'dana@example.com', password: 'wrong' }));
    expect(error).toBeInstanceOf(ApiError);
    // The server refuses a login with 401 (not 200) and `{ success: false, error }`.
    expect(error).toMatchObject({ message: LOGIN_FAILED_MESSAGE, status: 401, code: 9101 });
  });

  it('shows the server message of a validation error ({ error })', async () => {
    const server = new FakeApi();
    const { api } = client(server.fetch);
    const error = await rejection(api.login({ email: 'not-an-email', password: 'x' }));
    expect(error).toMatchObject({
      message: 'The email must be a valid email address.',
      status: 422,
    });
  });

  it('accepts a good login', async () => {
    const server = new FakeApi();
    const { api } = client(server.fetch);
    await api.login({ email: 'dana@example.com', password: 'correct horse' });
    expect(await api.getUser()).toMatchObject({ email: 'dana@example.com' });
  });

  it('reloads the page on a 401 once the user was loaded', async () => {
    const server = new FakeApi().addCallUser(42, demoCallUser()).signIn();
    const { api, reloads } = client(server.fetch);
    await api.getUser();
    server.expireSession();
    expect(await rejection(api.getCallUser(42))).toBeInstanceOf(SessionExpiredError);
    expect(reloads()).toBe(1);
  });

  it('does not reload on a 401 before the user was loaded, or after logout', async () => {
    const server = new FakeApi();
    const { api, reloads } = client(server.fetch);
    expect(await rejection(api.getToken(true))).toMatchObject({ status: 401 });
    server.signIn();
    await api.getUser();
    await api.logout();
    expect(await rejection(api.getToken(false))).toMatchObject({ status: 401 });
    expect(reloads()).toBe(0);
  });

  it('logs out everywhere with the CSRF token, and does not reload on a 401 afterwards', async () => {
    const server = new FakeApi().signIn();
    const { api, reloads } = client(server.fetch);
    await api.getUser();
    await api.logout({ everywhere: true });
    const [request] = server.requestsTo('POST', '/api/v1/user/logout-everywhere');
    expect(request?.headers.get('X-CSRF-TOKEN')).toEqual(expect.any(String));
    expect(server.requestsTo('POST', '/api/v1/user/logout')).toHaveLength(0);
    expect(await rejection(api.getToken(false))).toMatchObject({ status: 401 });
    expect(reloads()).toBe(0);
  });

  it('adds the time query to the first token fetch only', async () => {
    const server = new FakeApi().signIn();
    const { api } = client(server.fetch);
    await api.getUser();
    expect(await api.getToken(true)).toBe('fake-token-1');
    expect(await api.getToken(false)).toBe('fake-token-2');
    const tokens = server.requestsTo('GET', '/api/v1/twilio/token2');
    expect(tokens.map((r) => r.query.get('time'))).toEqual([String(NOW_MS), null]);
  });

  it('wraps a failed fetch in a NetworkError', async () => {
    const { api } = client(() => Promise.reject(new TypeError('Failed to fetch')));
    const error = await rejection(api.getUser());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 9103, cause: new TypeError('Failed to fetch') });
  });

  it('explains a failure without a JSON error', async () => {
    const { api } = client(() =>
      Promise.resolve(new Response('<h1>Bad gateway</h1>', { status: 502 })),
    );
    expect(await rejection(api.getToken(true))).toMatchObject({
      status: 502,
      message: 'The server could not complete the request (HTTP 502).',
    });
  });

  it('treats { success: false } on the user fetch as no session', async () => {
    const { api } = client(() =>
      Promise.resolve(Response.json({ success: false, error: 'Unauthenticated.' })),
    );
    expect(await api.getUser()).toBeNull();
  });

  it("keeps the user fetch's realtime settings (none before it, or when the server sends none)", async () => {
    const server = new FakeApi().signIn();
    const { api } = client(server.fetch);
    expect(api.realtime).toBeNull();
    await api.getUser();
    expect(api.realtime?.channels).toEqual({
      user: 'presence-user-7',
      account: 'private-account-100',
    });
    expect(api.realtime?.options.channelAuthorization.endpoint).toBe('/api/v1/pusher/auth');

    const { api: older } = client(() =>
      Promise.resolve(Response.json({ success: true, user: demoUser(), csrf_token: 'csrf-dana' })),
    );
    await older.getUser();
    expect(older.realtime).toBeNull();
  });

  it('sets the status with PUT /api/v1/user/status and answers where the agent is now', async () => {
    const server = new FakeApi().signIn();
    const { api } = client(server.fetch);
    await api.getUser();
    expect(await api.setStatus('away')).toMatchObject({ status: 'away', is_available: false });
    const [request] = server.requestsTo('PUT', '/api/v1/user/status');
    expect(request?.body).toEqual({ status: 'away' });
    expect(request?.headers.get('X-CSRF-TOKEN')).toBe('csrf-dana');
    server.refuseNext('PUT', '/api/v1/user/status', 422, 'The status must be available or away.');
    expect(await rejection(api.setStatus('available'))).toMatchObject({
      status: 422,
      message: 'The status must be available or away.',
    });
  });

  it("retries a lead with POST /api/v1/calls/twilio and answers whom the server rings; a refusal throws the server's text", async () => {
    const server = new FakeApi([
      { user: demoUser({ permissions: ['app-retry'] }), password: 'pw' },
    ]).signIn();
    const { api } = client(server.fetch);
    await api.getUser();
    const body = { fname: 'Maya', lname: 'Okafor', phone_number: '+15550100042' };
    expect(await api.retryLead(body)).toEqual({ agentId: 7 });
    expect(server.requestsTo('POST', '/api/v1/calls/twilio')[0]?.body).toEqual(body);
    server.refuseNext('POST', '/api/v1/calls/twilio', 200, 'All agents are busy.');
    expect(await rejection(api.retryLead(body))).toMatchObject({
      message: 'All agents are busy.',
    });
    // Another agent rung; an answer that names nobody.
    const answering = (payload: unknown) => client(() => Promise.resolve(Response.json(payload)));
    const other = answering({ success: true, call: { id: 3, status: 'ringing', agent_id: 12 } });
    expect(await other.api.retryLead(body)).toEqual({ agentId: 12 });
    expect(await answering({ success: true }).api.retryLead(body)).toEqual({ agentId: null });
  });
});

// Spec §9: "HTTP client timeout none (0)": a request waits for its answer however long it
// takes; nothing in the client gives up on it (the browser's own limits aside).
describe('ApiClient: no HTTP client timeout (spec §9)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends no timeout signal and takes an answer that comes an hour late', async () => {
    vi.useFakeTimers();
    const asked: RequestInit[] = [];
    let answer!: (response: Response) => void;
    const fetch: FetchLike = (_url, init) => {
      asked.push(init);
      return new Promise<Response>((resolve) => (answer = resolve));
    };
    const { api } = client(fetch);
    let settled: unknown = 'pending';
    const teams = api.getTeams().then(
      (rows) => (settled = rows),
      (error: unknown) => (settled = error),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]?.signal).toBeUndefined();
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    expect(settled).toBe('pending');
    answer(
      new Response(JSON.stringify({ data: [{ id: 4, name: 'Sales', is_available: true }] }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      }),
    );
    await teams;
    expect(settled).toEqual([{ id: 4, name: 'Sales', is_available: true }]);
  });
});
