import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A random secret kept in a file: read if it exists, otherwise created (mode 0600). Embedded
 * mode signs its access tokens with it, so tokens survive restarts.
 */
export function loadOrCreateSecret(path: string): string {
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // Not there yet: create it below.
  }
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
