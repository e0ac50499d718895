/**
 * The SMS port: the follow-up text after a call goes through an `SmsSender`. The embedded
 * default is the sandbox outbox (`SandboxSmsSender`); production plugs in a real provider
 * (Twilio Messaging) behind the same interface. `SmsService` stores every message with what
 * the sender answered, so the account's outbox shows sent and refused messages alike. A message
 * is stored before it is handed over (`reserve`, inside the dial guard's admission, so the SMS
 * rate limits count it at once), as interrupted until the sender answers (`deliver`).
 */
import { and, desc, eq } from 'drizzle-orm';
import { resolveNumber, SANDBOX_NUMBER_PLAN } from '@leadline/voice';
import type { Db, DbOrTx } from '../db/database';
import { smsMessages } from '../db/schema';

/** One message to send. */
export interface OutgoingSms {
  /** The account's number it is sent from (E.164), or null for the provider's default. */
  from: string | null;
  /** The lead's number (E.164). */
  to: string;
  body: string;
}

/** What a sender answers: handed over (with its id for the message), or refused and why. */
export type SmsResult = { ok: true; providerId: string } | { ok: false; error: string };

/** A way to send SMS. */
export interface SmsSender {
  send(message: OutgoingSms): Promise<SmsResult>;
}

/**
 * The embedded sender: the sandbox phone network takes the message (it lands in the outbox)
 * when the number exists in the sandbox, and refuses it as a real provider would otherwise.
 */
export class SandboxSmsSender implements SmsSender {
  #next = 1;

  send(message: OutgoingSms): Promise<SmsResult> {
    const behaviour = resolveNumber(SANDBOX_NUMBER_PLAN, message.to);
    if (behaviour.kind === 'unanswered' && behaviour.reason === 'failed') {
      return Promise.resolve({ ok: false, error: `${message.to} cannot receive text messages.` });
    }
    return Promise.resolve({ ok: true, providerId: `SM-sandbox-${this.#next++}` });
  }
}

/** A stored message, as the sandbox outbox lists it. */
export interface SmsRecord {
  id: number;
  call_id: number;
  user_id: number;
  from: string | null;
  to: string;
  body: string;
  status: 'sent' | 'failed';
  error: string | null;
  created_at: string;
}

/** What a message stored before its send says until the sender answers. */
export const SMS_INTERRUPTED_ERROR = 'Sending was interrupted; the SMS may not have been sent.';

/** Who sends a message, for which call. */
export interface SmsContext {
  accountId: number;
  callId: number;
  userId: number;
}

/** Sends follow-up texts through the sender and keeps each one with its outcome. */
export class SmsService {
  constructor(
    private readonly db: Db,
    private readonly sender: SmsSender,
  ) {}

  /** Sends `message` for a call; resolves with the sender's answer (a refusal is not thrown). */
  async send(context: SmsContext, message: OutgoingSms): Promise<SmsResult> {
    return this.deliver(await this.reserve(this.db, context, message), message);
  }

  /**
   * Stores `message` before it is sent (`db`: the dial guard's transaction), as interrupted
   * until `deliver` stores the sender's answer; resolves with its id.
   */
  async reserve(db: DbOrTx, context: SmsContext, message: OutgoingSms): Promise<number> {
    const [row] = await db
      .insert(smsMessages)
      .values({
        accountId: context.accountId,
        callId: context.callId,
        userId: context.userId,
        toNumber: message.to,
        fromNumber: message.from,
        body: message.body,
        status: 'failed',
        error: SMS_INTERRUPTED_ERROR,
      })
      .returning({ id: smsMessages.id });
    return row!.id;
  }

  /** Hands the reserved message `id` to the sender and stores its answer. */
  async deliver(id: number, message: OutgoingSms): Promise<SmsResult> {
    let result: SmsResult;
    try {
      result = await this.sender.send(message);
    } catch (error) {
      result = { ok: false, error: `The SMS could not be sent: ${(error as Error).message}` };
    }
    await this.db
      .update(smsMessages)
      .set({
        status: result.ok ? 'sent' : 'failed',
        error: result.ok ? null : result.error,
        providerId: result.ok ? result.providerId : null,
      })
      .where(eq(smsMessages.id, id));
    return result;
  }

  /** The account's messages, newest first (the sandbox outbox). */
  async outbox(accountId: number, limit = 100): Promise<SmsRecord[]> {
    const rows = await this.db
      .select()
      .from(smsMessages)
      .where(and(eq(smsMessages.accountId, accountId)))
      .orderBy(desc(smsMessages.id))
      .limit(limit);
    return rows.map((row) => ({
      id: row.id,
      call_id: row.callId,
      user_id: row.userId,
      from: row.fromNumber,
      to: row.toNumber,
      body: row.body,
      status: row.status,
      error: row.error,
      created_at: row.createdAt.toISOString(),
    }));
  }
}
