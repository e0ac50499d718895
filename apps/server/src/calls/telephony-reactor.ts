/**
 * The telephony event reactor: what the flows do when the voice engine or Twilio reports
 * something about a call. A device came or went; an agent answered, refused or left; a phone
 * party answered, did not, or hung up; a recording is ready; digits were sent. Each event runs
 * in its call's turn of the flows' queue (`CallFlows.exclusive`), so it sees the call as the
 * previous event left it. What a call's ending needs (finishing it, offering it again, wrap-up)
 * belongs to the flows and is reached through the host.
 */
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { identityOf } from '../auth/access-token';
import type { Db } from '../db/database';
import type { CallReason } from '../db/schema';
import type { Router } from '../routing/router';

import type { Telephony, TelephonyEvent } from '../telephony/telephony';
import type { AgentPresence } from '../users/agent-presence';
import { touchLastCall } from '../users/users-repo';
import { isConnected, isFinal, isRinging, type CallEvent } from './call-status';
import { userIdOf, WRAPS_UP } from './call-participants';
import type { FloorChanged } from './floor-changes';
import {
  activeParticipants,
  closeCallUsers,
  findCallBySid,
  findCallPhone,
  findCallUserOf,
  insertCallPhone,
  livePhones,
  ringingCallUsers,
  settleCallUsers,
  transitionCall,
  updateCall,
  updateCallPhone,
  updateCallUser,
  type CallRow,
  type CallUserRow,
  type DbOrTx,
} from './calls-repo';
import type { Clock } from '../lib/clock';

/** What the agent's device is told when the lead cannot be reached. */
export const UNANSWERED_ERRORS = {
  busy: { code: SignallingErrorCode.Busy, message: "The lead's phone is busy." },
  'no-answer': { code: SignallingErrorCode.NoAnswer, message: 'The lead did not answer.' },
  failed: {
    code: SignallingErrorCode.InvalidNumber,
    message: "The lead's number could not be reached.",
  },
} as const;

/** How a phone party's ring ended. */
export type PhoneOutcome = 'answered' | keyof typeof UNANSWERED_ERRORS;

/** A phone that did not answer: how the call ends, and why. */
const LEAD_UNANSWERED: Record<
  keyof typeof UNANSWERED_ERRORS,
  { event: CallEvent; reason: CallReason }
> = {
  busy: { event: 'lead-busy', reason: 'lead-busy' },
  'no-answer': { event: 'lead-no-answer', reason: 'lead-no-answer' },
  failed: { event: 'lead-failed', reason: 'lead-failed' },
};

/** Where a call's recording is served (to users of the call's account only). */
export const recordingUrlOf = (callId: number): string => `/api/v1/calls/${callId}/recording`;

/** A logger (pino's shape). */
export interface ReactorLogger {
  info(obj: object, msg?: string): void;
}

/** What the reactor works with: the flows' parts, and the flows' own steps it triggers. */
export interface ReactorHost {
  db: Db;
  telephony: Telephony;
  log: ReactorLogger;
  clock: Clock;
  router: Pick<Router, 'cancelRingTimer'>;
  presence: Pick<AgentPresence, 'deviceOnline' | 'refresh'>;
  /** An added lead's phone answered or did not (`CallFlows.addLead` waits for it). */
  settleAddedLead(participantId: string, outcome: PhoneOutcome): void;
  /** The call's recording is written (a shutdown may wait for it). */
  recordingReady(callSid: string): void;
  /** A rung user did not take the call: it moves on. */
  notAnswered(callUser: CallUserRow, outcome: 'rejected' | 'missed'): Promise<void>;
  /** The call is over: everyone leaves, its length is stored, its agents wrap up. */
  finish(call: CallRow, event?: CallEvent, reason?: CallReason): Promise<void>;
  /** Someone left: the call goes on, waits on hold, is offered again, or is over. */
  afterLeave(call: CallRow, offerAgain?: boolean): Promise<void>;
  /** The agents who worked a call wrap up. */
  wrapUp(call: CallRow, participants: CallUserRow[]): Promise<void>;
  /** Dials a number into the call from its caller number; resolves with the party's id. */
  dial(call: CallRow, number: string): Promise<string>;
  /**
   * Why the call may not dial `number` now (the dial guard's sentence: the policy or the
   * ceiling may have changed since the call was asked for), or null when it may.
   */
  dialRefusal(call: CallRow, number: string): Promise<string | null>;
  /** The number a call dials from. */
  callerNumberOf(call: CallRow): Promise<string | null>;
  /** Runs `work` in a transaction whose writes routing then sees. */
  transaction(work: (tx: DbOrTx) => Promise<void>): Promise<void>;
  /** Tells the floor a call moved (`floor-changes.ts`). */
  floorChanged: FloorChanged;
}

