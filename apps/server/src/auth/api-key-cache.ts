/**
 * The accounts of lead-intake API keys, remembered for a short while: lead intake is the one
 * route that a CRM or web form calls in bursts, and the key behind each call rarely changes.
 * Only keys that were found are remembered (a new key works at once); a key removed from the
 * database stops working within `ttlMs`.
 */

/** How long a key found is trusted without asking the database again (ms). */
export const API_KEY_CACHE_MS = 30_000;

/** The most keys remembered (the oldest is forgotten first). */
export const API_KEY_CACHE_SIZE = 1000;

export interface ApiKeyCacheOptions {
  /** The account of the key with this SHA-256 hash, or null if there is none. */
  load(keyHash: string): Promise<number | null>;
  /** Milliseconds, for expiry (injectable for tests). */
  now?: () => number;
  ttlMs?: number;
  maxSize?: number;
}

export class ApiKeyCache {
  readonly #entries = new Map<string, { accountId: number; at: number }>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #maxSize: number;

  constructor(private readonly options: ApiKeyCacheOptions) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? API_KEY_CACHE_MS;
    this.#maxSize = options.maxSize ?? API_KEY_CACHE_SIZE;
  }

  /** The account of the key with this hash, or null. */
  async accountOf(keyHash: string): Promise<number | null> {
    const now = this.#now();
    const entry = this.#entries.get(keyHash);
    if (entry && now - entry.at < this.#ttlMs) return entry.accountId;
    this.#entries.delete(keyHash);
    const accountId = await this.options.load(keyHash);
    if (accountId === null) return null;
    if (this.#entries.size >= this.#maxSize) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(keyHash, { accountId, at: now });
    return accountId;
  }
}
