/**
 * Password hashing with scrypt (node:crypto). A stored hash names its own parameters,
 * `scrypt$N$r$p$salt$hash` (base64 parts), so the cost can rise again: a hash made with other
 * parameters than {@link PASSWORD_COST} still verifies, and {@link needsRehash} tells the login
 * to store a new one (issue 36 item 3).
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { HashingQueue, type HashingPriority } from './hashing-queue';

export { HashingBusyError } from './hashing-queue';

/** scrypt's parameters: CPU/memory cost `N` (a power of two), block size `r`, parallelism `p`. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * The cost new hashes get: N = 2^17, r = 8, p = 1 (OWASP's recommendation for scrypt): 128 MiB
 * and about half a second of one core per hash on the machines we run on.
 */
export const PASSWORD_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };

const KEY_BYTES = 64;
const SALT_BYTES = 16;
/**
 * The largest cost a stored hash may ask for (2^20 is 1 GiB): a hash is ours, but a row written
 * by hand must not make one login take the server's memory.
 */
const MAX_MEMORY_BYTES = 128 * 2 ** 20 * 8;

/** The memory scrypt needs for `cost` (128·N·r bytes), with room for its own bookkeeping. */
const memoryOf = (cost: ScryptCost): number => 128 * cost.N * cost.r * (cost.p + 1);

/**
 * How many hashes are computed at once. Each holds 128 MiB while it runs; Node's thread pool
 * (4 threads) would run 4, and leave nothing for file and DNS work meanwhile.
 */
export const CONCURRENT_HASHES = 2;

/**
 * How many sign-ins may wait for a hash; one more is refused (429, `Retry-After`). With 2 slots of
 * about half a second, the last in line is answered within a few seconds.
 */
export const MAX_WAITING_SIGN_INS = 8;

/** This process's hashing slots and queue (`hashing-queue.ts`), shared by every caller. */
export const passwordHashing = new HashingQueue({
  slots: CONCURRENT_HASHES,
  maxWaiting: MAX_WAITING_SIGN_INS,
});

const sameCost = (a: ScryptCost, b: ScryptCost) => a.N === b.N && a.r === b.r && a.p === b.p;

function derive(
  password: string,
  salt: Buffer,
  cost: ScryptCost,
  priority: HashingPriority,
): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: memoryOf(cost) };
  return passwordHashing.run(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      }),
    // A hash at today's cost: what a sign-in for an unknown e-mail is made to wait like.
    { priority, timed: sameCost(cost, PASSWORD_COST) },
  );
}

/** A stored hash, read; null when it is not one this module wrote. */
function parse(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key || rest.length > 0) return null;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const valid =
    Number.isSafeInteger(cost.N) &&
    cost.N > 1 &&
    (cost.N & (cost.N - 1)) === 0 &&
    Number.isSafeInteger(cost.r) &&
    cost.r > 0 &&
    Number.isSafeInteger(cost.p) &&
    cost.p > 0 &&
    memoryOf(cost) <= MAX_MEMORY_BYTES;
  const expected = Buffer.from(key, 'base64');
  if (!valid || expected.length !== KEY_BYTES) return null;
  return { cost, salt: Buffer.from(salt, 'base64'), key: expected };
}

/**
 * Hashes a password for storage, at {@link PASSWORD_COST} unless told otherwise. It waits for a
 * slot however long the queue (its callers are signed in, or the command line).
 */
export async function hashPassword(
  password: string,
  cost: ScryptCost = PASSWORD_COST,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, 'authenticated');
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join(
    '$',
  );
}

/** The salt of the one real verification that times an unknown e-mail's answer. */
const DECOY_SALT = Buffer.alloc(SALT_BYTES, 7);

/**
 * Checks a sign-in's password against a stored hash. Without one it can check (`stored` null: no
 * such user; or a hash it does not read, such as a user created without a password) it answers
 * false as late as a check would have, without taking a hashing slot (`HashingQueue.imitate`).
 * Throws {@link HashingBusyError} when too many sign-ins wait already.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : parse(stored);
  if (!parsed) {
    await passwordHashing.imitate(async () => {
      await derive('decoy password', DECOY_SALT, PASSWORD_COST, 'sign-in');
    });
    return false;
  }
  const actual = await derive(password, parsed.salt, parsed.cost, 'sign-in');
  return timingSafeEqual(actual, parsed.key);
}

/**
 * Whether a stored hash was made with other parameters than {@link PASSWORD_COST} (or is not
 * one this module reads): after a successful login, the password is hashed again and stored.
 */
export function needsRehash(stored: string, cost: ScryptCost = PASSWORD_COST): boolean {
  const parsed = parse(stored);
  return (
    !parsed || parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p
  );
}
