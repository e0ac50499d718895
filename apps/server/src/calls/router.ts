/**
 * The router: offers a call to one agent at a time, as a call center does. It picks the
 * longest idle eligible agent (online, available, not on or rung for a call, not wrapping up,
 * in the team, not tried yet for this call), records the ring, rings their devices and arms
 * the ring timer. It decides nothing about the call's status: the flows act on what it answers
 * (`rang`, or why nobody could be offered it).
 *
 * Picking and recording a ring run one at a time per account (`accountLock`), so two calls
 * arriving together never ring the same agent.
 */
import type { CallType } from '@leadline/contracts';
import { identityOf } from '../auth/access-token';
import type { Db } from '../db/database';
import type { CallReason } from '../db/schema';
import { isOpen } from '../profiles/availability';
import type { AgentRole, Telephony } from '../telephony/telephony';
import {
  callUsersOf,
  insertCallUser,
  ringingCallUsers,
  updateCallUser,
  type CallRow,
  type CallUserRow,
} from './calls-repo';
import {
  nextEligibleAgent,
  unstaffedReason,
  type ProfileRow,
  type RoutableAgent,
} from './routing-repo';

/** Timers and time, injectable for tests. */
export interface FlowClock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How a call user of each type takes part in the call. */
export const ROLE_OF: Record<CallType, AgentRole> = {
  lead: 'agent',
  transfer: 'agent',
  conference: 'conference',
  listen: 'listen',
  whisper: 'whisper',
  barge: 'barge',
};

/** What to offer, to whom. */
export interface OfferRequest {
  /** `lead`: the call's agent; `transfer`: an agent taking the call over from `invitedByUserId`. */
  type: 'lead' | 'transfer';
  /** The team to offer it to; default: the profile's team (none: every agent). */
  teamId?: number | null;
  /** Offered to this agent first if they are eligible (Retry: the agent who asked). */
  preferUserId?: number;
  /** Offered to these agents only (Check for lead; a transfer to one agent). */
  onlyUserIds?: number[];
  /** Never offered to these (a transfer's requester). */
  excludeUserIds?: number[];
  /** Who asked for the ring (transfers). */
  invitedByUserId?: number;
  /** Whether the profile's availability hours apply (new leads; not a call already on). */
  checkHours?: boolean;
  /** The call's profile when the caller has just read it (else the router reads it). */
  profile?: ProfileRow | null;
}

/** Why nobody could be offered a call. */
export type NobodyReason = Extract<
  CallReason,
  'no-agent-answered' | 'all-agents-busy' | 'no-agents-online' | 'outside-hours'
>;

/** What an offer came to. */
export type OfferResult =
  | { kind: 'rang'; agent: RoutableAgent; callUser: CallUserRow }
  | { kind: 'nobody'; reason: NobodyReason };

/** What the router decided for a call not stored yet (`offerNew`). */
export type NewCallDecision =
  { kind: 'rang'; agent: RoutableAgent } | { kind: 'nobody'; reason: NobodyReason };

/** What the router needs. */
export interface RouterOptions {
  db: Db;
  telephony: Telephony;
  clock: FlowClock;
  /** A profile's routing settings (remembered for a while: read for every lead). */
  profileOf(profileId: number | null): Promise<ProfileRow | null>;
  /** Ring time when the profile sets none (`AGENT_RING_TIMEOUT_MS`). */
  ringTimeoutMs: number;
  /** Runs `task` alone among the account's routing decisions. */
  accountLock<T>(accountId: number, task: () => Promise<T>): Promise<T>;
  /** A ring timed out: the flows take it from here. */
  onRingTimeout(callSid: string, callUserId: number): void;
}

/** The router. */
export class Router {
  /** Ring timers by call-user id. */
  readonly #timers = new Map<number, unknown>();

  constructor(private readonly options: RouterOptions) {}

