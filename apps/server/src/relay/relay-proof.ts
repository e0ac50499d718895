/**
 * Proof that a request was relayed by another instance of this install: the relaying instance
 * (a follower forwarding a call's route to the media instance) adds `x-leadline-relayed:
 * <unix ms>.<HMAC-SHA256 of "relayed:<unix ms>:<method>:<url>" under the instances' shared
 * TOKEN_SECRET>`, and the receiving instance believes it for {@link RELAY_PROOF_TTL_MS}. What the
 * proof is for: the relaying instance already counted the request in the anonymous rate limit
 * under the browser's address, so the receiving one does not count it again (under the
 * relaying instance's own address, which would put every client of that instance in one
 * bucket). A browser cannot forge it; one seen on the way can be replayed only for the same
 * method and URL, for a minute, and gains no more than skipping that count.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header. */
export const RELAY_PROOF_HEADER = 'x-leadline-relayed';
/** How long a proof is believed (ms), either way of the receiving instance's clock. */
export const RELAY_PROOF_TTL_MS = 60_000;

function mac(secret: string, at: string, method: string, url: string): Buffer {
  return createHmac('sha256', secret).update(`relayed:${at}:${method}:${url}`).digest();
}

/** The header's value for a request (`method`, `url` with its query) relayed at `nowMs`. */
export function relayProof(secret: string, method: string, url: string, nowMs: number): string {
  const at = String(Math.floor(nowMs));
  return `${at}.${mac(secret, at, method, url).toString('base64url')}`;
}

/** Whether `value` proves the request was relayed by an instance holding `secret`, lately. */
export function isRelayed(
  secret: string,
  value: string | string[] | undefined,
  method: string,
  url: string,
  nowMs: number,
): boolean {
  if (typeof value !== 'string') return false;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return false;
  const at = match[1]!;
  if (Math.abs(nowMs - Number(at)) > RELAY_PROOF_TTL_MS) return false;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = mac(secret, at, method, url);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
