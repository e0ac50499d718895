/**
 * The router: offers a call to one agent at a time, as a call center does. It picks the
 * longest idle eligible agent (online, available, not on or rung for a call, not wrapping up,
 * in the team, not tried yet for this call), records the ring, rings their devices and arms
 * the ring timer. It decides nothing about the call's status: the flows act on what it answers
 * (`rang`, or why nobody could be offered it).
 *
 * Picks run one at a time per account (`accountLock`), so two calls arriving together never
 * ring the same agent: `offer` records the ring inside the lock before ringing; `offerNew` (a
 * new lead, picked from `CandidateCache`) rings first and holds the agent back from every pick
 * (`#pending`) until its ring is recorded.
 *
 * Each ring that went out, and each call it put back in the queue, is told to `floorChanged`
 * (the supervisors' floor) once stored.
 */
import type { CallType } from '@leadline/contracts';
import { and, eq } from 'drizzle-orm';
import { identityOf } from '../auth/access-token';
import type { Db } from '../db/database';
import { QUEUED } from '../calls/call-status';
import { IdBlocks } from '../db/id-blocks';
import { routingChanged } from '../db/routing-changes';
import { calls, type CallReason } from '../db/schema';
import type { FloorChanged } from '../calls/floor-changes';
import { isOpen } from '../profiles/availability';
import type { AgentRole, Telephony } from '../telephony/telephony';
import { CandidateCache } from './candidate-cache';
import {
  CALL_USERS_ID_SEQUENCE,
  callUsersOf,
  ringingCallUsers,
  transitionCall,
  updateCallUser,
  type CallRow,
  type CallUserRow,
} from '../calls/calls-repo';
import {
  endRing,
  isUniqueViolation,
  RESERVE_ATTEMPTS,
  reserveAgent,
  reserveParticipant,
  type ParticipantRing,
} from './reservations';
import { RingSweeper } from './ring-sweeper';
import { unstaffedReason, type ProfileRow, type RoutableAgent } from './routing-repo';
import type { Clock } from '../lib/clock';

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
  | {
      kind: 'rang';
      agent: RoutableAgent;
      /** The ring's id, as the agent's device was told (`client:<id>`). */
      callUserId: number;
      /** Always `ringing`: the ring is stored (reserved) before the agent's devices ring. */
      outcome: 'ringing' | 'missed';
      /** When the ring's reservation expires (now + the ring timeout). */
      expiresAt: Date;
    }
  | { kind: 'nobody'; reason: NobodyReason };

/** What the router needs. */
export interface RouterOptions {
  db: Db;
  telephony: Telephony;
  clock: Clock;
  /** A profile's routing settings (remembered for a while: read for every lead). */
  profileOf(profileId: number | null): Promise<ProfileRow | null>;
  /** Ring time when the profile sets none (`AGENT_RING_TIMEOUT_MS`). */
  ringTimeoutMs: number;
  /** Runs `task` alone among the account's routing decisions. */
  accountLock<T>(accountId: number, task: () => Promise<T>): Promise<T>;
  /**
   * A ring timed out: the flows take it from here. Called by the ring's own timer on the
   * instance that rang, or by any instance's sweeper once its reservation expired.
   */
  onRingTimeout(callSid: string, callUserId: number): void;
  /** A sweep of due rings failed (the next one tries again). */
  onSweepError?(error: unknown): void;
  /** Agents of the account finished wrapping up while leads wait: drain its queue. */
  onWrapUpsEnded?(accountId: number): void;
  /** How often this instance sweeps due rings (`RING_SWEEP_MS`). */
  ringSweepMs?: number;
  /** Hears each ring that started (`ringing`) or put a call back in the queue (`queued`). */
  floorChanged?: FloorChanged;
}

/** The router. */
export class Router {
  /** Ring timers by call-user id. */
  readonly #timers = new Map<number, unknown>();
  /** Per account, agents picked for a new call whose ring is not stored yet (`offerNew`). */
  readonly #pending = new Map<number, Set<number>>();
  /** Per account, agents kept out of every pick (`holdBack`: a network test on their phone). */
  readonly #heldBack = new Map<number, Set<number>>();
  /** Ids of rings announced before they are stored. */
  readonly #callUserIds: IdBlocks;
  /** Whom new leads can be offered to, remembered between leads. */
  readonly #candidates: CandidateCache;
  /** Moves on rings whose reservation expired, whichever instance rang (durable timers). */
  readonly #sweeper: RingSweeper;

