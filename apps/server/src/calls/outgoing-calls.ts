/**
 * The calls an agent places: New Call from the console (the call and the agent's call user are
 * stored, then the softphone connects with `call_user_id`), and a device dialling a number
 * itself. Both pass the toll-fraud guard (`dial-guard.ts`); the number is dialled from the
 * call's caller number. A New Call the softphone never connects is withdrawn.
 */
import { toE164, type OutboundCallBody } from '@leadline/contracts';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import type { OutgoingCallDecision } from '@leadline/voice';
import { identityOf } from '../auth/access-token';
import type { Db, DbOrTx } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { AppError } from '../http/errors';
import { findLeadByPhone, insertLead, type LeadRow } from '../leads/leads-repo';
import type { SettingsCache } from '../profiles/settings-cache';
import type { Telephony } from '../telephony/telephony';
import type { AgentPresence } from '../users/agent-presence';
import { findUserById, touchLastCall, type UserRow } from '../users/users-repo';
import { isQueued } from './call-status';
import { userIdOf } from './call-participants';
import {
  bornAs,
  closeCallUsers,
  findCallById,
  findCallBySid,
  findLiveParticipation,
  findUserCallUser,
  insertCall,
  insertCallUser,
  transitionCall,
  updateCallUser,
  type CallRow,
  type CallUserRow,
} from './calls-repo';
import { LOGIN_ENDED_MESSAGE, type DialGuard } from './dial-guard';
import type { FloorChanged } from './floor-changes';
import type { Clock } from '../lib/clock';

/** What placing calls works with: the flows' parts and their number choices. */
export interface OutgoingHost {
  db: Db;
  telephony: Telephony;
  clock: Clock;
  presence: Pick<AgentPresence, 'endWrapUpQuietly' | 'refresh'>;
  dialGuard: DialGuard;
  settings: Pick<SettingsCache, 'defaultCallerNumber'>;
  /** How long the console has to connect a New Call (`OUTBOUND_CONNECT_TIMEOUT_MS`). */
  connectTimeoutMs: number;
  /** Runs `task` alone for the call (`CallFlows.exclusive`). */
  exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T>;
  /** Queues `task` behind the earlier tasks of `key`. */
  run(key: string, task: () => Promise<void>): Promise<void>;
  /** Runs `work` in a transaction whose writes routing then sees. */
  transaction(work: (tx: DbOrTx) => Promise<void>): Promise<void>;
  /** The number a call dials from. */
  callerNumberOf(call: CallRow): Promise<string | null>;
  /** A caller number the user chose, checked against their account. */
  callerNumberId(user: UserRow, callerId: number | undefined): Promise<number | null>;
  /** The profile of the account's lead with this number, or the default profile. */
  leadProfile(accountId: number, phoneNumber: string): Promise<number | null>;
  /** The number a call for a lead of `profileId` goes out from. */
  fromNumber(
    accountId: number,
    callerNumberId: number | null,
    profileId: number | null,
  ): Promise<{ id: number; phoneNumber: string } | null>;
  /** Tells the floor a call moved (`floor-changes.ts`). */
  floorChanged: FloorChanged;
}

/** The console connects an outbound call it asked for within this, or the call is withdrawn. */
export const OUTBOUND_CONNECT_TIMEOUT_MS = 30_000;

/** Refusals of outgoing calls, as the device receives them. */
const OUTGOING_ERRORS = {
  unknownCaller: { code: SignallingErrorCode.AccessTokenInvalid, message: 'Unknown caller.' },
  callNotFound: {
    code: SignallingErrorCode.CallNotFound,
    message: 'This call was not found or is already over.',
  },
  invalidNumber: {
    code: SignallingErrorCode.InvalidNumber,
    message: 'The To number is not a valid phone number.',
  },
  loginEnded: { code: SignallingErrorCode.Declined, message: LOGIN_ENDED_MESSAGE },
} as const;

/** A refusal of the dial guard (or the flows) as the device receives it. */
const declined = (error: AppError) => ({
  error: { code: SignallingErrorCode.Declined, message: error.message },
});

