/**
 * The account settings that routing reads for every lead (the default profile, a profile's
 * routing settings, the default caller number), remembered for a few seconds: a burst of leads
 * reads them once instead of once per lead. Loads in flight are shared. Whoever changes a
 * profile or a caller number calls `forget()`; a change made behind the server's back (another
 * instance, SQL by hand) is seen within `ttlMs`.
 */
import type { Db } from '../db/database';
import { defaultProfile, profileOf, type ProfileRow } from '../routing/routing-repo';
import { defaultCallerNumber, type CallerNumberRow } from '../users/caller-numbers-repo';

/** How long a setting read is used without reading it again (ms). */
export const SETTINGS_CACHE_MS = 5_000;

interface Entry<T> {
  value: Promise<T>;
  at: number;
}

export interface SettingsCacheOptions {
  db: Db;
  /** Milliseconds, for expiry (injectable for tests). */
  now?: () => number;
  ttlMs?: number;
}

export class SettingsCache {
  readonly #entries = new Map<string, Entry<unknown>>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(private readonly options: SettingsCacheOptions) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? SETTINGS_CACHE_MS;
  }

  /** The account's first profile (a lead without one is routed by it), or null. */
  defaultProfile(accountId: number): Promise<ProfileRow | null> {
    return this.#get(`default-profile:${accountId}`, () =>
      defaultProfile(this.options.db, accountId),
    );
  }

  /** A profile with its routing settings, or null. */
  profile(profileId: number | null): Promise<ProfileRow | null> {
    if (profileId === null) return Promise.resolve(null);
    return this.#get(`profile:${profileId}`, () => profileOf(this.options.db, profileId));
  }

  /** The caller number a call of the profile dials from when none was chosen, or null. */
  defaultCallerNumber(
    accountId: number,
    profileId: number | null,
  ): Promise<CallerNumberRow | null> {
    return this.#get(`caller:${accountId}:${profileId ?? ''}`, () =>
      defaultCallerNumber(this.options.db, accountId, profileId),
    );
  }

  /** Settings changed: the next reads go to the database. */
  forget(): void {
    this.#entries.clear();
  }

  #get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.#now();
    const entry = this.#entries.get(key) as Entry<T> | undefined;
    if (entry && now - entry.at < this.#ttlMs) return entry.value;
    const value = load();
    this.#entries.set(key, { value, at: now });
    // A failed read is not remembered.
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    return value;
  }
}
