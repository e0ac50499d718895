/**
 * Idempotency keys (the IETF httpapi `Idempotency-Key` draft): a write that carries the header
 * is applied once per user and key; a repeat is answered with the first answer and
 * `Idempotent-Replayed: true`. The console's outbox sends a key with each write and retries on
 * network errors and 5xx, so a lost answer never makes a second note or a second SMS.
 *
 * - No header: the route runs as it always did, nothing is stored.
 * - A header that is not 8–255 visible ASCII characters: 400, nothing changes.
 * - The key again with another request (method, route, path parameters or JSON body differ):
 *   422, nothing changes.
 * - The key again while its first request is still running: 409 (retry later).
 *
 * Writes whose effects are all in the database (`transactional`) claim the key, apply the
 * effect and store the answer in one transaction: a failure (4xx, 5xx) rolls all of it back and
 * a repeat is handled afresh; a concurrent repeat waits on the key's unique index until the
 * first commits, then is answered again. A write with an external effect (`external`, an SMS
 * send) cannot live in a transaction: its claim is committed first, marked in progress; a
 * failure before the send gives the claim up; a claim left in progress for longer than
 * `STALE_CLAIM_MS` (the server died during the send) is settled, once, with the route's
 * "interrupted" answer.
 *
 * Keys are kept `IDEMPOTENCY_KEY_TTL_MS`; older ones are deleted by the next idempotent request
 * at most every `EXPIRY_SWEEP_MS` (one DELETE on the `created_at` index), so a key is
 * forgotten between 24 hours and 24 hours and a minute after it was first used.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { Db, DbOrTx } from '../db/database';
import { AppError } from './errors';
import {
  claimIdempotencyKey,
  deleteIdempotencyKeysBefore,
  findIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type StoredAnswer,
} from './idempotency-repo';

export type { StoredAnswer };

/** How long a key is remembered (the draft leaves it to the server; the outbox retries for less). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
/** A claim in progress for longer than this was abandoned (its server stopped mid-request). */
export const STALE_CLAIM_MS = 60_000;
/** Expired keys are deleted at most this often per process. */
export const EXPIRY_SWEEP_MS = 60_000;

/** What idempotency needs: the database and the server's clock (the flows' in tests). */
export interface IdempotencyOptions {
  db: Db;
  now(): Date;
}

/** A write with an external effect, in two steps. */
export interface ExternalWrite {
  /**
   * Checks the request and resolves with the effect to perform; anything it throws means
   * nothing was done (the claim is given up, so a corrected repeat may proceed).
   */
  prepare(): Promise<() => Promise<StoredAnswer>>;
  /** The final answer of a request whose effect may or may not have happened. */
  interrupted: StoredAnswer;
}

/** The request's `Idempotency-Key`, null without one; a malformed one is a 400. */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (raw === undefined) return null;
  // A header sent twice arrives joined with ", " or as a list: never a valid key.
  const parsed = IdempotencyKey.safeParse(Array.isArray(raw) ? raw.join(', ') : raw);
  if (!parsed.success) {
    throw new AppError('INVALID_IDEMPOTENCY_KEY', parsed.error.issues[0]?.message);
  }
  return parsed.data;
}

/** JSON with every object's keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** SHA-256 of what makes a request the same request: method, route, path parameters, body. */
export function requestFingerprint(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? request.url;
  return createHash('sha256')
    .update(canonicalJson([request.method, route, request.params ?? {}, request.body ?? null]))
    .digest('hex');
}

/** Sends an answer; `replayed` marks one given again for a repeated key. */
function send(reply: FastifyReply, answer: StoredAnswer, replayed = false): FastifyReply {
  if (replayed) reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return reply.status(answer.statusCode).send(answer.body);
}

/** Applies writes that carry an `Idempotency-Key` once per user and key. */
export class Idempotency {
  #lastSweepMs = -Infinity;

  constructor(private readonly options: IdempotencyOptions) {}

