import type { AgentStatusEvent, RealtimeSettings } from '@leadline/contracts';
import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { demoAgent, demoRealtime, demoUser } from '../test-support/fake-api';
import { QUERY_KEYS, createQueryClient } from '../api/queries';
import { FLOOR_EVENTS_WINDOW_MS } from '../constants';
import { createFakePlatform } from '../test-support/fake-platform';
import { FakeRealtime } from '../test-support/fake-realtime';
import { RealtimeFeed, type RealtimeFeedState } from './realtime-feed';

const SETTINGS: RealtimeSettings = demoRealtime(demoUser());
const AGENTS_KEY = [...QUERY_KEYS.agents, { page: 1, status: 'all', search: '', teamId: null }];

function feedUnderTest() {
  const port = new FakeRealtime();
  const queryClient = createQueryClient();
  const platform = createFakePlatform(() => Promise.reject(new Error('no fetch here')));
  const feed = new RealtimeFeed({
    port,
    queryClient,
    log: platform.log,
    timers: platform.timers,
  });
  const states: RealtimeFeedState[] = [];
  feed.subscribe(() => states.push(feed.getSnapshot()));
  return { port, queryClient, platform, feed, states };
}

describe('RealtimeFeed', () => {
  it('is stopped until started, then follows its connection', () => {
    const { port, feed, states } = feedUnderTest();
    expect(feed.getSnapshot()).toBe('stopped');
    feed.start(SETTINGS);
    expect(port.connections).toHaveLength(1);
    expect(port.current.settings).toBe(SETTINGS);
    port.current.setState('connected');
    port.current.setState('unavailable');
    port.current.setState('connected');
    expect(states).toEqual(['connecting', 'connected', 'unavailable', 'connected']);
  });

  it('closes the connection when stopped, and hears nothing from it afterwards', () => {
    const { port, feed } = feedUnderTest();
    feed.start(SETTINGS);
    const first = port.current;
    first.setState('connected');
    feed.stop();
    expect(first.closed).toBe(true);
    expect(feed.getSnapshot()).toBe('stopped');
  });

  it('replaces an earlier connection when started again, ignoring the old one', () => {
    const { port, feed } = feedUnderTest();
    feed.start(SETTINGS);
    const first = port.connections[0]!;
    feed.start(SETTINGS);
    expect(first.closed).toBe(true);
    expect(port.connections).toHaveLength(2);
    port.connections[1]!.setState('connected');
    expect(feed.getSnapshot()).toBe('connected');
  });

  it('stays stopped, and says so in the log, when the server sent no settings', () => {
    const { port, feed, platform } = feedUnderTest();
    feed.start(null);
    expect(port.connections).toEqual([]);
    expect(feed.getSnapshot()).toBe('stopped');
    expect(platform.logs.map((l) => l.message)).toContain(
      'Realtime: the server sent no settings; agent lists are polled',
    );
  });

  it('reads the user and the lists once more when the account channel is (re)subscribed: events published before were missed', () => {
    const { port, feed, queryClient } = feedUnderTest();
    const invalidated = () =>
      [QUERY_KEYS.user, AGENTS_KEY, QUERY_KEYS.teams].map(
        (key) => queryClient.getQueryState(key)?.isInvalidated,
      );
    const fresh = () => {
      queryClient.setQueryData(QUERY_KEYS.user, demoUser());
      queryClient.setQueryData(AGENTS_KEY, { data: [], meta: {} });
      queryClient.setQueryData(QUERY_KEYS.teams, []);
    };
    fresh();
    feed.start(SETTINGS);
    // Connected is not enough: the channel's subscription is asked for after it.
    port.current.setState('connected');
    expect(invalidated()).toEqual([false, false, false]);
    port.current.subscriptionSucceeded();
    expect(invalidated()).toEqual([true, true, true]);
    // After a reconnect pusher-js subscribes again: read again.
    fresh();
    port.current.setState('unavailable');
    port.current.setState('connected');
    port.current.subscriptionSucceeded();
    expect(invalidated()).toEqual([true, true, true]);
  });

  it('puts agent-status events into the query cache', () => {
    const { port, feed, queryClient } = feedUnderTest();
    queryClient.setQueryData(AGENTS_KEY, {
      data: [demoAgent(11, 'Sam Lee')],
      meta: { current_page: 1, last_page: 1, per_page: 10, total: 1 },
    });
    feed.start(SETTINGS);
    port.current.publishAgentStatus({
      user_id: 11,
      status: 'on_call',
      is_available: true,
      at: '2026-01-06T09:00:00.000Z',
    });
    expect(
      queryClient.getQueryData<{ data: { status: string }[] }>(AGENTS_KEY)?.data[0]?.status,
    ).toBe('on_call');
  });

  describe('the floor', () => {
    const AWAY: AgentStatusEvent = {
      user_id: 11,
      status: 'away',
      is_available: false,
      at: '2026-01-06T09:00:00.000Z',
    };

    /** A feed whose floor is shown (observed), counting its reads. */
    async function withFloorShown() {
      const under = feedUnderTest();
      let reads = 0;
      const observer = new QueryObserver(under.queryClient, {
        queryKey: QUERY_KEYS.floor,
        queryFn: () => Promise.resolve({ read: ++reads }),
        staleTime: 0,
      });
      const unsubscribe = observer.subscribe(() => undefined);
      await vi.waitFor(() => expect(observer.getCurrentResult().data).toEqual({ read: 1 }));
      under.feed.start(SETTINGS);
      under.port.current.setState('connected');
      return { ...under, reads: () => reads, observer, unsubscribe };
    }

    it('is read again once for a burst of floor-changed and agent-status events, a window after the first', async () => {
      const { port, platform, reads, observer, unsubscribe } = await withFloorShown();
      port.current.publishFloorChanged({ call_id: 7, reason: 'ringing', at: AWAY.at });
      port.current.publishAgentStatus(AWAY);
      platform.clock.tick(FLOOR_EVENTS_WINDOW_MS - 1);
      port.current.publishFloorChanged({ call_id: 7, reason: 'answered', at: AWAY.at });
      expect(reads()).toBe(1);
      platform.clock.tick(1);
      await vi.waitFor(() => expect(observer.getCurrentResult().data).toEqual({ read: 2 }));
      // Nothing came during the read: no more reads.
      platform.clock.tick(10 * FLOOR_EVENTS_WINDOW_MS);
      expect(reads()).toBe(2);

      // A later change: read again.
      port.current.publishFloorChanged({ call_id: 7, reason: 'ended', at: AWAY.at });
      platform.clock.tick(FLOOR_EVENTS_WINDOW_MS);
      await vi.waitFor(() => expect(observer.getCurrentResult().data).toEqual({ read: 3 }));
      unsubscribe();
    });

    it('is not read once the feed stopped (signed out)', async () => {
      const { port, platform, feed, reads, unsubscribe } = await withFloorShown();
      port.current.publishFloorChanged({ call_id: 7, reason: 'queued', at: AWAY.at });
      feed.stop();
      platform.clock.tick(10 * FLOOR_EVENTS_WINDOW_MS);
      expect(reads()).toBe(1);
      unsubscribe();
    });
  });
});