  /**
   * Offers `call` to the next eligible agent: rings them and resolves with the ring, or with
   * why nobody could be rung (outside hours; nobody left who was not tried; everyone busy;
   * nobody online). Agents whose devices cannot be rung are recorded as missed and skipped.
   */
  async offer(call: CallRow, request: OfferRequest): Promise<OfferResult> {
    const { db, clock } = this.options;
    const profile =
      request.profile !== undefined
        ? request.profile
        : await this.options.profileOf(call.profileId);
    if (request.checkHours && !isOpen(profile?.availability, clock.now())) {
      return { kind: 'nobody', reason: 'outside-hours' };
    }
    const teamId = request.teamId === undefined ? (profile?.teamId ?? null) : request.teamId;
    for (;;) {
      const picked = await this.options.accountLock(call.accountId, async () => {
        const agent = await nextEligibleAgent(db, {
          accountId: call.accountId,
          teamId,
          callId: call.id,
          now: clock.now(),
          ...(request.preferUserId === undefined ? {} : { preferUserId: request.preferUserId }),
          ...(request.onlyUserIds ? { onlyUserIds: request.onlyUserIds } : {}),
          ...(request.excludeUserIds ? { excludeUserIds: request.excludeUserIds } : {}),
        });
        if (!agent) return null;
        const callUser = await insertCallUser(db, {
          callId: call.id,
          userId: agent.id,
          type: request.type,
          autoaccept: request.type === 'lead' ? agent.autoaccept : false,
          invitedByUserId: request.invitedByUserId ?? null,
          teamId: request.type === 'transfer' ? teamId : null,
        });
        return { agent, callUser };
      });
      if (!picked) return { kind: 'nobody', reason: await this.#whyNobody(call, request, teamId) };
      const { agent, callUser } = picked;
      const rung = await this.options.telephony.ringAgent(
        call.sid,
        identityOf(agent.id),
        { From: `client:${callUser.id}`, To: call.phoneNumber ?? '' },
        { role: ROLE_OF[request.type] },
      );
      if (rung === 0) {
        await updateCallUser(db, callUser.id, { outcome: 'missed' });
        continue;
      }
      this.armRingTimer(
        call.sid,
        callUser.id,
        profile?.ringTimeoutMs ?? this.options.ringTimeoutMs,
      );
      return { kind: 'rang', agent, callUser };
    }
  }

  /**
   * Offers a call that is not stored yet (a new web lead): decides first, then `store` writes
   * the call as the decision makes it (rung: born `ringing`, with its ring; nobody: why), inside
   * the account's lock like every pick and the ring it records; then rings. A new call has
   * nobody tried yet and is written once, so this takes half the statements of storing a call
   * and then offering it. If the picked agent's devices cannot be rung, the stored call goes on
   * through `offer` like any other.
   */
  async offerNew(
    accountId: number,
    profile: ProfileRow | null,
    store: (decision: NewCallDecision) => Promise<{ call: CallRow; callUser: CallUserRow | null }>,
  ): Promise<{ call: CallRow; result: OfferResult }> {
    const { db, clock } = this.options;
    if (!isOpen(profile?.availability, clock.now())) {
      const { call } = await store({ kind: 'nobody', reason: 'outside-hours' });
      return { call, result: { kind: 'nobody', reason: 'outside-hours' } };
    }
    const teamId = profile?.teamId ?? null;
    const decided = await this.options.accountLock(accountId, async () => {
      const agent = await nextEligibleAgent(db, { accountId, teamId, now: clock.now() });
      if (!agent) return null;
      return { agent, ...(await store({ kind: 'rang', agent })) };
    });
    if (!decided) {
      const reason = await unstaffedReason(db, accountId, teamId);
      const { call } = await store({ kind: 'nobody', reason });
      return { call, result: { kind: 'nobody', reason } };
    }
    const { agent, call, callUser } = decided;
    if (!callUser) throw new Error('A rung call was stored without its ring.');
    const rung = await this.options.telephony.ringAgent(
      call.sid,
      identityOf(agent.id),
      { From: `client:${callUser.id}`, To: call.phoneNumber ?? '' },
      { role: ROLE_OF.lead },
    );
    if (rung === 0) {
      await updateCallUser(db, callUser.id, { outcome: 'missed' });
      return { call, result: await this.offer(call, { type: 'lead', profile }) };
    }
    this.armRingTimer(call.sid, callUser.id, profile?.ringTimeoutMs ?? this.options.ringTimeoutMs);
    return { call, result: { kind: 'rang', agent, callUser } };
  }

  /**
   * Nobody eligible is left: some agent of the team may free up (all busy), or nobody of it is
   * online and available; if the call was already offered to someone who did not take it and
   * nobody else is busy, nobody answered.
   */
  async #whyNobody(
    call: CallRow,
    request: OfferRequest,
    teamId: number | null,
  ): Promise<NobodyReason> {
    const { db } = this.options;
    const tried = (await callUsersOf(db, call.id)).some(
      (cu) => cu.type === request.type && (cu.outcome === 'rejected' || cu.outcome === 'missed'),
    );
    if (request.onlyUserIds) return tried ? 'no-agent-answered' : 'all-agents-busy';
    const unstaffed = await unstaffedReason(db, call.accountId, teamId, call.id);
    if (unstaffed === 'all-agents-busy') return 'all-agents-busy';
    return tried ? 'no-agent-answered' : unstaffed;
  }

  /** Rings of a call that are still going (flows use it to know whether someone may take it). */
  ringing(callId: number): Promise<CallUserRow[]> {
    return ringingCallUsers(this.options.db, callId);
  }

  /** Arms the timer after which an unanswered ring moves on. */
  armRingTimer(callSid: string, callUserId: number, ms: number): void {
    this.cancelRingTimer(callUserId);
    this.#timers.set(
      callUserId,
      this.options.clock.setTimeout(() => {
        this.#timers.delete(callUserId);
        this.options.onRingTimeout(callSid, callUserId);
      }, ms),
    );
  }

  /** Stops a ring's timer (it was answered, refused, or the call ended). */
  cancelRingTimer(callUserId: number): void {
    const timer = this.#timers.get(callUserId);
    if (timer !== undefined) this.options.clock.clearTimeout(timer);
    this.#timers.delete(callUserId);
  }

  /** Stops every timer. */
  stop(): void {
    for (const timer of this.#timers.values()) this.options.clock.clearTimeout(timer);
    this.#timers.clear();
  }
}