/** Reacts to the telephony provider's events. */
export class TelephonyReactor {
  readonly #host: ReactorHost;

  constructor(host: ReactorHost) {
    this.#host = host;
  }

  /** Acts on one event (inside the call's or the user's turn of the flows' queue). */
  async onEvent(event: TelephonyEvent): Promise<void> {
    if (event.type === 'device.online' || event.type === 'device.offline') {
      const userId = userIdOf(event.identity);
      if (userId !== null)
        await this.#host.presence.deviceOnline(userId, event.type === 'device.online');
      return;
    }
    if (event.type === 'recording.ready') this.#host.recordingReady(event.callSid);
    const call = await findCallBySid(this.#host.db, event.callSid);
    if (!call) return;
    switch (event.type) {
      case 'agent.answered':
        return this.#agentAnswered(call, event.identity);
      case 'agent.rejected': {
        const userId = userIdOf(event.identity);
        const callUser =
          userId === null ? null : await findCallUserOf(this.#host.db, call.id, userId, 'ringing');
        if (callUser) await this.#host.notAnswered(callUser, 'rejected');
        return;
      }
      case 'agent.left':
        return this.#agentLeft(call, event.identity);
      case 'phone.answered':
        return this.#phoneAnswered(call, event.participantId);
      case 'phone.unanswered':
        return this.#phoneUnanswered(call, event.participantId, event.reason);
      case 'phone.left':
        return this.#phoneLeft(call, event.participantId);
      case 'recording.ready':
        await updateCall(this.#host.db, call.id, {
          recordingPath: event.path,
          recordingUrl: recordingUrlOf(call.id),
        });
        return;
      case 'dtmf':
        // Never the digits themselves (card numbers, PINs): how many were sent.
        this.#host.log.info(
          { callId: call.id, source: event.source, digitCount: event.digits.length },
          'dtmf',
        );
        return;
      default:
        return;
    }
  }

