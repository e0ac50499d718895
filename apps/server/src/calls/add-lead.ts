/**
 * Add Lead (`conferencelead`): a lead's phone is dialled into a live call that has none, from
 * the call's caller number, after the toll-fraud guard (`dial-guard.ts`); the agent's request
 * waits until the phone answers or does not (or `timeoutMs`), and a lead who does not answer
 * leaves the call as it was.
 */
import type { ConferenceLeadBody } from '@leadline/contracts';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { insertLead, type LeadRow } from '../leads/leads-repo';
import type { Telephony } from '../telephony/telephony';
import type { UserRow } from '../users/users-repo';
import { isConnected } from './call-status';
import { activeParticipants, findCallBySid, updateCall, type CallRow } from './calls-repo';
import type { DialGuard } from './dial-guard';
import type { PhoneOutcome } from './telephony-reactor';
import type { Clock } from '../lib/clock';

/** An added lead answers or fails within this (the sandbox's no-answer number rings 30 s). */
export const ADD_LEAD_TIMEOUT_MS = 45_000;

/** What the added lead's phone did. */
const ADD_LEAD_MESSAGES = {
  busy: "The lead's phone is busy.",
  'no-answer': 'The lead did not answer.',
  failed: "The lead's number could not be reached.",
  timeout: 'The lead did not answer in time.',
} as const;

/** What an added lead's phone did. */
export type AddLeadOutcome = 'answered' | keyof typeof ADD_LEAD_MESSAGES;

/** What Add Lead works with: the flows' parts. */
export interface AddLeadHost {
  db: Db;
  telephony: Telephony;
  clock: Clock;
  dialGuard: DialGuard;
  /** Longest wait for the added lead's phone (`ADD_LEAD_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Runs `task` alone for the call (`CallFlows.exclusive`). */
  exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T>;
  /** Dials a number into the call from its caller number; resolves with the party's id. */
  dial(call: CallRow, number: string): Promise<string>;
  /** The number a call dials from. */
  callerNumberOf(call: CallRow): Promise<string | null>;
}

/** Adds leads to live calls. */
export class AddLeadFlow {
  readonly #host: AddLeadHost;
  /** Added leads whose phones have not answered or failed yet, by participant id. */
  readonly #addedLeads = new Map<string, (outcome: AddLeadOutcome) => void>();

  constructor(host: AddLeadHost) {
    this.#host = host;
  }

  /** The added lead's phone answered or did not (the telephony reactor reports it). */
  settle(participantId: string, outcome: PhoneOutcome): void {
    this.#addedLeads.get(participantId)?.(outcome);
  }

  /**
   * Add Lead (`conferencelead`): a lead joins the user's call that has none; its phone is
   * dialled from the call's caller number. Resolves once the phone answered or did not: an
   * added lead who does not answer leaves the call as it was.
   */
  async addLead(
    call: CallRow,
    user: UserRow,
    body: ConferenceLeadBody,
  ): Promise<{ call: CallRow; lead: LeadRow; outcome: AddLeadOutcome; message: string | null }> {
    const { lead, participantId, settled } = await this.#host.exclusive(call.sid, async () => {
      const fresh = await findCallBySid(this.#host.db, call.sid);
      if (!fresh || !isConnected(fresh.status)) throw new AppError('CALL_NOT_ACTIVE');
      const mine = (await activeParticipants(this.#host.db, fresh.id)).find(
        (p) => p.userId === user.id,
      );
      if (!mine) throw new AppError('NOT_ON_CALL');
      if (fresh.leadId !== null) throw new AppError('CALL_HAS_LEAD');
      const from = await this.#host.callerNumberOf(fresh);
      // A dial of its own: checked and counted as the agent's, like New Call.
      const added = await this.#host.dialGuard.admit(
        user,
        { kind: 'call', to: body.phone_number, from, oneAtATime: true },
        async (tx) => {
          const added = await insertLead(tx, user.accountId, fresh.profileId, {
            fname: body.fname,
            lname: body.lname,
            phone_number: body.phone_number,
          });
          await updateCall(tx, fresh.id, { leadId: added.id });
          return added;
        },
        () => fresh.id,
      );
      const dialled = await this.#host.dial(fresh, added.phoneNumber);
      const outcome = new Promise<AddLeadOutcome>((resolve) =>
        this.#addedLeads.set(dialled, resolve),
      );
      return { lead: added, participantId: dialled, settled: outcome };
    });
    const timeout = this.#host.timeoutMs;
    let timer: unknown;
    const outcome = await Promise.race([
      settled,
      new Promise<AddLeadOutcome>((resolve) => {
        timer = this.#host.clock.setTimeout(() => resolve('timeout'), timeout);
      }),
    ]);
    this.#host.clock.clearTimeout(timer);
    this.#addedLeads.delete(participantId);
    return this.#host.exclusive(call.sid, async () => {
      const fresh = (await findCallBySid(this.#host.db, call.sid)) ?? call;
      if (outcome === 'answered') return { call: fresh, lead, outcome, message: null };
      if (outcome === 'timeout') this.#host.telephony.hangupPhone(call.sid, participantId);
      // The call goes on without the lead; the agent may try another number.
      if (fresh.leadId === lead.id) await updateCall(this.#host.db, fresh.id, { leadId: null });
      return {
        call: { ...fresh, leadId: null },
        lead,
        outcome,
        message: ADD_LEAD_MESSAGES[outcome],
      };
    });
  }
}
