/**
 * Call flows: what happens to a call from its start to hang-up. The flows decide (which agent
 * to ring, when to dial the lead, who takes over on a transfer, when a call is over) and
 * persist; the telephony provider carries the audio and reports events. Everything that
 * touches one call (its events and the agents' commands) runs one at a time (`exclusive`).
 *
 * Lead call: intake → ring the longest idle available agent (`From: client:<call_user_id>`)
 * → the agent answers → dial the lead → the lead answers (seconds count from here) → either
 * side hangs up → the whole call ends. Inbound: the caller is already on the line; the agent
 * answering starts the talk. Outbound: the agent places the call from the console.
 * Participants join as transfer (takes over from the agent), conference, listen, whisper or
 * barge; the call ends when no agent who keeps it (lead, transfer, conference, barge) is left
 * and no transfer is still ringing.
 */
import { eq } from 'drizzle-orm';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import {
  toE164,
  type CallType,
  type LeadIntakeBody,
  type LeadIntakeResponse,
  type OutboundCallBody,
  type RetryCallBody,
} from '@leadline/contracts';
import type { OutgoingCallDecision } from '@leadline/voice';
import type { Db } from '../db/database';
import { profiles, type CallStatus } from '../db/schema';
import { identityOf } from '../auth/access-token';
import { findLeadByPhone, insertLead, toLeadResource, type LeadRow } from '../leads/leads-repo';
import { KeyedQueue } from '../lib/keyed-queue';
import type { AgentRole, Telephony, TelephonyEvent } from '../telephony/telephony';
import {
  findAvailableAgents,
  findUserById,
  hasOnlineAgents,
  setOnlineApp,
  touchLastCall,
  type UserRow,
} from '../users/users-repo';
import {
  activeParticipants,
  FINAL_STATUSES,
  findCallById,
  findCallBySid,
  findCallUserById,
  findCallUserOf,
  findUserCallUser,
  insertCall,
  insertCallUser,
  ringingCallUsers,
  settleCallUsers,
  updateCall,
  updateCallUser,
  type CallRow,
  type CallUserRow,
} from './calls-repo';

/** A logger (pino's shape). */
export interface FlowLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Timers and time, injectable for tests. */
export interface FlowClock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemFlowClock: FlowClock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** What the flows need. */
export interface CallFlowsOptions {
  db: Db;
  telephony: Telephony;
  log: FlowLogger;
  /** How long a user is rung before the ring counts as missed. */
  ringTimeoutMs: number;
  clock?: FlowClock;
}

/** What the agent's device is told when the lead cannot be reached. */
const UNANSWERED_ERRORS = {
  busy: { code: SignallingErrorCode.Busy, message: "The lead's phone is busy." },
  'no-answer': { code: SignallingErrorCode.NoAnswer, message: 'The lead did not answer.' },
  failed: {
    code: SignallingErrorCode.InvalidNumber,
    message: "The lead's number could not be reached.",
  },
} as const;

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
} as const;

/** Participants whose presence keeps a call going (supervisors listening or whispering do not). */
const KEEPS_CALL: ReadonlySet<CallType> = new Set(['lead', 'transfer', 'conference', 'barge']);

/** How a call user of each type takes part in the call. */
export const ROLE_OF: Record<CallType, AgentRole> = {
  lead: 'agent',
  transfer: 'agent',
  conference: 'conference',
  listen: 'listen',
  whisper: 'whisper',
  barge: 'barge',
};

/** Where a call's recording is served (to users of the call's account only). */
export const recordingUrlOf = (callId: number): string => `/api/v1/calls/${callId}/recording`;

const userIdOf = (identity: string): number | null => {
  const id = Number(identity);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
};

/** The call flows of the server. */
export class CallFlows {
  readonly #db: Db;
  readonly #telephony: Telephony;
  readonly #log: FlowLogger;
  readonly #clock: FlowClock;
  readonly #queue: KeyedQueue;
  /** Ring timers by call-user id. */
  readonly #ringTimers = new Map<number, unknown>();
  #unsubscribe: (() => void) | null = null;

