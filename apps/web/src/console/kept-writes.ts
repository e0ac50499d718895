/**
 * The after-call writes (disposition, tag, note, SMS) through the persistent outbox: each is
 * stored in the browser before it is sent, sent in order with an `Idempotency-Key`, and retried
 * until the server has it, so a Wi-Fi blink between Hang Up and Save loses nothing and the agent
 * can take the next call meanwhile. The SMS view waits for its first attempt, so a refusal (the
 * server's `error`) shows in its banner; a network failure lets the agent move on.
 */
import type { Disposition, NoteBody } from '@leadline/contracts';
import {
  ApiError,
  NetworkError,
  SessionExpiredError,
  WRITE_PATHS,
  type ApiClient,
} from '../api/api-client';
import { WebError } from '../errors';
import type { Outbox, OutboxSend } from '../outbox/outbox';
import type { OutboxResult } from '../outbox/send-outcome';
import { NETWORK_FAILURE, classifyResponse } from '../outbox/send-outcome';
import type { AfterCallWrites } from './console-controller';

/** Labels of the writes, as the Saving… indicator and its error line name them. */
export const WRITE_LABELS = {
  disposition: 'Call Result',
  tag: 'Tag',
  note: 'Note',
  sms: 'SMS',
  wrapUpDone: 'Ready for the next lead',
} as const;

/** See the module comment. */
export class KeptWrites implements AfterCallWrites {
  readonly #outbox: Outbox;
  readonly #api: ApiClient;
  #userId: number | null = null;

  constructor(outbox: Outbox, api: ApiClient) {
    this.#outbox = outbox;
    this.#api = api;
  }

  /** Starts (or resumes, after a reload) sending `userId`'s kept writes with this session. */
  start(userId: number): void {
    this.#userId = userId;
    this.#outbox.start(userId, { send: this.#send });
  }

  /**
   * Stops sending (logout, user change) and waits for a request already on its way; nothing
   * kept is deleted: it is sent when this user next signs in here.
   */
  async stop(): Promise<void> {
    this.#userId = null;
    this.#outbox.stop();
    await this.#outbox.settled();
  }

  async setDisposition(callId: number, status: Disposition): Promise<void> {
    await this.#keep(WRITE_LABELS.disposition, WRITE_PATHS.disposition(callId), { status });
  }

  async setTag(callId: number, key: string): Promise<void> {
    await this.#keep(WRITE_LABELS.tag, WRITE_PATHS.tag(callId), { key });
  }

  async addNote(body: NoteBody): Promise<void> {
    await this.#keep(WRITE_LABELS.note, WRITE_PATHS.note(), body);
  }

  async endWrapUp(): Promise<void> {
    await this.#keep(WRITE_LABELS.wrapUpDone, WRITE_PATHS.wrapUpDone(), {});
  }

  async sendSms(callId: number, smsbody: string): Promise<'sent' | 'queued'> {
    // The SMS view shows a refusal of the first attempt in its banner.
    const { firstAttempt } = await this.#keep(
      WRITE_LABELS.sms,
      WRITE_PATHS.sms(callId),
      { smsbody },
      true,
    );
    const result = await firstAttempt;
    if (result.kind === 'refused') throw new ApiError(result.status, result.error);
    return result.kind === 'done' ? 'sent' : 'queued';
  }

  /**
   * Stores the write; resolves once it is stored, with its first attempt's outcome still to come
   * (wrapped: an async function returning the promise itself would wait for it).
   */
  async #keep(
    label: string,
    path: string,
    body: unknown,
    showsRefusal = false,
  ): Promise<{ firstAttempt: Promise<OutboxResult> }> {
    const userId = this.#userId;
    if (userId === null) {
      throw new WebError('IllegalTransitionError', 'Nobody is signed in to save this for.');
    }
    const { firstAttempt } = await this.#outbox.enqueue({
      userId,
      method: 'POST',
      path,
      body,
      label,
      showsRefusal,
    });
    return { firstAttempt };
  }

  readonly #send: OutboxSend = async (entry, { signal }) => {
    try {
      const { status, payload } = await this.#api.sendKeyed(
        entry.method,
        entry.path,
        entry.body,
        entry.key,
        signal,
      );
      return classifyResponse(status, payload);
    } catch (error) {
      // The session ended (the page reloads to the login view): keep the write for this user's
      // next sign-in rather than dropping it as refused.
      if (error instanceof SessionExpiredError) return { kind: 'retry', reason: error.message };
      if (error instanceof NetworkError) return NETWORK_FAILURE;
      throw error;
    }
  };
}
