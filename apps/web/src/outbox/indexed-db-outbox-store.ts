/**
 * An {@link OutboxStore} in IndexedDB (through `idb`), so writes survive a reload or a crash:
 * database {@link OUTBOX_DB_NAME}, one object store with an auto-increment `id` (insertion order)
 * and an index on `userId`.
 *
 * The `IDBFactory` is injected (`window.indexedDB` in the browser, fake-indexeddb's in tests), so
 * the store opens its database on that factory rather than on the global `indexedDB` that idb's
 * `openDB` would use; idb then wraps the opened connection.
 */
import { wrap, type DBSchema, type IDBPDatabase } from 'idb';
import type { NewOutboxEntry, OutboxEntry } from './outbox-entry';
import type { OutboxStore } from './outbox-store';
import {
  OUTBOX_DB_NAME,
  OUTBOX_DB_VERSION,
  OUTBOX_OBJECT_STORE,
  OUTBOX_USER_INDEX,
} from './outbox-constants';

/** A record as IndexedDB holds it: `id` is filled in by the key generator on `add`. */
type StoredEntry = NewOutboxEntry & { id?: number };

interface OutboxSchema extends DBSchema {
  [OUTBOX_OBJECT_STORE]: {
    key: number;
    value: StoredEntry;
    indexes: { [OUTBOX_USER_INDEX]: number };
  };
}

type OutboxDatabase = IDBPDatabase<OutboxSchema>;

/** Options of {@link IndexedDbOutboxStore}. */
export interface IndexedDbOutboxStoreOptions {
  /** The database name ({@link OUTBOX_DB_NAME} unless a test wants its own). */
  readonly dbName?: string;
}

/** The outbox in IndexedDB. The connection opens on first use and reopens if the browser closed it. */
export class IndexedDbOutboxStore implements OutboxStore {
  readonly #factory: IDBFactory;
  readonly #dbName: string;
  #db: Promise<OutboxDatabase> | null = null;

  constructor(factory: IDBFactory, options: IndexedDbOutboxStoreOptions = {}) {
    this.#factory = factory;
    this.#dbName = options.dbName ?? OUTBOX_DB_NAME;
  }

  async add(entry: NewOutboxEntry): Promise<OutboxEntry> {
    const db = await this.#open();
    const record: StoredEntry = { ...entry };
    // The key generator picks the id; a readwrite transaction resolves once it is committed.
    const id = await db.add(OUTBOX_OBJECT_STORE, record);
    return { ...entry, id };
  }

  async list(userId: number): Promise<OutboxEntry[]> {
    const db = await this.#open();
    // Within one index key, records come in primary-key order: ascending ids, insertion order.
    const records = await db.getAllFromIndex(OUTBOX_OBJECT_STORE, OUTBOX_USER_INDEX, userId);
    return records.flatMap((record) =>
      record.id === undefined ? [] : [{ ...record, id: record.id }],
    );
  }

  async update(entry: OutboxEntry): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction(OUTBOX_OBJECT_STORE, 'readwrite');
    // Only if it is still there: `put` alone would bring back an entry another tab delivered.
    if ((await tx.store.getKey(entry.id)) !== undefined) await tx.store.put({ ...entry });
    await tx.done;
  }

  async remove(id: number): Promise<void> {
    const db = await this.#open();
    await db.delete(OUTBOX_OBJECT_STORE, id);
  }

  /** Closes the connection (a later call reopens it). */
  async close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    if (db) (await db).close();
  }

  #open(): Promise<OutboxDatabase> {
    if (this.#db) return this.#db;
    const opening: Promise<OutboxDatabase> = this.#connect(() => {
      if (this.#db === opening) this.#db = null;
    }).catch((error: unknown) => {
      if (this.#db === opening) this.#db = null;
      throw error;
    });
    this.#db = opening;
    return opening;
  }

  /** Opens (and creates or upgrades) the database; `onLost` runs when the connection goes away. */
  async #connect(onLost: () => void): Promise<OutboxDatabase> {
    const request = this.#factory.open(this.#dbName, OUTBOX_DB_VERSION);
    request.addEventListener('upgradeneeded', (event) => {
      if (event.oldVersion < 1) {
        const store = request.result.createObjectStore(OUTBOX_OBJECT_STORE, {
          keyPath: 'id',
          autoIncrement: true,
        });
        store.createIndex(OUTBOX_USER_INDEX, 'userId');
      }
    });
    const raw = await new Promise<IDBDatabase>((resolve, reject) => {
      request.addEventListener('success', () => resolve(request.result));
      request.addEventListener('error', () =>
        reject(request.error ?? new Error('IndexedDB open failed.')),
      );
    });
    // Another tab upgrades the schema: step aside (it reopens on next use with the new version).
    raw.addEventListener('versionchange', () => {
      raw.close();
      onLost();
    });
    // The browser closed it (storage cleared, disk error): reopen on next use.
    raw.addEventListener('close', onLost);
    // idb's `wrap` has no schema parameter; the schema is the one created above.
    return wrap(raw) as unknown as OutboxDatabase;
  }
}
