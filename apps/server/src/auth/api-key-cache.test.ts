import { describe, expect, it } from 'vitest';
import { ApiKeyCache } from './api-key-cache';

/** A cache over a table of keys, counting how often the table is asked. */
function setUp(keys: Record<string, number>, options: { ttlMs?: number; maxSize?: number } = {}) {
  let now = 0;
  const asked: string[] = [];
  const cache = new ApiKeyCache({
    load: (hash) => {
      asked.push(hash);
      const accountId = keys[hash];
      return Promise.resolve(accountId === undefined ? null : { accountId, profileId: null });
    },
    now: () => now,
    ...options,
  });
  return { cache, asked, keys, advance: (ms: number) => (now += ms) };
}

describe('ApiKeyCache', () => {
  it('asks the database once for a key found, until the TTL passes', async () => {
    const { cache, asked, advance } = setUp({ a: 7 }, { ttlMs: 1000 });
    expect(await cache.accountOf('a')).toBe(7);
    advance(999);
    expect(await cache.accountOf('a')).toBe(7);
    expect(asked).toEqual(['a']);
    advance(1);
    expect(await cache.accountOf('a')).toBe(7);
    expect(asked).toEqual(['a', 'a']);
  });

  it('never remembers a key that was not found: a key added later works at once', async () => {
    const { cache, asked, keys } = setUp({});
    expect(await cache.accountOf('new')).toBeNull();
    keys.new = 3;
    expect(await cache.accountOf('new')).toBe(3);
    expect(asked).toEqual(['new', 'new']);
  });

  it('stops accepting a removed key once the TTL passes', async () => {
    const { cache, keys, advance } = setUp({ gone: 5 }, { ttlMs: 1000 });
    expect(await cache.accountOf('gone')).toBe(5);
    delete keys.gone;
    advance(1000);
    expect(await cache.accountOf('gone')).toBeNull();
  });

  it('forgets the oldest key when full', async () => {
    const { cache, asked } = setUp({ a: 1, b: 2, c: 3 }, { maxSize: 2 });
    await cache.accountOf('a');
    await cache.accountOf('b');
    await cache.accountOf('c');
    await cache.accountOf('b');
    await cache.accountOf('a');
    expect(asked).toEqual(['a', 'b', 'c', 'a']);
  });

  it('forgets every key at once when told, and keeps nothing a read in flight saw', async () => {
    const { cache, asked, keys } = setUp({ a: 1, b: 2 });
    await cache.accountOf('a');
    delete keys.a;
    cache.forget();
    expect(await cache.accountOf('a')).toBeNull();
    // A read that started before a forget is answered but not remembered.
    const reading = cache.accountOf('b');
    cache.forget();
    expect(await reading).toBe(2);
    delete keys.b;
    expect(await cache.accountOf('b')).toBeNull();
    expect(asked).toEqual(['a', 'a', 'b', 'b']);
  });

  it('remembers the profile of a key with its account', async () => {
    const cache = new ApiKeyCache({
      load: () => Promise.resolve({ accountId: 4, profileId: 9 }),
    });
    expect(await cache.ownerOf('k')).toEqual({ accountId: 4, profileId: 9 });
  });
});
