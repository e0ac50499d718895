/**
 * The `InstanceBus` port: messages from this server process to the other processes of the same
 * product (several instances on one PostgreSQL, `docs/deployment.md`). A message is delivered to
 * every *other* instance's subscribers of its topic; the publisher acts on it locally itself.
 *
 * - `LocalInstanceBus`: one process (PGlite, or a single instance): there is nobody to tell.
 * - `PgInstanceBus`: PostgreSQL `LISTEN`/`NOTIFY` on one channel, over a connection of its own;
 *   each message carries the publishing instance's id, so an instance skips its own. A lost
 *   connection is opened again (1 s, 2 s … 30 s apart); messages sent meanwhile are lost, so
 *   only what can be read again (the console reloads its lists when its realtime socket comes
 *   back) travels this way.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** Messages to the other instances. */
export interface InstanceBus {
  /** This process's id among the instances. */
  readonly instanceId: string;
  /** The largest payload, as JSON bytes, a message may carry. */
  readonly maxPayloadBytes: number;
  /** Sends `payload` (JSON-serialisable) on `topic` to the other instances. */
  publish(topic: string, payload: unknown): Promise<void>;
  /** Calls `listener` with each payload another instance sends on `topic`; returns the unsubscribe. */
  subscribe(topic: string, listener: (payload: unknown) => void): () => void;
  close(): Promise<void>;
}

/** Thrown by `publish` for a payload over `maxPayloadBytes`. */
export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError';
}

/** Subscribers by topic, shared by the implementations. */
class Topics {
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  add(topic: string, listener: (payload: unknown) => void): () => void {
    let set = this.#listeners.get(topic);
    if (!set) this.#listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  deliver(topic: string, payload: unknown): void {
    for (const listener of [...(this.#listeners.get(topic) ?? [])]) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

/** One process: no other instance. */
export class LocalInstanceBus implements InstanceBus {
  readonly instanceId = randomUUID();
  readonly maxPayloadBytes = Number.POSITIVE_INFINITY;

  async publish(): Promise<void> {}

  subscribe(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}

/** The PostgreSQL channel the instances talk on. */
export const PG_BUS_CHANNEL = 'leadline_instances';

/**
 * PostgreSQL's `NOTIFY` payload limit is 8000 bytes; the envelope (instance id, topic) takes
 * the rest of what is left after this.
 */
export const PG_MAX_PAYLOAD_BYTES = 7_500;

/** The longest wait before the listening connection is opened again (ms). */
const RECONNECT_MAX_MS = 30_000;

interface Envelope {
  from: string;
  topic: string;
  payload: unknown;
}

/** `LISTEN`/`NOTIFY` on one PostgreSQL database. */
export class PgInstanceBus implements InstanceBus {
  readonly instanceId = randomUUID();
  readonly maxPayloadBytes = PG_MAX_PAYLOAD_BYTES;
  readonly #topics: Topics;
  readonly #pool: pg.Pool;
  #listener: pg.Client | undefined;
  #closed = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;

  private constructor(
    private readonly url: string,
    private readonly log: { warn(details: object, message: string): void },
  ) {
    this.#topics = new Topics((error) =>
      log.warn({ err: error }, 'an instance-bus listener failed'),
    );
    this.#pool = new pg.Pool({ connectionString: url, max: 2 });
    this.#pool.on('error', (error) => log.warn({ err: error }, 'instance-bus pool error'));
  }

  /** Connects and listens; resolves once messages from the other instances arrive. */
  static async open(
    url: string,
    log: { warn(details: object, message: string): void },
  ): Promise<PgInstanceBus> {
    const bus = new PgInstanceBus(url, log);
    await bus.#listen();
    return bus;
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    const envelope: Envelope = { from: this.instanceId, topic, payload };
    const text = JSON.stringify(envelope);
    if (Buffer.byteLength(JSON.stringify(payload)) > this.maxPayloadBytes) {
      throw new PayloadTooLargeError(
        `A message to the other instances is over ${this.maxPayloadBytes} bytes.`,
      );
    }
    await this.#pool.query('select pg_notify($1, $2)', [PG_BUS_CHANNEL, text]);
  }

  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    return this.#topics.add(topic, listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#pool.end().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      if (message.channel !== PG_BUS_CHANNEL || !message.payload) return;
      let envelope: Envelope;
      try {
        envelope = JSON.parse(message.payload) as Envelope;
      } catch {
        return;
      }
      if (envelope.from === this.instanceId) return;
      this.#topics.deliver(envelope.topic, envelope.payload);
    });
    const lost = (error?: unknown) => {
      if (this.#listener !== client || this.#closed) return;
      this.#listener = undefined;
      this.log.warn({ err: error }, 'the instance bus lost its PostgreSQL connection');
      void client.end().catch(() => undefined);
      this.#reconnectLater();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`listen ${PG_BUS_CHANNEL}`);
    this.#listener = client;
    this.#failures = 0;
  }

  #reconnectLater(): void {
    const delay = Math.min(1000 * 2 ** this.#failures, RECONNECT_MAX_MS);
    this.#failures += 1;
    this.#retry = setTimeout(() => {
      if (this.#closed) return;
      this.#listen().catch((error: unknown) => {
        this.log.warn({ err: error }, 'the instance bus could not listen again');
        this.#reconnectLater();
      });
    }, delay);
  }
}
