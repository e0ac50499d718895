/**
 * What one instance of an install tells another about a request it relays, and the proof that
 * it did (`docs/security.md`, several instances). A follower forwards the call routes and the
 * softphone's signalling to the media leader; the leader cannot tell a follower's connection
 * from anyone else's, so whatever the follower vouches for travels in one signed header:
 *
 *     x-leadline-relay: v1.<unix ms>.<leader epoch or ->.<counted 0|1>.<client>.<nonce>.<body sha-256>.<mac>
 *
 * - the browser's address as the follower found it (its `TRUST_PROXY`): the leader's login
 *   throttle and rate limits count the browser, not the follower;
 * - whether the follower counted the request in the anonymous rate limit already (the leader
 *   then does not count it a second time);
 * - the epoch of the leader it meant: a request signed for one leadership is refused by the next
 *   (421), so nothing captured before a failover can be replayed to the new leader.
 *
 * The MAC is HMAC-SHA256 under a key derived from the instances' shared `TOKEN_SECRET`, over
 * those fields, a random nonce, the method, the request target as sent and the SHA-256 of the
 * body as sent. The leader believes it for {@link RELAY_SIGNATURE_TTL_MS} either way of its
 * clock, and only once (a replayed header is refused). A request without the header is simply a
 * browser's (the leader serves browsers directly too) and gets no more trust than one.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header. */
export const RELAY_HEADER = 'x-leadline-relay';
/**
 * The header the receiving instance marks its refusal of a relay header with (401 or 421), so
 * the relaying instance tells it apart from the route's own answers.
 */
export const RELAY_REFUSED_HEADER = 'x-leadline-relay-refused';
/** How long a signature is believed (ms), either way of the receiving instance's clock. */
export const RELAY_SIGNATURE_TTL_MS = 60_000;
/** At most this many signatures are remembered against replay (the oldest go first). */
const REMEMBERED_SIGNATURES = 200_000;

/** What the relaying instance vouches for. */
export interface RelayClaims {
  /** The browser's address, as the relaying instance found it under its `TRUST_PROXY`. */
  client: string;
  /** Whether the relaying instance counted the request in the anonymous rate limit. */
  counted: boolean;
  /** The epoch of the media leader the request was meant for (null: a leader without a lease). */
  epoch: number | null;
}

/** The request as it goes on the wire to the leader. */
export interface RelayedWire {
  method: string;
  /** The origin-form target, exactly as sent (`/api/v1/calls/7/hold?x=1`). */
  target: string;
  /** The body as sent ('' for none). */
  body: string;
}

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The MAC key, kept apart from the token secret's other uses. */
function keyOf(secret: string): Buffer {
  return createHmac('sha256', secret).update('leadline relay v1').digest();
}

function macOf(key: Buffer, fields: readonly string[], wire: RelayedWire): Buffer {
  return createHmac('sha256', key)
    .update([...fields, wire.method, wire.target].join('\n'))
    .digest();
}

/** Signs requests a relaying instance forwards. */
export class RelaySigner {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = keyOf(secret);
  }

  /** The header's value for `wire`, vouching for `claims`, signed at `nowMs`. */
  sign(claims: RelayClaims, wire: RelayedWire, nowMs: number): string {
    const fields = [
      'v1',
      String(Math.floor(nowMs)),
      claims.epoch === null ? '-' : String(claims.epoch),
      claims.counted ? '1' : '0',
      b64(claims.client),
      b64(randomBytes(16)),
      sha256(wire.body),
    ];
    return [...fields, macOf(this.#key, fields, wire).toString('base64url')].join('.');
  }
}

/** A header that holds, with what it vouches for and the body's hash it names. */
export interface VerifiedRelay extends RelayClaims {
  /** The SHA-256 (base64url) of the body the relaying instance sent. */
  bodySha256: string;
}

/** The verdict on a request that carries the header. */
export type RelayVerdict =
  { ok: true; relay: VerifiedRelay } | { ok: false; reason: 'invalid' | 'misdirected' };

const HEADER_FORM =
  /^v1\.(\d{1,15})\.(-|\d{1,15})\.([01])\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

/** Checks the header on the receiving instance (the media leader). */
export class RelayVerifier {
  readonly #key: Buffer;
  readonly #now: () => number;
  /** Signatures seen and when they stop being believed anyway, oldest first. */
  readonly #seen = new Map<string, number>();

  constructor(secret: string, now: () => number = Date.now) {
    this.#key = keyOf(secret);
    this.#now = now;
  }

  /**
   * The verdict on `value` (the header) for `wire` (its body left out: see {@link bodyHolds}),
   * received by the leader of `epoch`. A signature that holds is remembered: the same again is
   * refused.
   */
  verify(
    value: string | string[] | undefined,
    wire: Omit<RelayedWire, 'body'>,
    epoch: number | null,
  ): RelayVerdict {
    const match = typeof value === 'string' ? HEADER_FORM.exec(value) : null;
    if (!match) return { ok: false, reason: 'invalid' };
    const [, at, signedEpoch, counted, client, nonce, bodySha256, mac] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const now = this.#now();
    if (Math.abs(now - Number(at)) > RELAY_SIGNATURE_TTL_MS)
      return { ok: false, reason: 'invalid' };
    const fields = ['v1', at, signedEpoch, counted, client, nonce, bodySha256];
    // Compared as text, not as decoded bytes: base64url leaves the last character's low bits
    // unused, so other spellings of the same MAC would hold and pass the replay check below.
    const expected = Buffer.from(
      macOf(this.#key, fields, { ...wire, body: '' }).toString('base64url'),
    );
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'invalid' };
    }
    if (this.#seen.has(mac)) return { ok: false, reason: 'invalid' };
    const meant = signedEpoch === '-' ? null : Number(signedEpoch);
    if (meant !== epoch) return { ok: false, reason: 'misdirected' };
    this.#remember(mac, Number(at) + RELAY_SIGNATURE_TTL_MS, now);
    return {
      ok: true,
      relay: {
        client: Buffer.from(client, 'base64url').toString(),
        counted: counted === '1',
        epoch: meant,
        bodySha256,
      },
    };
  }

  #remember(mac: string, until: number, now: number): void {
    for (const [seen, expires] of this.#seen) {
      if (expires > now && this.#seen.size < REMEMBERED_SIGNATURES) break;
      this.#seen.delete(seen);
    }
    this.#seen.set(mac, until);
  }
}

/** Whether `body` (as received: '' for none) is the body `relay` was signed with. */
export function bodyHolds(relay: VerifiedRelay, body: string): boolean {
  const given = Buffer.from(relay.bodySha256, 'base64url');
  const actual = createHash('sha256').update(body).digest();
  return given.length === actual.length && timingSafeEqual(given, actual);
}
