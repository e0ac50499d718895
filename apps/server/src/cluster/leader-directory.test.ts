/**
 * A follower's view of the leader (issue 38, item 3): what `media_leader` says, read again on
 * its interval, on a bus message and when the leader cannot be reached; a leader that refused a
 * connection passed over until the row moves on; requests during a failover wait for the next
 * leader. The row is a fake the test changes; the clock is moved by hand.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../test-support/manual-clock';
import {
  LEADER_DOWN_MS,
  LEADER_REFRESH_MS,
  LeaderDirectory,
  MEDIA_LEADER_TOPIC,
  type KnownLeader,
} from './leader-directory';
import type { InstanceBus } from '../events/instance-bus';

const A = { url: 'http://a.test:3000', epoch: 1 };
const B = { url: 'http://b.test:3000', epoch: 2 };

function directory(initial: KnownLeader | null, allows?: (url: string) => boolean) {
  const clock = new ManualClock();
  const row = { value: initial, reads: 0 };
  const listeners = new Map<string, (payload: unknown) => void>();
  const warnings: string[] = [];
  const bus: InstanceBus = {
    instanceId: 'test',
    maxPayloadBytes: 1000,
    publish: async () => undefined,
    subscribe: (topic, listener) => {
      listeners.set(topic, listener);
      return () => listeners.delete(topic);
    },
    close: async () => undefined,
  };
  const leaders = new LeaderDirectory({
    read: async () => {
      row.reads += 1;
      return row.value;
    },
    bus,
    timers: clock,
    log: { warn: (_details, message) => warnings.push(message) },
    ...(allows ? { allows } : {}),
  });
  return { leaders, clock, row, listeners, warnings };
}

describe('LeaderDirectory', () => {
  it('names the leader of the row, and none before any led', async () => {
    const withLeader = directory(A);
    await withLeader.leaders.start();
    expect(withLeader.leaders.current()).toBe(A.url);
    expect(withLeader.leaders.epoch()).toBe(1);
    const empty = directory(null);
    await empty.leaders.start();
    expect(empty.leaders.current()).toBeNull();
    expect(empty.leaders.epoch()).toBeNull();
  });

  it('names no leader at a URL it may not relay to, says so once, and names the next allowed one', async () => {
    const { leaders, row, warnings } = directory(
      { url: 'http://169.254.169.254', epoch: 3 },
      (url) => url === B.url,
    );
    await leaders.start();
    expect(leaders.current()).toBeNull();
    expect(leaders.epoch()).toBeNull();
    await leaders.refresh();
    expect(warnings).toEqual([
      "media_leader names http://169.254.169.254, which INSTANCE_URLS does not allow: nothing is relayed to it. List every instance's INSTANCE_URL (or their network) in INSTANCE_URLS on every instance (docs/deployment.md).",
    ]);
    const waiting = leaders.next(10_000);
    row.value = B;
    await leaders.refresh();
    expect(await waiting).toBe(B.url);
  });

  it('reads the row again on its interval, not before', async () => {
    const { leaders, clock, row } = directory(A);
    await leaders.start();
    row.value = B;
    clock.advance(LEADER_REFRESH_MS - 10);
    expect(row.reads).toBe(1);
    clock.advance(10);
    expect(row.reads).toBe(2);
    await leaders.refresh();
    expect(leaders.current()).toBe(B.url);
  });

  it('reads the row again when a new leader says so on the bus', async () => {
    const { leaders, row, listeners } = directory(A);
    await leaders.start();
    row.value = B;
    listeners.get(MEDIA_LEADER_TOPIC)?.({ epoch: 2, url: B.url });
    await leaders.refresh();
    expect(leaders.current()).toBe(B.url);
  });

  it('passes over a leader that refused a connection until the row names the next one; a waiting request gets it', async () => {
    const { leaders, row } = directory(A);
    await leaders.start();
    leaders.unreachable(A.url);
    expect(leaders.current()).toBeNull();
    const waiting = leaders.next(15_000);
    // The dead leader's row is still there: it stays passed over.
    await leaders.refresh();
    expect(leaders.current()).toBeNull();
    row.value = B;
    await leaders.refresh();
    expect(await waiting).toBe(B.url);
    expect(leaders.current()).toBe(B.url);
  });

  it('a leader passed over comes back after LEADER_DOWN_MS if the row still names it', async () => {
    const { leaders, clock } = directory(A);
    await leaders.start();
    leaders.unreachable(A.url);
    clock.advance(LEADER_DOWN_MS - 1);
    expect(leaders.current()).toBeNull();
    clock.advance(1);
    expect(leaders.current()).toBe(A.url);
  });

  it('a request waiting for a leader gets null when none comes in time', async () => {
    const { leaders, clock } = directory(null);
    await leaders.start();
    const waiting = leaders.next(15_000);
    clock.advance(15_000);
    expect(await waiting).toBeNull();
  });

  it('a failure of another URL than the leader’s changes nothing', async () => {
    const { leaders } = directory(A);
    await leaders.start();
    leaders.unreachable('http://old.test:3000');
    expect(leaders.current()).toBe(A.url);
  });
});
