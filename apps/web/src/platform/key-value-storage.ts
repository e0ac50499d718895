/**
 * A tiny injected key-value store for what the console remembers per browser (the chosen audio
 * devices). The app passes {@link browserKeyValueStorage} (`localStorage`); tests pass a
 * {@link MemoryKeyValueStorage}.
 */

/** Strings by key, remembered in this browser. */
export interface KeyValueStorage {
  /** The value stored under `key`, or null. */
  get(key: string): string | null;
  /** Stores `value` under `key`. */
  set(key: string, value: string): void;
}

/**
 * `localStorage` of `win`. Where the browser refuses storage (blocked site data, a full quota,
 * some private modes throw on access), nothing is remembered and nothing throws: remembering a
 * device is a convenience, never a reason to fail a choice.
 */
export function browserKeyValueStorage(win: Window = window): KeyValueStorage {
  return {
    get(key) {
      try {
        return win.localStorage.getItem(key);
      } catch {
        return null;
      }
    },
    set(key, value) {
      try {
        win.localStorage.setItem(key, value);
      } catch {
        // Not remembered (see above).
      }
    },
  };
}

/** A {@link KeyValueStorage} in memory (tests; a browser without storage). */
export class MemoryKeyValueStorage implements KeyValueStorage {
  readonly entries: Map<string, string>;

  constructor(entries: Readonly<Record<string, string>> = {}) {
    this.entries = new Map(Object.entries(entries));
  }

  get(key: string): string | null {
    return this.entries.get(key) ?? null;
  }

  set(key: string, value: string): void {
    this.entries.set(key, value);
  }
}
