/**
 * The media lease's lifecycle without a database: a fake connection answers the lock and the
 * row's statements as the test says, timers are moved by hand. What it must do (issue 38, item
 * 3): follow and try again every second until the lock comes, stamp the heartbeat every 2 s only
 * once announced, and tell a leader at once that it lost the lease when its connection ends.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../test-support/manual-clock';
import { waitUntil } from '../test-support/wait-until';
import {
  LEASE_HEARTBEAT_MS,
  LEASE_RETRY_MS,
  LeaseTransitionError,
  MediaLease,
  type LeaseConnection,
} from './media-lease';

/** A connection whose lock answer the test sets; it records the statements it was sent. */
class FakeConnection extends EventEmitter implements LeaseConnection {
  lockFree = true;
  epoch = 0;
  statements: string[] = [];
  ended = false;

  async query<R extends Record<string, unknown>>(text: string) {
    this.statements.push(text.split(/\s+/).slice(0, 2).join(' '));
    if (text.includes('pg_try_advisory_lock')) {
      return { rows: [{ ok: this.lockFree }] as unknown as R[], rowCount: 1 };
    }
    if (text.startsWith('insert into media_leader')) {
      this.epoch += 1;
      return { rows: [{ epoch: this.epoch }] as unknown as R[], rowCount: 1 };
    }
    return { rows: [] as R[], rowCount: 1 };
  }

  async end() {
    this.ended = true;
  }
}

function lease(connection: FakeConnection) {
  const clock = new ManualClock();
  const events: string[] = [];
  const media = new MediaLease({
    connect: async () => connection,
    instanceId: 'me',
    timers: clock,
    log: { info: () => undefined, warn: () => undefined },
    onLeading: () => events.push('leading'),
    onLost: () => events.push('lost'),
  });
  return { media, clock, events };
}

const count = (connection: FakeConnection, statement: string) =>
  connection.statements.filter((s) => s === statement).length;

describe('MediaLease', () => {
  it('follows while the lock is taken, tries every second, and says when it leads', async () => {
    const connection = new FakeConnection();
    connection.lockFree = false;
    const { media, clock, events } = lease(connection);
    expect(await media.start()).toBe('following');
    clock.advance(LEASE_RETRY_MS - 1);
    expect(count(connection, 'select pg_try_advisory_lock($1)')).toBe(1);
    clock.advance(1);
    await waitUntil(
      () => (count(connection, 'select pg_try_advisory_lock($1)') === 2 ? true : undefined),
      'a second try',
    );
    connection.lockFree = true;
    clock.advance(LEASE_RETRY_MS);
    await waitUntil(() => (media.state === 'leading' ? true : undefined), 'the lease to lead');
    expect(events).toEqual(['leading']);
    // Not announced yet: no epoch, no heartbeat.
    expect(media.epoch).toBeNull();
    clock.advance(LEASE_HEARTBEAT_MS * 2);
    expect(count(connection, 'update media_leader')).toBe(0);
  });

  it('stamps the heartbeat every 2 s once announced', async () => {
    const connection = new FakeConnection();
    const { media, clock } = lease(connection);
    expect(await media.start()).toBe('leading');
    expect(await media.announce('http://me.test:3000')).toBe(1);
    clock.advance(LEASE_HEARTBEAT_MS - 1);
    expect(count(connection, 'update media_leader')).toBe(0);
    clock.advance(1);
    await waitUntil(
      () => (count(connection, 'update media_leader') === 1 ? true : undefined),
      'a heartbeat',
    );
  });

  it('a leader whose connection ends has lost the lease, at once', async () => {
    const connection = new FakeConnection();
    const { media, events } = lease(connection);
    await media.start();
    await media.announce('http://me.test:3000');
    connection.emit('end');
    expect(events).toEqual(['lost']);
    expect(media.state).toBe('lost');
    expect(media.epoch).toBeNull();
  });

  it('a follower whose connection ends keeps following and connects again at its next try', async () => {
    const first = new FakeConnection();
    first.lockFree = false;
    const clock = new ManualClock();
    const second = new FakeConnection();
    const connections = [first, second];
    const media = new MediaLease({
      connect: async () => connections.shift()!,
      instanceId: 'me',
      timers: clock,
      log: { info: () => undefined, warn: () => undefined },
    });
    expect(await media.start()).toBe('following');
    first.emit('error', new Error('connection reset'));
    expect(media.state).toBe('following');
    clock.advance(LEASE_RETRY_MS);
    await waitUntil(() => (media.state === 'leading' ? true : undefined), 'the lease to lead');
  });

  it('announces only while it leads', async () => {
    const connection = new FakeConnection();
    connection.lockFree = false;
    const { media } = lease(connection);
    await media.start();
    await expect(media.announce('http://me.test:3000')).rejects.toThrow(LeaseTransitionError);
  });

  it('closing ends its connection; a closed lease stays closed', async () => {
    const connection = new FakeConnection();
    const { media, clock } = lease(connection);
    await media.start();
    await media.close();
    expect(connection.ended).toBe(true);
    expect(media.state).toBe('closed');
    clock.advance(LEASE_HEARTBEAT_MS * 3);
    expect(count(connection, 'update media_leader')).toBe(0);
  });
});