  /**
   * Runs a write whose effects are all in the database: `effect` gets the transaction that also
   * claims the key and stores its answer (or the database itself, without a key).
   */
  async transactional(
    request: FastifyRequest,
    reply: FastifyReply,
    effect: (db: DbOrTx) => Promise<StoredAnswer>,
  ): Promise<FastifyReply> {
    const key = idempotencyKeyOf(request);
    if (key === null) return send(reply, await effect(this.options.db));
    const claim = this.#claimOf(request, key);
    await this.#sweep(request);
    const result = await this.options.db.transaction(async (tx) => {
      const id = await claimIdempotencyKey(tx, claim);
      if (id === null) return { answer: await this.#repeat(tx, claim), replayed: true };
      const answer = await effect(tx);
      await storeIdempotentAnswer(tx, id, answer);
      return { answer, replayed: false };
    });
    return send(reply, result.answer, result.replayed);
  }

  /**
   * Runs a write with an external effect (an SMS): the key is claimed in its own statement,
   * `prepare` checks the request, then the effect runs and its answer is stored.
   */
  async external(
    request: FastifyRequest,
    reply: FastifyReply,
    write: ExternalWrite,
  ): Promise<FastifyReply> {
    const key = idempotencyKeyOf(request);
    if (key === null) return send(reply, await (await write.prepare())());
    const { db } = this.options;
    const claim = this.#claimOf(request, key);
    await this.#sweep(request);
    const id = await claimIdempotencyKey(db, claim);
    if (id === null) return send(reply, await this.#repeat(db, claim, write.interrupted), true);

    let perform: () => Promise<StoredAnswer>;
    try {
      perform = await write.prepare();
    } catch (error) {
      await releaseIdempotencyKey(db, id).catch((failure: unknown) =>
        request.log.warn({ err: failure }, 'could not give up an idempotency key'),
      );
      throw error;
    }
    let answer: StoredAnswer;
    try {
      answer = await perform();
    } catch (error) {
      // The effect may have happened: a repeat must not perform it again.
      await storeIdempotentAnswer(db, id, write.interrupted).catch((failure: unknown) =>
        request.log.warn({ err: failure }, 'could not settle an idempotency key'),
      );
      throw error;
    }
    // The effect happened: this request says so even if the answer cannot be stored (a repeat
    // then gets the interrupted answer once the claim is stale).
    await storeIdempotentAnswer(db, id, answer).catch((failure: unknown) =>
      request.log.error({ err: failure }, 'could not store an idempotent answer'),
    );
    return send(reply, answer);
  }

  /** The claim of this request: user, key, fingerprint, time. */
  #claimOf(request: FastifyRequest, key: string) {
    return {
      userId: sessionOf(request).user.id,
      key,
      fingerprint: requestFingerprint(request),
      at: this.options.now(),
    };
  }

  /**
   * The answer to a repeat of a key the user already holds: the stored one; 422 for another
   * request; 409 while the first is running; the interrupted answer (stored once) for a claim
   * abandoned longer than `STALE_CLAIM_MS` ago.
   */
  async #repeat(
    db: DbOrTx,
    claim: { userId: number; key: string; fingerprint: string; at: Date },
    interrupted?: StoredAnswer,
  ): Promise<StoredAnswer> {
    const row = await findIdempotencyKey(db, claim.userId, claim.key);
    // Gone since the claim conflicted (given up or expired): the client's retry starts afresh.
    if (!row) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
    if (row.fingerprint !== claim.fingerprint) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (row.statusCode !== null) return { statusCode: row.statusCode, body: row.response };
    const staleBefore = new Date(claim.at.getTime() - STALE_CLAIM_MS);
    if (!interrupted || row.createdAt >= staleBefore) {
      throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
    }
    if (await storeIdempotentAnswer(db, row.id, interrupted, staleBefore)) return interrupted;
    // Settled meanwhile (by the request itself or another repeat): answer what was stored.
    const settled = await findIdempotencyKey(db, claim.userId, claim.key);
    if (settled?.statusCode == null) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
    return { statusCode: settled.statusCode, body: settled.response };
  }

  /** Deletes expired keys, at most every `EXPIRY_SWEEP_MS`; a failure only delays it. */
  async #sweep(request: FastifyRequest): Promise<void> {
    const nowMs = this.options.now().getTime();
    if (nowMs - this.#lastSweepMs < EXPIRY_SWEEP_MS) return;
    this.#lastSweepMs = nowMs;
    await deleteIdempotencyKeysBefore(
      this.options.db,
      new Date(nowMs - IDEMPOTENCY_KEY_TTL_MS),
    ).catch((error: unknown) =>
      request.log.warn({ err: error }, 'could not delete expired idempotency keys'),
    );
  }
}
