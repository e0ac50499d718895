/**
 * The instance bus on PostgreSQL (`LISTEN`/`NOTIFY`): what one instance publishes reaches the
 * others' subscribers of the topic, never its own; a payload over the limit is refused; a
 * listening connection that PostgreSQL drops is opened again. Needs a PostgreSQL server
 * (`DATABASE_URL`; CI's second pass of the server tests); on PGlite the product runs as one
 * process and uses `LocalInstanceBus`.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../test-support/wait-until';
import {
  LocalInstanceBus,
  PG_BUS_CHANNEL,
  PayloadTooLargeError,
  PgInstanceBus,
  type InstanceBus,
} from './instance-bus';

const url = process.env.DATABASE_URL;
const quiet = { warn: () => undefined };
const opened: InstanceBus[] = [];

afterEach(async () => {
  for (const bus of opened.splice(0)) await bus.close();
});

async function open(): Promise<PgInstanceBus> {
  const bus = await PgInstanceBus.open(url!, quiet);
  opened.push(bus);
  return bus;
}

/** Collects what `bus` receives on `topic`. */
function received(bus: InstanceBus, topic: string): unknown[] {
  const seen: unknown[] = [];
  bus.subscribe(topic, (payload) => seen.push(payload));
  return seen;
}

describe.runIf(url)('PgInstanceBus', () => {
  it("delivers to the other instances' subscribers of the topic, not to its own", async () => {
    const [a, b, c] = [await open(), await open(), await open()];
    const atA = received(a, 'status');
    const atB = received(b, 'status');
    const atC = received(c, 'status');
    const otherTopicAtB = received(b, 'other');

    await a.publish('status', { user: 7, status: 'away' });
    await waitUntil(() => (atB.length && atC.length ? true : undefined), 'B and C to receive');
    expect(atB).toEqual([{ user: 7, status: 'away' }]);
    expect(atC).toEqual([{ user: 7, status: 'away' }]);

    // A message B sends afterwards arrives at A after A's own would have: A got nothing of its own.
    await b.publish('status', { user: 8, status: 'available' });
    await waitUntil(() => (atA.length ? true : undefined), 'A to receive B’s message');
    expect(atA).toEqual([{ user: 8, status: 'available' }]);
    expect(otherTopicAtB).toEqual([]);
  });

  it('refuses a payload over the NOTIFY limit and sends nothing', async () => {
    const [a, b] = [await open(), await open()];
    const atB = received(b, 't');
    await expect(a.publish('t', { big: 'x'.repeat(a.maxPayloadBytes) })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
    await a.publish('t', { small: true });
    await waitUntil(() => (atB.length ? true : undefined), 'the small message');
    expect(atB).toEqual([{ small: true }]);
  });

  it('listens again after PostgreSQL drops its connection', async () => {
    const [a, b] = [await open(), await open()];
    const atB = received(b, 't');
    // Drop every connection listening on the bus's channel: B's among them.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `select pid from pg_stat_activity where query ilike $1 and pid <> pg_backend_pid()`,
        [`listen ${PG_BUS_CHANNEL}%`],
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const { pid } of rows) await admin.query('select pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    // Until B listens again a message may be lost; it is sent again until one arrives.
    await waitUntil(async () => {
      await a.publish('t', { again: true });
      return atB.length ? true : undefined;
    }, 'B to receive after its connection was dropped');
    expect(atB[0]).toEqual({ again: true });
  });
});

describe('LocalInstanceBus', () => {
  it('has no other instance to deliver to', async () => {
    const bus = new LocalInstanceBus();
    const seen = received(bus, 't');
    await bus.publish();
    expect(seen).toEqual([]);
  });
});
