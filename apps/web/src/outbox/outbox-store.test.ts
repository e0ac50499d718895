// The storage port's contract, run against both stores; the IndexedDB one on fake-indexeddb.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { newIndexedDb, stubIndexedDbClasses } from '../test-support/fake-indexed-db';
import { IndexedDbOutboxStore } from './indexed-db-outbox-store';
import { MemoryOutboxStore } from './memory-outbox-store';
import { OUTBOX_DB_NAME, OUTBOX_OBJECT_STORE, OUTBOX_USER_INDEX } from './outbox-constants';
import type { NewOutboxEntry } from './outbox-entry';
import type { OutboxStore } from './outbox-store';

beforeAll(() => stubIndexedDbClasses());
afterAll(() => vi.unstubAllGlobals());

function newEntry(userId: number, label: string, createdAt = 1_000): NewOutboxEntry {
  return {
    userId,
    method: 'POST',
    path: `/api/v1/${label}`,
    body: { text: `${label} of ${userId}`, nested: { list: [1, 2] } },
    label,
    key: `key-${userId}-${label}`,
    createdAt,
    attempts: 0,
    nextAttemptAt: createdAt,
  };
}

const STORES: [string, () => OutboxStore][] = [
  ['MemoryOutboxStore', () => new MemoryOutboxStore()],
  ['IndexedDbOutboxStore', () => new IndexedDbOutboxStore(newIndexedDb())],
];

describe.each(STORES)('%s', (_name, makeStore) => {
  it('adds entries with growing ids and lists a user’s entries in insertion order', async () => {
    const store = makeStore();
    const a = await store.add(newEntry(7, 'disposition'));
    await store.add(newEntry(8, 'note'));
    const b = await store.add(newEntry(7, 'sms'));
    const c = await store.add(newEntry(7, 'note'));
    expect(b.id).toBeGreaterThan(a.id);
    expect(c.id).toBeGreaterThan(b.id);
    const listed = await store.list(7);
    expect(listed.map((entry) => entry.label)).toEqual(['disposition', 'sms', 'note']);
    expect(listed[0]).toEqual({ ...newEntry(7, 'disposition'), id: a.id });
    expect((await store.list(8)).map((entry) => entry.label)).toEqual(['note']);
    expect(await store.list(9)).toEqual([]);
  });

  it('updates an entry in place, keeping its position', async () => {
    const store = makeStore();
    const a = await store.add(newEntry(7, 'disposition'));
    await store.add(newEntry(7, 'note'));
    await store.update({ ...a, attempts: 3, nextAttemptAt: 9_000 });
    const [first, second] = await store.list(7);
    expect(first).toMatchObject({ id: a.id, attempts: 3, nextAttemptAt: 9_000 });
    expect(second?.label).toBe('note');
  });

  it('does not bring back a removed entry on update, and ignores removing a missing one', async () => {
    const store = makeStore();
    const a = await store.add(newEntry(7, 'note'));
    await store.remove(a.id);
    await store.update({ ...a, attempts: 1 });
    await store.remove(a.id);
    expect(await store.list(7)).toEqual([]);
  });

  it('hands out copies: changing a listed entry does not change the store', async () => {
    const store = makeStore();
    await store.add(newEntry(7, 'note'));
    const [listed] = await store.list(7);
    (listed!.body as { text: string }).text = 'changed';
    const [again] = await store.list(7);
    expect((again!.body as { text: string }).text).toBe('note of 7');
  });
});

describe('IndexedDbOutboxStore on IndexedDB', () => {
  it('creates the leadline-outbox database with one auto-increment store and a userId index', async () => {
    const factory = newIndexedDb();
    await new IndexedDbOutboxStore(factory).add(newEntry(7, 'note'));
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open(OUTBOX_DB_NAME);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('open failed'));
    });
    expect([...db.objectStoreNames]).toEqual([OUTBOX_OBJECT_STORE]);
    const store = db.transaction(OUTBOX_OBJECT_STORE).objectStore(OUTBOX_OBJECT_STORE);
    expect(store.keyPath).toBe('id');
    expect(store.autoIncrement).toBe(true);
    expect([...store.indexNames]).toEqual([OUTBOX_USER_INDEX]);
    expect(store.index(OUTBOX_USER_INDEX).keyPath).toBe('userId');
    db.close();
  });

  it('keeps entries across connections (a reload), and a second store on the same factory sees them', async () => {
    const factory = newIndexedDb();
    const first = new IndexedDbOutboxStore(factory);
    const added = await first.add(newEntry(7, 'note'));
    await first.close();
    const second = new IndexedDbOutboxStore(factory);
    expect(await second.list(7)).toEqual([added]);
    // The closed one reopens on use.
    expect(await first.list(7)).toEqual([added]);
  });

  it('uses only the injected factory: another factory is another, empty, profile', async () => {
    await new IndexedDbOutboxStore(newIndexedDb()).add(newEntry(7, 'note'));
    expect(await new IndexedDbOutboxStore(newIndexedDb()).list(7)).toEqual([]);
    expect('indexedDB' in globalThis).toBe(false);
  });
});
