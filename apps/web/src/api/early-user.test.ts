import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../platform/platform';
import { ApiClient, NetworkError } from './api-client';
import { servingEarlyUser, startUserCheck } from './early-user';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';

const NOW_MS = 1_736_154_000_000;

/** A fetch that records what it was asked and answers from `server`. */
function recording(server: FakeApi) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch: FetchLike = (url, init) => {
    calls.push({ url, init });
    return server.fetch(url, init);
  };
  return { fetch, calls };
}

describe('the early session check', () => {
  it('sends the request the console sends for the user', async () => {
    const early = recording(new FakeApi());
    await startUserCheck(early.fetch, () => NOW_MS);
    const console = recording(new FakeApi());
    await new ApiClient({ fetch: console.fetch, reload: () => {}, now: () => NOW_MS }).getUser();
    expect(early.calls).toHaveLength(1);
    expect(early.calls).toEqual(console.calls);
  });

  it("answers the console's first user fetch, so the server sees one request", async () => {
    const server = new FakeApi().addCallUser(42, demoCallUser()).signIn();
    const early = startUserCheck(server.fetch, () => NOW_MS);
    const api = new ApiClient({
      fetch: servingEarlyUser(server.fetch, early),
      reload: () => {},
      now: () => NOW_MS + 50,
    });
    expect(await api.getUser()).toEqual(demoUser());
    expect(server.requestsTo('GET', '/api/v1/user')).toHaveLength(1);
    expect(server.requests[0]?.query.get('time')).toBe(String(NOW_MS));
    // The CSRF token came with the early response: mutations carry it.
    await api.rejectCall(9001);
    expect(
      server.requestsTo('POST', '/apps/webrtc/9001/reject')[0]?.headers.get('X-CSRF-TOKEN'),
    ).toBe('csrf-dana');
  });

  it('answers once: later user fetches and other requests go to the network', async () => {
    const server = new FakeApi().signIn();
    const early = startUserCheck(server.fetch, () => NOW_MS);
    const page = recording(server);
    const fetch = servingEarlyUser(page.fetch, early);
    const api = new ApiClient({ fetch, reload: () => {}, now: () => NOW_MS + 50 });
    await api.getUser();
    await api.loginOptions();
    await api.getUser();
    expect(page.calls.map((call) => call.url)).toEqual([
      '/api/v1/login/options',
      `/api/v1/user?time=${NOW_MS + 50}`,
    ]);
    expect(server.requestsTo('GET', '/api/v1/user')).toHaveLength(2);
  });

  it('is not used for another method or path that only starts alike', async () => {
    const server = new FakeApi();
    const early = startUserCheck(server.fetch, () => NOW_MS);
    const page = recording(server);
    const fetch = servingEarlyUser(page.fetch, early);
    await fetch('/api/v1/user/logout', { method: 'POST' });
    await fetch('/api/v1/user?time=1', { method: 'POST' });
    expect(page.calls.map((call) => call.url)).toEqual([
      '/api/v1/user/logout',
      '/api/v1/user?time=1',
    ]);
    // Still kept for the first GET.
    await fetch('/api/v1/user?time=2', { method: 'GET' });
    expect(page.calls).toHaveLength(2);
  });

  it('hands a failed early check to the console as its network error, then retries for real', async () => {
    const server = new FakeApi().signIn();
    const offline: FetchLike = () => Promise.reject(new TypeError('Failed to fetch'));
    const early = startUserCheck(offline, () => NOW_MS);
    const api = new ApiClient({
      fetch: servingEarlyUser(server.fetch, early),
      reload: () => {},
      now: () => NOW_MS,
    });
    await expect(api.getUser()).rejects.toBeInstanceOf(NetworkError);
    expect(server.requests).toHaveLength(0);
    expect(await api.getUser()).toEqual(demoUser());
  });
});
