// The browser wiring, on a stand-in window: Web Locks, UUID keys, and the choice of store.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeClock, FakeNetwork } from '../test-support/fake-platform';
import {
  browserOutboxStore,
  createBrowserOutbox,
  randomKey,
  webLocks,
  type OutboxWindow,
} from './browser-outbox';
import { newIndexedDb, stubIndexedDbClasses } from '../test-support/fake-indexed-db';
import { IndexedDbOutboxStore } from './indexed-db-outbox-store';
import { MemoryOutboxStore } from './memory-outbox-store';
import { OUTBOX_LOCK_NAME } from './outbox-constants';

beforeAll(() => stubIndexedDbClasses());
afterAll(() => vi.unstubAllGlobals());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** `crypto` without `randomUUID` (a plain-http page), filling bytes with `byte`. */
function insecureCrypto(byte: number): OutboxWindow['crypto'] {
  return {
    getRandomValues: <T extends ArrayBufferView | null>(array: T): T => {
      if (array) new Uint8Array(array.buffer, array.byteOffset, array.byteLength).fill(byte);
      return array;
    },
  };
}

/** A LockManager that grants at once and records the names asked for. */
function recordingLocks(names: string[]): Pick<LockManager, 'request'> {
  const request = (name: string, callback: (lock: Lock | null) => unknown) => {
    names.push(name);
    return Promise.resolve(callback(null));
  };
  return { request: request as LockManager['request'] };
}

describe('webLocks', () => {
  it('is undefined without the Web Locks API', () => {
    expect(webLocks({})).toBeUndefined();
  });

  it('runs the function under the named lock and passes its result through', async () => {
    const names: string[] = [];
    const lock = webLocks({ locks: recordingLocks(names) });
    expect(await lock!('leadline-outbox', async () => 42)).toBe(42);
    await expect(lock!('x', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(names).toEqual(['leadline-outbox', 'x']);
  });
});

describe('randomKey', () => {
  it('uses crypto.randomUUID where there is one', () => {
    const key = '3b241101-e2bb-4255-8caf-4136c566a962';
    expect(randomKey({ ...insecureCrypto(0), randomUUID: () => key })).toBe(key);
  });

  it('makes a v4 UUID from getRandomValues where randomUUID is missing', () => {
    expect(randomKey(insecureCrypto(0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(randomKey(insecureCrypto(0x00))).toBe('00000000-0000-4000-8000-000000000000');
    expect(randomKey(insecureCrypto(0x5a))).toMatch(UUID_V4);
  });
});

describe('browserOutboxStore', () => {
  it('is IndexedDB when the browser has it, memory otherwise', () => {
    expect(browserOutboxStore({ indexedDB: newIndexedDb() })).toBeInstanceOf(IndexedDbOutboxStore);
    expect(browserOutboxStore({})).toBeInstanceOf(MemoryOutboxStore);
  });
});

describe('createBrowserOutbox', () => {
  it('stores in the window’s IndexedDB, keys with its crypto and sends under the Web Lock', async () => {
    const clock = new FakeClock();
    const names: string[] = [];
    const indexedDB = newIndexedDb();
    const outbox = createBrowserOutbox(
      { clock, timers: clock, network: new FakeNetwork(), log: { info() {}, error() {} } },
      { indexedDB, crypto: insecureCrypto(0x11), navigator: { locks: recordingLocks(names) } },
    );
    const sent: string[] = [];
    outbox.start(7, {
      send: async (entry) => {
        sent.push(entry.key);
        return { kind: 'done', payload: null };
      },
    });
    const { entry, firstAttempt } = await outbox.enqueue({
      userId: 7,
      method: 'POST',
      path: '/api/v1/notes',
      body: { note: 'Call back Tuesday' },
      label: 'note',
    });
    expect(entry.key).toBe('11111111-1111-4111-9111-111111111111');
    expect(await firstAttempt).toEqual({ kind: 'done', payload: null });
    expect(sent).toEqual([entry.key]);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set([OUTBOX_LOCK_NAME]));
    outbox.stop();
    await outbox.settled();
    expect(await new IndexedDbOutboxStore(indexedDB).list(7)).toEqual([]);
  });
});