  constructor(private readonly options: CallFlowsOptions) {
    this.#db = options.db;
    this.#telephony = options.telephony;
    this.#log = options.log;
    this.#clock = options.clock ?? systemFlowClock;
    this.#queue = new KeyedQueue((error, key) =>
      this.#log.error({ err: error, key }, 'call flow failed'),
    );
  }

  /** The telephony provider (call control uses it inside `exclusive`). */
  get telephony(): Telephony {
    return this.#telephony;
  }

  /** The time now, by the flows' clock. */
  now(): Date {
    return this.#clock.now();
  }

  /** Starts handling telephony events. */
  start(): void {
    this.#unsubscribe ??= this.#telephony.subscribe((event) => {
      const key = 'callSid' in event ? event.callSid : `device:${event.identity}`;
      void this.#queue.run(key, () => this.#onEvent(event));
    });
  }

  /** Stops handling events and clears timers. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    for (const timer of this.#ringTimers.values()) this.#clock.clearTimeout(timer);
    this.#ringTimers.clear();
  }

  /** Resolves when every queued task has run (tests, shutdown). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * Runs `task` alone for the call: after the call's earlier events and commands, before later
   * ones. Errors reach the caller.
   */
  async exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T> {
    let result: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    await this.#queue.run(callSid, async () => {
      try {
        result = { ok: true, value: await task() };
      } catch (error) {
        result = { ok: false, error };
      }
    });
    if (!result) throw new Error('The call task did not run.');
    if (!result.ok) throw result.error;
    return result.value;
  }

  // ------------------------------------------------------------------ starting calls

  /** Stores a lead, creates its call and rings an available agent. */
  async intakeLead(accountId: number, body: LeadIntakeBody): Promise<LeadIntakeResponse> {
    const profileId = await this.#defaultProfile(accountId);
    const lead = await insertLead(this.#db, accountId, profileId, body);
    const call = await this.#leadCall(lead);
    const agentId = await this.exclusive(call.sid, () => this.#route(call));
    const latest = await findCallBySid(this.#db, call.sid);
    return {
      success: true,
      lead: toLeadResource(lead),
      call: { id: call.id, status: latest?.status ?? call.status, agent_id: agentId },
    };
  }

  /**
   * Retry (spec section 4): a new call to the same lead, rung to the agent who asked first
   * (the console goes back to waiting and rings again), else to whoever is available.
   */
  async retry(user: UserRow, body: RetryCallBody): Promise<{ call: CallRow; lead: LeadRow }> {
    const lead = await this.#findOrCreateLead(user.accountId, body);
    const call = await this.#leadCall(lead);
    await this.exclusive(call.sid, async () => {
      await this.#route(call, user.id);
    });
    return { call, lead };
  }

  /**
   * Outbound (spec section 4): the agent places a call from the console. The call and the
   * agent's call user are created here; the device then connects with `call_user_id` and the
   * lead is dialled (see `authorizeOutgoing`).
   */
  async placeOutbound(
    user: UserRow,
    body: OutboundCallBody,
    callerNumberId: number | null,
  ): Promise<{ call: CallRow; callUser: CallUserRow; lead: LeadRow }> {
    const lead = await this.#findOrCreateLead(user.accountId, body);
    const call = await insertCall(this.#db, {
      accountId: user.accountId,
      leadId: lead.id,
      profileId: lead.profileId,
      phoneNumber: lead.phoneNumber,
      type: 'lead',
      direction: 'outbound',
      status: 'queued',
      callerNumberId,
      userId: user.id,
    });
    const callUser = await insertCallUser(this.#db, {
      callId: call.id,
      userId: user.id,
      type: 'lead',
      autoaccept: true,
    });
    return { call, callUser, lead };
  }

  /**
   * An inbound call to one of the account's numbers (the sandbox's virtual caller): the caller
   * is put on the line in the call's room and an available agent is rung.
   */
  async inbound(
    accountId: number,
    callerNumber: { id: number; profileId: number | null; phoneNumber: string },
    from: string,
  ): Promise<CallRow> {
    const call = await insertCall(this.#db, {
      accountId,
      leadId: null,
      profileId: callerNumber.profileId ?? (await this.#defaultProfile(accountId)),
      phoneNumber: from,
      type: 'lead',
      direction: 'inbound',
      callerNumberId: callerNumber.id,
    });
    await this.exclusive(call.sid, async () => {
      this.#telephony.addCaller(call.sid, from, callerNumber.phoneNumber);
      await this.#route(call);
    });
    return call;
  }

  /**
   * 'Check for lead': rings the agent with the newest lead of the last day that nobody reached
   * (missed, busy or offline, and not called since). Resolves with the new call, or null.
   */
  async checkForLead(user: UserRow, waiting: LeadRow | null): Promise<CallRow | null> {
    if (!waiting) return null;
    const call = await this.#leadCall(waiting);
    await this.exclusive(call.sid, async () => {
      await this.#route(call, user.id);
    });
    return call;
  }

  /** The agent refused a ringing call from the console (the Ignore button). */
  async agentIgnored(call: CallRow, userId: number): Promise<void> {
    await this.exclusive(call.sid, async () => {
      const callUser = await findCallUserOf(this.#db, call.id, userId, 'ringing');
      if (!callUser) return;
      this.#telephony.cancelRing(call.sid, identityOf(userId));
      await this.#notAnswered(callUser, 'rejected');
    });
  }

  /**
   * Rings a user into a live call as a participant of `type` (transfer, conference, listen,
   * whisper, barge). Resolves with the call-user row, or null if no device of theirs rang.
   * Call it inside `exclusive`.
   */
  async ringParticipant(
    call: CallRow,
    userId: number,
    type: Exclude<CallType, 'lead'>,
    autoaccept: boolean,
  ): Promise<CallUserRow | null> {
    const callUser = await insertCallUser(this.#db, { callId: call.id, userId, type, autoaccept });
    const rung = await this.#telephony.ringAgent(
      call.sid,
      identityOf(userId),
      { From: `client:${callUser.id}`, To: call.phoneNumber ?? '' },
      { role: ROLE_OF[type] },
    );
    if (rung === 0) {
      await updateCallUser(this.#db, callUser.id, { outcome: 'missed' });
      return null;
    }
    this.#armRingTimer(call.sid, callUser);
    return callUser;
  }

  /**
   * Decides an outgoing call a device placed: with `call_user_id` (the console's outbound
   * flow) it connects that call; with only `To` it records a new call to that number.
   */
  async authorizeOutgoing(
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision> {
    const userId = userIdOf(identity);
    const user = userId === null ? null : await findUserById(this.#db, userId);
    if (!user) return { error: OUTGOING_ERRORS.unknownCaller };
    if (params.call_user_id !== undefined) {
      const callUserId = Number(params.call_user_id);
      const found = Number.isSafeInteger(callUserId)
        ? await findUserCallUser(this.#db, user.id, callUserId)
        : null;
      if (!found || FINAL_STATUSES.has(found.call.status) || !found.call.phoneNumber) {
        return { error: OUTGOING_ERRORS.callNotFound };
      }
      const { call, callUser } = found;
      return this.exclusive(call.sid, async () => {
        await updateCallUser(this.#db, callUser.id, {
          outcome: 'accepted',
          answeredAt: this.#clock.now(),
        });
        await updateCall(this.#db, call.id, { status: 'in-progress', userId: user.id });
        await touchLastCall(this.#db, user.id, this.#clock.now());
        return { callSid: call.sid, dial: call.phoneNumber! };
      });
    }
    const to = toE164(params.To ?? '', user.countryCode);
    if (!to) return { error: OUTGOING_ERRORS.invalidNumber };
    const call = await insertCall(this.#db, {
      accountId: user.accountId,
      leadId: null,
      profileId: null,
      phoneNumber: to,
      type: 'lead',
      direction: 'outbound',
      status: 'in-progress',
      userId: user.id,
    });
    await insertCallUser(this.#db, {
      callId: call.id,
      userId: user.id,
      type: 'lead',
      autoaccept: true,
      outcome: 'accepted',
      answeredAt: this.#clock.now(),
    });
    await touchLastCall(this.#db, user.id, this.#clock.now());
    return { callSid: call.sid, dial: to };
  }

  // ------------------------------------------------------------------ routing

  async #defaultProfile(accountId: number): Promise<number | null> {
    const [profile] = await this.#db
      .select({ id: profiles.id })
      .from(profiles)
      .where(eq(profiles.accountId, accountId))
      .orderBy(profiles.id)
      .limit(1);
    return profile?.id ?? null;
  }

  async #findOrCreateLead(
    accountId: number,
    body: { fname: string; lname: string; phone_number: string },
  ): Promise<LeadRow> {
    return (
      (await findLeadByPhone(this.#db, accountId, body)) ??
      insertLead(this.#db, accountId, await this.#defaultProfile(accountId), {
        fname: body.fname,
        lname: body.lname,
        phone_number: body.phone_number,
      })
    );
  }

  #leadCall(lead: LeadRow): Promise<CallRow> {
    return insertCall(this.#db, {
      accountId: lead.accountId,
      leadId: lead.id,
      profileId: lead.profileId,
      phoneNumber: lead.phoneNumber,
      type: 'lead',
      direction: 'outbound',
    });
  }

  /**
   * Rings the longest idle available agent (`preferUserId` first if they are available).
   * Returns the agent's id, or null: then the call is busy (agents online, all on calls),
   * offline (nobody online) or missed (agents rung, none reachable).
   */
  async #route(call: CallRow, preferUserId?: number): Promise<number | null> {
    const agents = await findAvailableAgents(this.#db, call.accountId);
    const preferred = agents.findIndex((a) => a.id === preferUserId);
    if (preferred > 0) agents.unshift(...agents.splice(preferred, 1));
    for (const agent of agents) {
      if (await this.#ringPrimary(call, agent)) return agent.id;
    }
    const status: CallStatus =
      agents.length > 0
        ? 'missed'
        : (await hasOnlineAgents(this.#db, call.accountId))
          ? 'busy'
          : 'offline';
    await this.#end(call, status);
    return null;
  }

  async #ringPrimary(call: CallRow, agent: UserRow): Promise<boolean> {
    const callUser = await insertCallUser(this.#db, {
      callId: call.id,
      userId: agent.id,
      type: 'lead',
      autoaccept: agent.autoaccept,
    });
    await updateCall(this.#db, call.id, { status: 'ringing' });
    const rung = await this.#telephony.ringAgent(call.sid, identityOf(agent.id), {
      From: `client:${callUser.id}`,
      To: call.phoneNumber ?? '',
    });
    if (rung === 0) {
      await updateCallUser(this.#db, callUser.id, { outcome: 'missed' });
      return false;
    }
    this.#log.info({ callId: call.id, agentId: agent.id }, 'ringing agent');
    this.#armRingTimer(call.sid, callUser);
    return true;
  }

  #armRingTimer(callSid: string, callUser: CallUserRow): void {
    this.#ringTimers.set(
      callUser.id,
      this.#clock.setTimeout(() => {
        this.#ringTimers.delete(callUser.id);
        void this.#queue.run(callSid, async () => {
          const fresh = await findCallUserById(this.#db, callUser.id);
          if (!fresh || fresh.outcome !== 'ringing') return;
          this.#telephony.cancelRing(callSid, identityOf(fresh.userId));
          await this.#notAnswered(fresh, 'missed');
        });
      }, this.options.ringTimeoutMs),
    );
  }

  #clearRingTimer(callUserId: number): void {
    const timer = this.#ringTimers.get(callUserId);
    if (timer !== undefined) this.#clock.clearTimeout(timer);
    this.#ringTimers.delete(callUserId);
  }

  /** A rung user did not take the call; a primary ring left unanswered ends the call as missed. */
  async #notAnswered(callUser: CallUserRow, outcome: 'rejected' | 'missed'): Promise<void> {
    this.#clearRingTimer(callUser.id);
    await updateCallUser(this.#db, callUser.id, { outcome });
    if (callUser.type !== 'lead') return;
    const call = await findCallById(this.#db, callUser.callId);
    if (call && call.status === 'ringing') await this.#end(call, 'missed');
  }

  // ------------------------------------------------------------------ ending calls

  /** The call ended without anyone talking: record why, and clear the line. */
  async #end(call: CallRow, status: CallStatus): Promise<void> {
    this.#telephony.hangup(call.sid);
    await settleCallUsers(this.#db, call.id, 'canceled');
    await updateCall(this.#db, call.id, { status, endedAt: this.#clock.now() });
  }

  /** The call is over: close it everywhere and record its length. */
  async #finish(call: CallRow, status?: CallStatus): Promise<void> {
    this.#telephony.hangup(call.sid);
    const now = this.#clock.now();
    for (const participant of await activeParticipants(this.#db, call.id)) {
      await updateCallUser(this.#db, participant.id, { leftAt: now });
    }
    for (const ringing of await ringingCallUsers(this.#db, call.id)) {
      this.#clearRingTimer(ringing.id);
    }
    await settleCallUsers(this.#db, call.id, 'canceled');
    if (FINAL_STATUSES.has(call.status)) return;
    const seconds = call.answeredAt
      ? Math.max(0, Math.round((now.getTime() - call.answeredAt.getTime()) / 1000))
      : 0;
    await updateCall(this.#db, call.id, {
      status: status ?? (call.answeredAt ? 'completed' : 'no-answer'),
      endedAt: now,
      seconds,
      held: false,
    });
  }

  /** After someone left: end the call if nobody who keeps it is left, else keep a primary agent. */
  async #afterLeave(call: CallRow): Promise<void> {
    const remaining = (await activeParticipants(this.#db, call.id)).filter((p) =>
      KEEPS_CALL.has(p.type),
    );
    const transferRinging = (await ringingCallUsers(this.#db, call.id)).some(
      (p) => p.type === 'transfer',
    );
    if (remaining.length === 0 && !transferRinging) return this.#finish(call);
    const primary = remaining.find((p) => p.userId === call.userId) ?? remaining[0];
    if (primary && primary.userId !== call.userId) {
      await updateCall(this.#db, call.id, { userId: primary.userId });
    }
  }

  // ------------------------------------------------------------------ events

  async #onEvent(event: TelephonyEvent): Promise<void> {
    if (event.type === 'device.online' || event.type === 'device.offline') {
      const userId = userIdOf(event.identity);
      if (userId !== null) await setOnlineApp(this.#db, userId, event.type === 'device.online');
      return;
    }
    const call = await findCallBySid(this.#db, event.callSid);
    if (!call) return;
    switch (event.type) {
      case 'agent.answered':
        return this.#agentAnswered(call, event.identity);
      case 'agent.rejected': {
        const userId = userIdOf(event.identity);
        const callUser =
          userId === null ? null : await findCallUserOf(this.#db, call.id, userId, 'ringing');
        if (callUser) await this.#notAnswered(callUser, 'rejected');
        return;
      }
      case 'agent.left':
        return this.#agentLeft(call, event.identity);
      case 'phone.answered':
        if (call.status !== 'in-progress' || call.answeredAt) return;
        await updateCall(this.#db, call.id, { answeredAt: this.#clock.now() });
        return;
      case 'phone.unanswered':
        this.#telephony.hangup(call.sid, UNANSWERED_ERRORS[event.reason]);
        return this.#finish(call, event.reason);
      case 'phone.left':
        return this.#finish(call);
      case 'recording.ready':
        await updateCall(this.#db, call.id, {
          recordingPath: event.path,
          recordingUrl: recordingUrlOf(call.id),
        });
        return;
      case 'dtmf':
        this.#log.info({ callId: call.id, source: event.source, digits: event.digits }, 'dtmf');
        return;
      default:
        return;
    }
  }

  async #agentAnswered(call: CallRow, identity: string): Promise<void> {
    const userId = userIdOf(identity);
    if (userId === null) return;
    const callUser = await findCallUserOf(this.#db, call.id, userId, 'ringing');
    if (!callUser) return;
    this.#clearRingTimer(callUser.id);
    const now = this.#clock.now();
    await updateCallUser(this.#db, callUser.id, { outcome: 'accepted', answeredAt: now });
    switch (callUser.type) {
      case 'lead': {
        if (call.status !== 'ringing') return;
        await settleCallUsers(this.#db, call.id, 'canceled');
        const inbound = call.direction === 'inbound';
        // Inbound: the caller is already on the line, so the talk starts now.
        await updateCall(this.#db, call.id, {
          status: 'in-progress',
          userId,
          ...(inbound ? { answeredAt: now } : {}),
        });
        await touchLastCall(this.#db, userId, now);
        if (!inbound && call.phoneNumber) this.#telephony.dial(call.sid, call.phoneNumber);
        return;
      }
      case 'transfer': {
        const previous = call.userId;
        await updateCall(this.#db, call.id, { userId });
        await touchLastCall(this.#db, userId, now);
        if (previous !== null && previous !== userId) {
          const handedOver = await findCallUserOf(this.#db, call.id, previous, 'accepted');
          if (handedOver && handedOver.leftAt === null) {
            await updateCallUser(this.#db, handedOver.id, { leftAt: now });
          }
          this.#telephony.removeAgent(call.sid, identityOf(previous));
        }
        return;
      }
      default:
        return;
    }
  }

  async #agentLeft(call: CallRow, identity: string): Promise<void> {
    const userId = userIdOf(identity);
    if (userId === null) return;
    const ringing = await findCallUserOf(this.#db, call.id, userId, 'ringing');
    if (ringing) return this.#notAnswered(ringing, 'missed');
    const joined = await findCallUserOf(this.#db, call.id, userId, 'accepted');
    if (joined && joined.leftAt === null) {
      await updateCallUser(this.#db, joined.id, { leftAt: this.#clock.now() });
    }
    if (!FINAL_STATUSES.has(call.status)) await this.#afterLeave(call);
  }
}