  constructor(private readonly options: RouterOptions) {
    this.#callUserIds = new IdBlocks(options.db, CALL_USERS_ID_SEQUENCE);
    this.#candidates = new CandidateCache(options.db);
    this.#sweeper = new RingSweeper({
      db: options.db,
      clock: options.clock,
      onDue: (callSid, callUserId) => {
        this.cancelRingTimer(callUserId);
        options.onRingTimeout(callSid, callUserId);
      },
      onError: (error) => options.onSweepError?.(error),
      onWrapUpsEnded: (accountId) => options.onWrapUpsEnded?.(accountId),
      ...(options.ringSweepMs === undefined ? {} : { intervalMs: options.ringSweepMs }),
    });
  }

  /** Starts sweeping due rings (the flows start it with their other timers). */
  start(): void {
    this.#sweeper.start();
  }

  /** Sweeps due rings now (tests; the sweeper does it every `ringSweepMs`). */
  sweepDueRings(): Promise<number> {
    return this.#sweeper.sweep();
  }

  /**
   * Ends a ring still going as `outcome`; resolves with whether this call ended it (a
   * compare-and-set: of the ring's timer, a sweeper, Ignore and a device error, one wins).
   */
  endRing(callUserId: number, outcome: 'rejected' | 'missed'): Promise<boolean> {
    return endRing(this.options.db, callUserId, outcome);
  }

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
    const ringTimeoutMs = profile?.ringTimeoutMs ?? this.options.ringTimeoutMs;
    for (;;) {
      const picked = await this.options.accountLock(call.accountId, () =>
        reserveAgent(db, {
          accountId: call.accountId,
          teamId,
          callId: call.id,
          now: clock.now(),
          ...(request.preferUserId === undefined ? {} : { preferUserId: request.preferUserId }),
          ...(request.onlyUserIds ? { onlyUserIds: request.onlyUserIds } : {}),
          excludeUserIds: [
            ...(request.excludeUserIds ?? []),
            ...(this.#pending.get(call.accountId) ?? []),
            ...(this.#heldBack.get(call.accountId) ?? []),
          ],
          type: request.type,
          invitedByUserId: request.invitedByUserId ?? null,
          ringTeamId: request.type === 'transfer' ? teamId : null,
          expiresAt: new Date(clock.now().getTime() + ringTimeoutMs),
        }),
      );
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
      this.armRingTimer(call.sid, callUser.id, ringTimeoutMs);
      this.options.floorChanged?.(call, 'ringing');
      return { kind: 'rang', agent, callUser };
    }
  }

  /**
   * Rings a named user into a live call (a conference invitation, a supervisor): stores the
   * ring with its expiry (refused, null, when a conference invitee holds a live reservation
   * already), rings their devices (none rang: missed, null) and arms the ring timer.
   */
  async ringParticipant(
    call: CallRow,
    ring: Omit<ParticipantRing, 'callId' | 'expiresAt'>,
  ): Promise<CallUserRow | null> {
    const { db, clock } = this.options;
    const profile = await this.options.profileOf(call.profileId);
    const ringTimeoutMs = profile?.ringTimeoutMs ?? this.options.ringTimeoutMs;
    const callUser = await reserveParticipant(db, {
      ...ring,
      callId: call.id,
      expiresAt: new Date(clock.now().getTime() + ringTimeoutMs),
    });
    if (!callUser) return null;
    const rung = await this.options.telephony.ringAgent(
      call.sid,
      identityOf(ring.userId),
      { From: `client:${callUser.id}`, To: call.phoneNumber ?? '' },
      { role: ROLE_OF[ring.type] },
    );
    if (rung === 0) {
      await updateCallUser(db, callUser.id, { outcome: 'missed' });
      return null;
    }
    this.armRingTimer(call.sid, callUser.id, ringTimeoutMs);
    this.options.floorChanged?.(call, 'ringing');
    return callUser;
  }

  /**
   * Offers a call waiting in the queue (a drain): claims it, reserves the next eligible agent
   * and moves it to `ringing` in one transaction, then rings them. The claim locks the call's
   * row `for update skip locked` while it is still `queued`, so two instances draining at once
   * never offer one waiting call twice: the one that finds it locked or no longer queued is
   * told `taken` and goes on to the next. Nobody eligible: the call stays queued, untouched.
   */
  async offerQueued(
    call: CallRow,
    request: Pick<OfferRequest, 'onlyUserIds' | 'checkHours'> = {},
  ): Promise<OfferResult | { kind: 'taken' }> {
    const { db, clock } = this.options;
    const profile = await this.options.profileOf(call.profileId);
    if (request.checkHours && !isOpen(profile?.availability, clock.now())) {
      return { kind: 'nobody', reason: 'outside-hours' };
    }
    const teamId = profile?.teamId ?? null;
    const ringTimeoutMs = profile?.ringTimeoutMs ?? this.options.ringTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      let claimed;
      try {
        claimed = await this.options.accountLock(call.accountId, () =>
          db.transaction(async (tx) => {
            const [fresh] = await tx
              .select()
              .from(calls)
              .where(and(eq(calls.id, call.id), eq(calls.status, QUEUED)))
              .for('update', { skipLocked: true });
            if (!fresh) return { kind: 'taken' as const };
            const reserved = await reserveAgent(tx, {
              accountId: call.accountId,
              teamId,
              callId: call.id,
              now: clock.now(),
              ...(request.onlyUserIds ? { onlyUserIds: request.onlyUserIds } : {}),
              excludeUserIds: [
                ...(this.#pending.get(call.accountId) ?? []),
                ...(this.#heldBack.get(call.accountId) ?? []),
              ],
              type: 'lead',
              invitedByUserId: null,
              ringTeamId: null,
              expiresAt: new Date(clock.now().getTime() + ringTimeoutMs),
              attempts: 1,
            });
            if (!reserved) return { kind: 'nobody' as const };
            const ringing = await transitionCall(tx, fresh, 'ring', { reason: null });
            return {
              kind: 'rang' as const,
              ...reserved,
              call: ringing,
              waitingSince: fresh.waitingSince,
            };
          }),
        );
      } catch (error) {
        // Lost the agent to another reservation at the same moment: the transaction is
        // rolled back, the claim with it; try again (the next agent).
        if (isUniqueViolation(error) && attempt < RESERVE_ATTEMPTS) continue;
        throw error;
      }
      if (claimed.kind === 'taken') return claimed;
      if (claimed.kind === 'nobody') {
        const why = { type: 'lead' as const, ...request };
        return { kind: 'nobody', reason: await this.#whyNobody(call, why, teamId) };
      }
      const { agent, callUser, call: ringing } = claimed;
      const rung = await this.options.telephony.ringAgent(
        ringing.sid,
        identityOf(agent.id),
        { From: `client:${callUser.id}`, To: ringing.phoneNumber ?? '' },
        { role: ROLE_OF.lead },
      );
      if (rung > 0) {
        this.armRingTimer(ringing.sid, callUser.id, ringTimeoutMs);
        // Claimed and rung: the call left the queue.
        this.options.floorChanged?.(ringing, 'ringing');
        return { kind: 'rang', agent, callUser };
      }
      await updateCallUser(db, callUser.id, { outcome: 'missed' });
      const next = await this.offer(ringing, { type: 'lead', profile, ...request });
      if (next.kind === 'nobody') {
        // Back to the queue as it waited (its place kept).
        await transitionCall(db, ringing, 'wait', {
          reason: next.reason,
          waitingSince: claimed.waitingSince ?? ringing.createdAt,
        });
        this.options.floorChanged?.(ringing, 'queued');
      }
      return next;
    }
  }

  /**
   * Offers a call that is not stored yet (a new web lead): picks the agent, rings them, and then
   * has `store` write the call as the decision made it (rung: born `ringing`, with its ring under
   * the id the agent's device was told; nobody: why). The ring goes out before anything is
   * written, so the lead reaches the agent as soon as an agent is known: until its row is
   * stored, the agent is held back from every other pick (`#pending`), and the call's own
   * events wait in its queue behind this task. If the agent's devices cannot be rung, the
   * stored call goes on through `offer` like any other.
   */
  async offerNew(
    accountId: number,
    profile: ProfileRow | null,
    call: { sid: string; to: string },
    store: (decision: NewCallDecision) => Promise<{ call: CallRow; callUser: CallUserRow | null }>,
  ): Promise<{ call: CallRow; result: OfferResult }> {
    const { clock } = this.options;
    if (!isOpen(profile?.availability, clock.now())) {
      const { call: stored } = await store({ kind: 'nobody', reason: 'outside-hours' });
      return { call: stored, result: { kind: 'nobody', reason: 'outside-hours' } };
    }
    const teamId = profile?.teamId ?? null;
    const pending = this.#pendingOf(accountId);
    const { agent, staffed } = await this.options.accountLock(accountId, async () => {
      const held = this.#heldBack.get(accountId);
      const excluded = held?.size ? new Set([...pending, ...held]) : pending;
      const candidate = await this.#candidates.take(accountId, teamId, clock.now(), excluded);
      if (candidate.agent) pending.add(candidate.agent.id);
      return candidate;
    });
    if (!agent) {
      const reason = staffed ? 'all-agents-busy' : 'no-agents-online';
      const { call: stored } = await store({ kind: 'nobody', reason });
      return { call: stored, result: { kind: 'nobody', reason } };
    }
    const ringTimeoutMs = profile?.ringTimeoutMs ?? this.options.ringTimeoutMs;
    let stored: { call: CallRow; callUser: CallUserRow | null };
    try {
      const callUserId = await this.#callUserIds.take();
      // Reserved before it rings: the stored ring is the lock (another instance's memory may
      // have picked the same agent; the database refuses the second live ring).
      stored = await store({
        kind: 'rang',
        agent,
        callUserId,
        outcome: 'ringing',
        expiresAt: new Date(clock.now().getTime() + ringTimeoutMs),
      });
    } catch (error) {
      // Taken from the memory of eligible agents but not rung: they are eligible again.
      routingChanged();
      pending.delete(agent.id);
      throw error;
    }
    pending.delete(agent.id);
    const { callUser } = stored;
    if (!callUser) {
      // The database refused the reservation (the agent was rung or got busy meanwhile,
      // perhaps through another instance): the stored call goes on to the next agent.
      routingChanged();
      return {
        call: stored.call,
        result: await this.offer(stored.call, { type: 'lead', profile }),
      };
    }
    const rung = await this.options.telephony.ringAgent(
      call.sid,
      identityOf(agent.id),
      { From: `client:${callUser.id}`, To: call.to },
      { role: ROLE_OF.lead },
    );
    if (rung === 0) {
      await updateCallUser(this.options.db, callUser.id, { outcome: 'missed' });
      return {
        call: stored.call,
        result: await this.offer(stored.call, { type: 'lead', profile }),
      };
    }
    this.armRingTimer(call.sid, callUser.id, ringTimeoutMs);
    this.options.floorChanged?.(stored.call, 'ringing');
    return { call: stored.call, result: { kind: 'rang', agent, callUser } };
  }

  /**
   * Keeps the agent out of every pick of the account until the returned release is called (a
   * network test on their phone: nothing rings them meanwhile; waiting leads stay queued or go
   * to other agents). Decided under the account's routing lock, so no pick is half-way: resolves
   * null, holding nothing, when a new lead's ring is on its way to them or `isBusy` says they
   * are rung for or on a call. After the release they are eligible again (the remembered lists,
   * which left them out, are read afresh); the caller reports them free so waiting leads come.
   */
  async holdBack(
    accountId: number,
    userId: number,
    isBusy: () => Promise<boolean>,
  ): Promise<(() => void) | null> {
    return this.options.accountLock(accountId, async () => {
      if (this.#pending.get(accountId)?.has(userId) || (await isBusy())) return null;
      let held = this.#heldBack.get(accountId);
      if (!held) this.#heldBack.set(accountId, (held = new Set()));
      held.add(userId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(userId);
        routingChanged();
      };
    });
  }

  /** Agents of the account picked for a new call whose ring is not stored yet. */
  #pendingOf(accountId: number): Set<number> {
    let pending = this.#pending.get(accountId);
    if (!pending) {
      pending = new Set();
      this.#pending.set(accountId, pending);
    }
    return pending;
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

  /** Stops every timer and the sweeper. */
  stop(): void {
    this.#sweeper.stop();
    for (const timer of this.#timers.values()) this.options.clock.clearTimeout(timer);
    this.#timers.clear();
  }
}