  /** The phone party's row, recording a party the engine dialled for a client-placed call. */
  async #phoneOf(call: CallRow, participantId: string) {
    const known = await findCallPhone(this.#host.db, participantId);
    if (known) return known;
    if (call.source !== 'outbound' || !call.phoneNumber) return null;
    return insertCallPhone(this.#host.db, {
      callId: call.id,
      participantId,
      direction: 'outbound',
      phoneNumber: call.phoneNumber,
      fromNumber: await this.#host.callerNumberOf(call),
    });
  }

  async #phoneAnswered(call: CallRow, participantId: string): Promise<void> {
    const phone = await this.#phoneOf(call, participantId);
    if (!phone) return;
    const now = this.#host.clock.now();
    await updateCallPhone(this.#host.db, phone.id, { state: 'answered', answeredAt: now });
    this.#host.settleAddedLead(participantId, 'answered');
    if (isConnected(call.status) && !call.answeredAt) {
      // A web lead's talk starts when its phone answers: the floor counts it answered now.
      await updateCall(this.#host.db, call.id, { answeredAt: now });
      this.#host.floorChanged(call, 'answered');
    }
  }

  async #phoneUnanswered(
    call: CallRow,
    participantId: string,
    failure: keyof typeof UNANSWERED_ERRORS,
  ): Promise<void> {
    const phone = await this.#phoneOf(call, participantId);
    if (!phone) return;
    await updateCallPhone(this.#host.db, phone.id, { state: 'unanswered', failure });
    this.#host.settleAddedLead(participantId, failure);
    // Someone else is still on the line (the lead an agent added a number to): the call goes on.
    if ((await livePhones(this.#host.db, call.id)).length > 0) return;
    if (!isConnected(call.status)) return;
    this.#host.telephony.hangup(call.sid, UNANSWERED_ERRORS[failure]);
    const { event, reason } = LEAD_UNANSWERED[failure];
    await this.#host.finish(call, event, reason);
  }

  async #phoneLeft(call: CallRow, participantId: string): Promise<void> {
    const phone = await this.#phoneOf(call, participantId);
    if (phone)
      await updateCallPhone(this.#host.db, phone.id, {
        state: 'left',
        leftAt: this.#host.clock.now(),
      });
    if (isFinal(call.status)) return;
    if ((await livePhones(this.#host.db, call.id)).length > 0) return;
    if (isRinging(call.status)) {
      // The inbound caller hung up while agents were rung: nobody is left to talk to.
      const rung = await ringingCallUsers(this.#host.db, call.id);
      for (const ring of rung) this.#host.router.cancelRingTimer(ring.id);
      this.#host.telephony.hangup(call.sid);
      const now = this.#host.clock.now();
      await this.#host.transaction(async (tx) => {
        await closeCallUsers(tx, call.id, now);
        await transitionCall(tx, call, 'abandon', { reason: 'caller-hung-up', endedAt: now });
      });
      this.#host.floorChanged(call, 'ended');
      for (const ring of rung) await this.#host.presence.refresh(ring.userId);
      return;
    }
    await this.#host.finish(call);
  }

  async #agentAnswered(call: CallRow, identity: string): Promise<void> {
    const userId = userIdOf(identity);
    if (userId === null) return;
    const callUser = await findCallUserOf(this.#host.db, call.id, userId, 'ringing');
    if (!callUser) {
      // Answered a ring that is over (it timed out, or the call went on without them: a late
      // answer, or one whose instance died before telling its flows): their browser is taken
      // out of the call rather than left listening in. An agent already on the call is a repeat.
      const joined = await findCallUserOf(this.#host.db, call.id, userId, 'accepted');
      if (!joined || joined.leftAt !== null) this.#host.telephony.removeAgent(call.sid, identity);
      return;
    }
    this.#host.router.cancelRingTimer(callUser.id);
    const now = this.#host.clock.now();
    if (callUser.type === 'lead' && isRinging(call.status)) {
      // The lead's number passes the dial guard again before it is dialled: a web lead was
      // checked at intake, a Retry when asked for, and the policy may have changed since.
      const number = await this.#numberToDial(call);
      const refusal = number === null ? null : await this.#host.dialRefusal(call, number);
      if (refusal !== null) return this.#dialRefused(call, refusal);
      // The ring accepted and the call answered together: an instance that dies in between must
      // not leave an agent on a call that is still ringing.
      await this.#leadTaken(call, callUser, now);
      this.#host.floorChanged(call, 'answered');
      await this.#host.presence.refresh(userId);
      return;
    }
    await updateCallUser(this.#host.db, callUser.id, { outcome: 'accepted', answeredAt: now });
    switch (callUser.type) {
      case 'lead':
        await this.#leadTaken(call, callUser, now);
        break;
      case 'transfer':
        await this.#transferTaken(call, callUser, now);
        break;
      case 'conference':
        // A second agent joined: the call is a conference from now on (banner and history).
        if (call.type !== 'conference')
          await updateCall(this.#host.db, call.id, { type: 'conference' });
        break;
      default:
        break;
    }
    this.#host.floorChanged(call, 'answered');
    await this.#host.presence.refresh(userId);
  }

  /** An agent took a lead call: it is theirs; the lead is dialled unless already on the line. */
  async #leadTaken(call: CallRow, callUser: CallUserRow, now: Date): Promise<void> {
    const userId = callUser.userId;
    await touchLastCall(this.#host.db, userId, now);
    if (isRinging(call.status)) {
      const inbound = call.direction === 'inbound';
      await this.#host.transaction(async (tx) => {
        await updateCallUser(tx, callUser.id, { outcome: 'accepted', answeredAt: now });
        await settleCallUsers(tx, call.id, 'canceled');
        // Inbound: the caller is already on the line, so the talk starts now.
        await transitionCall(tx, call, 'answer', {
          userId,
          ...(inbound ? { answeredAt: now } : {}),
        });
      });
      const number = await this.#numberToDial(call);
      if (number !== null) await this.#host.dial(call, number);
      return;
    }
    if (isConnected(call.status)) {
      // Taken back after the agent who had it left: the lead comes off hold.
      await updateCall(this.#host.db, call.id, { userId, held: false });
      if (call.held) this.#host.telephony.unhold(call.sid);
    }
  }

  /** The number a lead call taken now dials: its lead's, unless inbound or on the line already. */
  async #numberToDial(call: CallRow): Promise<string | null> {
    if (call.direction === 'inbound' || !call.phoneNumber) return null;
    const phones = await livePhones(this.#host.db, call.id);
    return phones.length === 0 ? call.phoneNumber : null;
  }

  /**
   * The lead's number may not be dialled (`refusal`, the guard's sentence): nothing is dialled,
   * the call ends for everyone (`canceled`, reason `dial-refused`), the agents rung for it are
   * free again and not wrapping up, and the agent's device is told why (the hangup's error).
   */
  async #dialRefused(call: CallRow, refusal: string): Promise<void> {
    const rung = await ringingCallUsers(this.#host.db, call.id);
    for (const ring of rung) this.#host.router.cancelRingTimer(ring.id);
    this.#host.telephony.hangup(call.sid, { code: SignallingErrorCode.Declined, message: refusal });
    const now = this.#host.clock.now();
    await this.#host.transaction(async (tx) => {
      await closeCallUsers(tx, call.id, now);
      await transitionCall(tx, call, 'cancel', { reason: 'dial-refused', endedAt: now });
    });
    this.#host.floorChanged(call, 'ended');
    for (const ring of rung) await this.#host.presence.refresh(ring.userId);
    this.#host.log.info({ callId: call.id, refusal }, 'the lead was not dialled: refused');
  }

  /** The transfer's target answered: the agent who asked leaves, the lead is theirs. */
  async #transferTaken(call: CallRow, callUser: CallUserRow, now: Date): Promise<void> {
    await touchLastCall(this.#host.db, callUser.userId, now);
    await updateCall(this.#host.db, call.id, { userId: callUser.userId, held: false });
    if (call.held) this.#host.telephony.unhold(call.sid);
    await settleCallUsers(this.#host.db, call.id, 'canceled');
    const requester = callUser.invitedByUserId;
    if (requester === null || requester === callUser.userId) return;
    const handedOver = (await activeParticipants(this.#host.db, call.id)).filter(
      (p) => p.userId === requester,
    );
    if (handedOver.length === 0) return;
    for (const p of handedOver) await updateCallUser(this.#host.db, p.id, { leftAt: now });
    this.#host.telephony.removeAgent(call.sid, identityOf(requester));
    await this.#host.wrapUp(call, handedOver);
  }

  async #agentLeft(call: CallRow, identity: string): Promise<void> {
    const userId = userIdOf(identity);
    if (userId === null) return;
    const ringing = await findCallUserOf(this.#host.db, call.id, userId, 'ringing');
    if (ringing) return this.#host.notAnswered(ringing, 'missed');
    const joined = await findCallUserOf(this.#host.db, call.id, userId, 'accepted');
    if (joined && joined.leftAt === null) {
      await updateCallUser(this.#host.db, joined.id, { leftAt: this.#host.clock.now() });
      if (WRAPS_UP.has(joined.type)) await this.#host.wrapUp(call, [joined]);
      else await this.#host.presence.refresh(userId);
    }
    if (!isFinal(call.status)) await this.#host.afterLeave(call);
  }
}
