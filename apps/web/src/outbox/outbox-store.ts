/**
 * The outbox's storage port. {@link IndexedDbOutboxStore} keeps entries across reloads;
 * {@link MemoryOutboxStore} is the same contract in memory (tests, or a browser without IndexedDB).
 */
import type { NewOutboxEntry, OutboxEntry } from './outbox-entry';

/** Where outbox entries live. Every method may reject (storage full, IndexedDB closed…). */
export interface OutboxStore {
  /** Persists a new entry; resolves once it is durably written, with the id the store gave it. */
  add(entry: NewOutboxEntry): Promise<OutboxEntry>;
  /** The entries of `userId`, oldest first (insertion order). */
  list(userId: number): Promise<OutboxEntry[]>;
  /**
   * Replaces the stored entry with the same id (attempts, next attempt time). An entry that is no
   * longer there (another tab delivered and removed it) is left removed.
   */
  update(entry: OutboxEntry): Promise<void>;
  /** Removes an entry; removing a missing one does nothing. */
  remove(id: number): Promise<void>;
}
