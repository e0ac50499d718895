/**
 * An {@link OutboxStore} in memory: the store's contract without persistence. Entries are copied
 * in and out (`structuredClone`), as IndexedDB would, so callers cannot change stored data in place.
 */
import type { NewOutboxEntry, OutboxEntry } from './outbox-entry';
import type { OutboxStore } from './outbox-store';

/** An in-memory {@link OutboxStore}. */
export class MemoryOutboxStore implements OutboxStore {
  readonly #entries = new Map<number, OutboxEntry>();
  #nextId = 1;

  async add(entry: NewOutboxEntry): Promise<OutboxEntry> {
    const stored: OutboxEntry = { ...structuredClone(entry), id: this.#nextId++ };
    this.#entries.set(stored.id, stored);
    return structuredClone(stored);
  }

  async list(userId: number): Promise<OutboxEntry[]> {
    // A Map iterates in insertion order, and ids only grow.
    return [...this.#entries.values()]
      .filter((entry) => entry.userId === userId)
      .map((entry) => structuredClone(entry));
  }

  async update(entry: OutboxEntry): Promise<void> {
    if (this.#entries.has(entry.id)) this.#entries.set(entry.id, structuredClone(entry));
  }

  async remove(id: number): Promise<void> {
    this.#entries.delete(id);
  }
}
