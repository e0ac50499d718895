/**
 * IndexedDB for tests (fake-indexeddb): a fresh `IDBFactory` per test is a fresh browser profile,
 * injected into {@link IndexedDbOutboxStore}; two stores on one factory share the database, as two
 * page loads (or tabs) of one browser do.
 *
 * jsdom has no IndexedDB, and `idb` checks values with `instanceof IDBRequest`, `IDBDatabase`…
 * against the globals, so {@link stubIndexedDbClasses} sets those constructor globals (only them:
 * there is no global `indexedDB`, every store gets its factory) with `vi.stubGlobal`; undo it with
 * `vi.unstubAllGlobals()`.
 */
import {
  IDBCursor,
  IDBDatabase,
  IDBFactory,
  IDBIndex,
  IDBObjectStore,
  IDBRequest,
  IDBTransaction,
} from 'fake-indexeddb';
import { vi } from 'vitest';

/** Sets the IndexedDB constructor globals idb's `instanceof` checks need (not `indexedDB`). */
export function stubIndexedDbClasses(): void {
  const classes = { IDBCursor, IDBDatabase, IDBIndex, IDBObjectStore, IDBRequest, IDBTransaction };
  for (const [name, value] of Object.entries(classes)) vi.stubGlobal(name, value);
}

/** A fresh, empty IndexedDB (one browser profile). */
export function newIndexedDb(): IDBFactory {
  return new IDBFactory();
}
