/**
 * The accounts (and profiles) of lead-intake API keys, remembered for a short while: lead
 * intake is the one route that a CRM or web form calls in bursts, and the key behind each call
 * rarely changes. Only keys that were found are remembered (a new key works at once). A key an
 * admin removes is forgotten at once (`forget`, on every instance: `admin/admin-changes.ts`);
 * one removed behind the server's back stops working within `ttlMs`.
 */

/** How long a key found is trusted without asking the database again (ms). */
export const API_KEY_CACHE_MS = 30_000;

/** The most keys remembered (the oldest is forgotten first). */
export const API_KEY_CACHE_SIZE = 1000;

/** Whose a key is: its account, and the profile its leads get (null: the account's first). */
export interface ApiKeyOwner {
  accountId: number;
  profileId: number | null;
}

export interface ApiKeyCacheOptions {
  /** The owner of the key with this SHA-256 hash, or null if there is none. */
  load(keyHash: string): Promise<ApiKeyOwner | null>;
  /** Milliseconds, for expiry (injectable for tests). */
  now?: () => number;
  ttlMs?: number;
  maxSize?: number;
}

export class ApiKeyCache {
  readonly #entries = new Map<string, { owner: ApiKeyOwner; at: number }>();
  /** Bumped by `forget`: a load that started before it is not remembered. */
  #generation = 0;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #maxSize: number;

  constructor(private readonly options: ApiKeyCacheOptions) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? API_KEY_CACHE_MS;
    this.#maxSize = options.maxSize ?? API_KEY_CACHE_SIZE;
  }

  /** The owner of the key with this hash, or null. */
  async ownerOf(keyHash: string): Promise<ApiKeyOwner | null> {
    const now = this.#now();
    const entry = this.#entries.get(keyHash);
    if (entry && now - entry.at < this.#ttlMs) return entry.owner;
    this.#entries.delete(keyHash);
    const generation = this.#generation;
    const owner = await this.options.load(keyHash);
    if (owner === null) return null;
    // Keys changed while it was read: what was read may be the key's last moment.
    if (generation !== this.#generation) return owner;
    if (this.#entries.size >= this.#maxSize) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(keyHash, { owner, at: now });
    return owner;
  }

  /** The account of the key with this hash, or null. */
  async accountOf(keyHash: string): Promise<number | null> {
    return (await this.ownerOf(keyHash))?.accountId ?? null;
  }

  /** Keys were removed or changed: every key is read from the database again. */
  forget(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
