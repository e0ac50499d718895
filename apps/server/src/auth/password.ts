/**
 * Password hashing with scrypt (node:crypto). A stored hash names its own parameters,
 * `scrypt$N$r$p$salt$hash` (base64 parts), so the cost can rise again: a hash made with other
 * parameters than {@link PASSWORD_COST} still verifies, and {@link needsRehash} tells the login
 * to store a new one (issue 36 item 3).
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

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
const CONCURRENT_HASHES = 2;
let running = 0;
const waiting: Array<() => void> = [];

/** Runs `work` in one of the {@link CONCURRENT_HASHES} slots (a finished one hands it on). */
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < CONCURRENT_HASHES) running += 1;
  else await new Promise<void>((go) => waiting.push(go));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: memoryOf(cost) };
  return inSlot(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      }),
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

/** Hashes a password for storage, at {@link PASSWORD_COST} unless told otherwise. */
export async function hashPassword(
  password: string,
  cost: ScryptCost = PASSWORD_COST,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join(
    '$',
  );
}

/** A hash to compare against when the user does not exist, so timing does not tell. */
let decoy: Promise<string> | undefined;

/** Checks a password against a stored hash (or against a decoy when `stored` is null). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword('decoy password')));
  const parsed = parse(hash);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(actual, parsed.key) && stored !== null;
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
