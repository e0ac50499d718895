/**
 * Signed provider webhooks already handled (`webhook_receipts`), so a callback the provider
 * repeats (a retry after a timeout, a duplicate delivery) changes nothing twice, on whichever
 * instance it lands: each webhook names its receipt (Twilio's status callbacks by CallSid, status
 * and SequenceNumber; see `twilio-webhooks.ts` and `presence-webhooks.ts`), and only the first
 * request to record a receipt is handled. A receipt is one insert that does nothing when the key
 * is there, so two instances given the same callback at once handle it once.
 *
 * Receipts older than {@link WEBHOOK_RECEIPT_TTL_MS} are deleted ({@link WebhookReceipts.sweep},
 * started by a receipt at most once per {@link WEBHOOK_RECEIPT_SWEEP_MS} on each instance):
 * providers repeat within minutes, so a day covers their retries and the table stays a day deep.
 */
import { lt } from 'drizzle-orm';
import type { Db } from '../db/database';
import { webhookReceipts } from '../db/schema';

/** How long a receipt is kept. */
export const WEBHOOK_RECEIPT_TTL_MS = 24 * 3_600_000;

/** At most this often each instance deletes the receipts older than the TTL. */
export const WEBHOOK_RECEIPT_SWEEP_MS = 10 * 60_000;

/** Longest key kept: a provider's fields are short; anything longer is cut. */
const MAX_KEY_LENGTH = 400;

/** Options of {@link WebhookReceipts}. */
export interface WebhookReceiptsOptions {
  db: Db;
  /** The clock (tests move it); default the system's. */
  now?: () => Date;
  /** Hears a sweep that failed (a receipt that fails rejects instead). */
  onSweepError?: (error: unknown) => void;
}

/** The webhooks already handled, shared by every instance on the database. */
export class WebhookReceipts {
  readonly #db: Db;
  readonly #now: () => Date;
  readonly #onSweepError: (error: unknown) => void;
  #lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: WebhookReceiptsOptions) {
    this.#db = options.db;
    this.#now = options.now ?? (() => new Date());
    this.#onSweepError = options.onSweepError ?? (() => undefined);
  }

  /**
   * Records the receipt `key`; resolves true when this is its first delivery (handle it), false
   * when any instance recorded it before (a repeat: handle nothing).
   */
  async firstTime(key: string): Promise<boolean> {
    const now = this.#now();
    if (now.getTime() - this.#lastSweepAt >= WEBHOOK_RECEIPT_SWEEP_MS) {
      this.#lastSweepAt = now.getTime();
      this.sweep().catch(this.#onSweepError);
    }
    const inserted = await this.#db
      .insert(webhookReceipts)
      .values({ key: key.slice(0, MAX_KEY_LENGTH), receivedAt: now })
      .onConflictDoNothing({ target: webhookReceipts.key })
      .returning({ key: webhookReceipts.key });
    return inserted.length > 0;
  }

  /** Deletes the receipts older than {@link WEBHOOK_RECEIPT_TTL_MS}; resolves with how many. */
  async sweep(): Promise<number> {
    const before = new Date(this.#now().getTime() - WEBHOOK_RECEIPT_TTL_MS);
    const deleted = await this.#db
      .delete(webhookReceipts)
      .where(lt(webhookReceipts.receivedAt, before))
      .returning({ key: webhookReceipts.key });
    return deleted.length;
  }
}

/** A receipt key's part: the field as sent, `-` when absent. */
export const receiptPart = (value: string | undefined): string =>
  value === undefined || value === '' ? '-' : value.slice(0, 64);