/** The calls agents place. */
export class OutgoingCalls {
  readonly #host: OutgoingHost;

  constructor(host: OutgoingHost) {
    this.#host = host;
  }

  /**
   * Outbound (spec section 4): the agent places a call from the console. The call and the
   * agent's call user are created here; the device then connects with `call_user_id` and the
   * lead is dialled from the chosen caller number (see `authorizeOutgoing`).
   */
  async placeOutbound(
    user: UserRow,
    body: OutboundCallBody,
  ): Promise<{ call: CallRow; callUser: CallUserRow; lead: LeadRow }> {
    const callerNumberId = await this.#host.callerNumberId(user, body.caller_id);
    if (await findLiveParticipation(this.#host.db, user.accountId, user.id)) {
      throw new AppError('ALREADY_ON_CALL');
    }
    if (!this.#host.telephony.isOnline(identityOf(user.id))) {
      throw new AppError('PHONE_OFFLINE');
    }
    const profileId = await this.#host.leadProfile(user.accountId, body.phone_number);
    const from = await this.#host.fromNumber(user.accountId, callerNumberId, profileId);
    // One call being placed per agent, counted against the limits: the guard's admission stores
    // the lead, the call and the agent's call user, or nothing.
    const { lead, call, callUser } = await this.#host.dialGuard.admit(
      user,
      { kind: 'call', to: body.phone_number, from: from?.phoneNumber ?? null, oneAtATime: true },
      async (tx) => {
        const lead = await findOrCreateLead(tx, user.accountId, profileId, body);
        const call = await insertCall(tx, {
          ...leadCallValues(lead, 'outbound'),
          callerNumberId: from?.id ?? null,
          userId: user.id,
        });
        const callUser = await insertCallUser(tx, {
          callId: call.id,
          userId: user.id,
          type: 'lead',
          autoaccept: true,
        });
        return { lead, call, callUser };
      },
      ({ call }) => call.id,
    );
    routingChanged();
    await this.#host.presence.endWrapUpQuietly(user.id);
    // A console that never connects (closed, crashed) must not leave the agent busy for good.
    this.#host.clock.setTimeout(
      () => void this.#host.run(call.sid, () => this.#notConnected(call.id)),
      this.#host.connectTimeoutMs,
    );
    return { call, callUser, lead };
  }

  /** An outbound call whose device never connected is withdrawn; the agent is free. */
  async #notConnected(callId: number): Promise<void> {
    const call = await findCallById(this.#host.db, callId);
    if (call) await this.withdrawUnconnected(call);
  }

  /** Cancels an outbound call whose softphone never connected; the agent is routable again. */
  async withdrawUnconnected(call: CallRow): Promise<void> {
    if (!isQueued(call.status) || call.source !== 'outbound') return;
    const now = this.#host.clock.now();
    await this.#host.transaction(async (tx) => {
      await closeCallUsers(tx, call.id, now);
      await transitionCall(tx, call, 'cancel', { endedAt: now });
    });
    this.#host.floorChanged(call, 'ended');
    if (call.userId !== null) await this.#host.presence.refresh(call.userId);
  }

  /**
   * Decides an outgoing call a device placed: with `call_user_id` (the console's outbound
   * flow) it connects that call; with only `To` it records a new call to that number. The
   * number is dialled from the call's caller number.
   */
  async authorizeOutgoing(
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision> {
    const userId = userIdOf(identity);
    const user = userId === null ? null : await findUserById(this.#host.db, userId);
    if (!user) return { error: OUTGOING_ERRORS.unknownCaller };
    // A token outlives its login (Twilio's by up to an hour): the login must still be on.
    if (!(await this.#host.dialGuard.hasLiveLogin(user.id)))
      return { error: OUTGOING_ERRORS.loginEnded };
    if (params.call_user_id !== undefined) {
      const callUserId = Number(params.call_user_id);
      const found = Number.isSafeInteger(callUserId)
        ? await findUserCallUser(this.#host.db, user.id, callUserId)
        : null;
      if (!found || !isQueued(found.call.status) || !found.call.phoneNumber) {
        return { error: OUTGOING_ERRORS.callNotFound };
      }
      const { call, callUser } = found;
      return this.#host.exclusive(call.sid, async () => {
        const fresh = await findCallBySid(this.#host.db, call.sid);
        if (!fresh || !isQueued(fresh.status)) return { error: OUTGOING_ERRORS.callNotFound };
        // Admitted when it was placed; where it goes is checked again (the policy may have
        // changed since), and a call refused now is withdrawn.
        try {
          const from = await this.#host.callerNumberOf(fresh);
          await this.#host.dialGuard.check(user, { kind: 'call', to: fresh.phoneNumber!, from });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          await this.withdrawUnconnected(fresh);
          return declined(error);
        }
        const now = this.#host.clock.now();
        await updateCallUser(this.#host.db, callUser.id, { outcome: 'accepted', answeredAt: now });
        const live = await transitionCall(this.#host.db, fresh, 'connect', { userId: user.id });
        this.#host.floorChanged(live, 'answered');
        await touchLastCall(this.#host.db, user.id, now);
        await this.#host.presence.refresh(user.id);
        return this.#outgoingDecision(live, live.phoneNumber!);
      });
    }
    const to = toE164(params.To ?? '', user.countryCode);
    if (!to) return { error: OUTGOING_ERRORS.invalidNumber };
    if (await findLiveParticipation(this.#host.db, user.accountId, user.id)) {
      return declined(new AppError('ALREADY_ON_CALL'));
    }
    const callerNumber = await this.#host.settings.defaultCallerNumber(user.accountId, null);
    let call: CallRow;
    try {
      call = await this.#host.dialGuard.admit(
        user,
        { kind: 'call', to, from: callerNumber?.phoneNumber ?? null, oneAtATime: true },
        async (tx) => {
          const placed = await insertCall(tx, {
            accountId: user.accountId,
            leadId: null,
            profileId: null,
            phoneNumber: to,
            type: 'lead',
            direction: 'outbound',
            source: 'outbound',
            status: bornAs('connect'),
            userId: user.id,
            callerNumberId: callerNumber?.id ?? null,
          });
          await insertCallUser(tx, {
            callId: placed.id,
            userId: user.id,
            type: 'lead',
            autoaccept: true,
            outcome: 'accepted',
            answeredAt: this.#host.clock.now(),
          });
          return placed;
        },
        (placed) => placed.id,
      );
    } catch (error) {
      if (error instanceof AppError) return declined(error);
      throw error;
    }
    routingChanged();
    this.#host.floorChanged(call, 'answered');
    await touchLastCall(this.#host.db, user.id, this.#host.clock.now());
    await this.#host.presence.refresh(user.id);
    return this.#outgoingDecision(call, to);
  }

  /**
   * The engine dials the number itself for a client-placed call: record the phone party it
   * will report (its events carry the id the engine gives it) once they come.
   */
  async #outgoingDecision(call: CallRow, dial: string): Promise<OutgoingCallDecision> {
    const from = await this.#host.callerNumberOf(call);
    return { callSid: call.sid, dial, ...(from ? { from } : {}) };
  }
}

/**
 * The account's lead with this number (its names brought up to date), or a new one of
 * `profileId` (the default profile).
 */
export async function findOrCreateLead(
  db: DbOrTx,
  accountId: number,
  profileId: number | null,
  body: { fname: string; lname: string; phone_number: string },
): Promise<LeadRow> {
  return (
    (await findLeadByPhone(db, accountId, body)) ??
    insertLead(db, accountId, profileId, {
      fname: body.fname,
      lname: body.lname,
      phone_number: body.phone_number,
    })
  );
}

/** A call to a lead the console asked for (New Call, Retry), before its caller number. */
export function leadCallValues(lead: LeadRow, source: 'outbound' | 'retry') {
  return {
    accountId: lead.accountId,
    leadId: lead.id,
    profileId: lead.profileId,
    phoneNumber: lead.phoneNumber,
    type: 'lead',
    direction: 'outbound',
    source,
  } as const;
}
