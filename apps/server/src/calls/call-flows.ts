/**
 * Call flows: what happens to a call from lead intake to hang-up. The flows decide (which agent
 * to ring, when to dial the lead, when a call is over) and persist; the telephony provider
 * carries the audio and reports events. Events of one call are handled one at a time.
 *
 * Lead call: intake → ring the longest idle available agent (`client:<call_user_id>`) →
 * agent answers → dial the lead → lead answers (the call's seconds count from here) →
 * either side hangs up → the whole call ends.
 */
import { eq } from 'drizzle-orm';
import { SignallingErrorCode } from '@leadline/contracts/signalling';
import { toE164, type LeadIntakeBody, type LeadIntakeResponse } from '@leadline/contracts';
import type { OutgoingCallDecision } from '@leadline/voice';
import type { Db } from '../db/database';
import { profiles, type CallStatus } from '../db/schema';
import { identityOf } from '../auth/access-token';
import { insertLead, toLeadResource } from '../leads/leads-repo';
import { KeyedQueue } from '../lib/keyed-queue';
import type { Telephony, TelephonyEvent } from '../telephony/telephony';
import {
  findAvailableAgents,
  findUserById,
  setOnlineApp,
  touchLastCall,
  type UserRow,
} from '../users/users-repo';
import {
  FINAL_STATUSES,
  findCallBySid,
  findUserCallUser,
  insertCall,
  insertCallUser,
  settleCallUsers,
  updateCall,
  type CallRow,
} from './calls-repo';

/** A logger (Fastify's, in the server). */
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
  /** How long an agent is rung before the call counts as missed. */
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
  readonly #ringTimers = new Map<string, unknown>();
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

  /** Resolves when every queued event has been handled (tests). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stores a lead, creates its call and rings an available agent. */
  async intakeLead(accountId: number, body: LeadIntakeBody): Promise<LeadIntakeResponse> {
    const [profile] = await this.#db
      .select({ id: profiles.id })
      .from(profiles)
      .where(eq(profiles.accountId, accountId))
      .orderBy(profiles.id)
      .limit(1);
    const lead = await insertLead(this.#db, accountId, profile?.id ?? null, body);
    const call = await insertCall(this.#db, {
      accountId,
      leadId: lead.id,
      profileId: profile?.id ?? null,
      phoneNumber: lead.phoneNumber,
      type: 'lead',
      direction: 'outbound',
    });
    let agentId: number | null = null;
    await this.#queue.run(call.sid, async () => {
      agentId = await this.#ringNextAgent(call);
    });
    const latest = await findCallBySid(this.#db, call.sid);
    return {
      success: true,
      lead: toLeadResource(lead),
      call: { id: call.id, status: latest?.status ?? call.status, agent_id: agentId },
    };
  }

  /** The agent refused a call from the console (the Ignore button). */
  async agentIgnored(call: CallRow, userId: number): Promise<void> {
    await this.#queue.run(call.sid, async () => {
      const fresh = await findCallBySid(this.#db, call.sid);
      if (!fresh || fresh.status !== 'ringing') return;
      await settleCallUsers(this.#db, fresh.id, 'rejected', userId);
      this.#telephony.cancelRing(fresh.sid);
      await this.#unanswered(fresh, 'missed');
    });
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
      await settleCallUsers(this.#db, found.call.id, 'accepted', user.id);
      await updateCall(this.#db, found.call.id, { status: 'in-progress', userId: user.id });
      return { callSid: found.call.sid, dial: found.call.phoneNumber };
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
    });
    await updateCall(this.#db, call.id, { userId: user.id });
    await touchLastCall(this.#db, user.id, this.#clock.now());
    return { callSid: call.sid, dial: to };
  }

  /** Rings the longest idle available agent; returns the agent's id, or null (call missed). */
  async #ringNextAgent(call: CallRow): Promise<number | null> {
    const agents = await findAvailableAgents(this.#db, call.accountId);
    for (const agent of agents) {
      if (await this.#ring(call, agent)) return agent.id;
    }
    await this.#unanswered(call, 'missed');
    return null;
  }

  async #ring(call: CallRow, agent: UserRow): Promise<boolean> {
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
      await settleCallUsers(this.#db, call.id, 'missed', agent.id);
      return false;
    }
    this.#log.info({ callId: call.id, agentId: agent.id }, 'ringing agent');
    this.#ringTimers.set(
      call.sid,
      this.#clock.setTimeout(() => {
        this.#ringTimers.delete(call.sid);
        void this.#queue.run(call.sid, () => this.#ringTimedOut(call.sid));
      }, this.options.ringTimeoutMs),
    );
    return true;
  }

  async #ringTimedOut(callSid: string): Promise<void> {
    const call = await findCallBySid(this.#db, callSid);
    if (!call || call.status !== 'ringing') return;
    this.#telephony.cancelRing(callSid);
    await settleCallUsers(this.#db, call.id, 'missed');
    await this.#unanswered(call, 'missed');
  }

  #clearRingTimer(callSid: string): void {
    const timer = this.#ringTimers.get(callSid);
    if (timer !== undefined) this.#clock.clearTimeout(timer);
    this.#ringTimers.delete(callSid);
  }

  /** The call ended before anyone talked. */
  async #unanswered(call: CallRow, status: CallStatus): Promise<void> {
    this.#clearRingTimer(call.sid);
    await updateCall(this.#db, call.id, { status, endedAt: this.#clock.now() });
  }

  /** The call is over: close it everywhere and record its length. */
  async #finish(call: CallRow, status?: CallStatus): Promise<void> {
    this.#clearRingTimer(call.sid);
    this.#telephony.hangup(call.sid);
    if (FINAL_STATUSES.has(call.status)) return;
    const endedAt = this.#clock.now();
    const seconds = call.answeredAt
      ? Math.max(0, Math.round((endedAt.getTime() - call.answeredAt.getTime()) / 1000))
      : 0;
    await updateCall(this.#db, call.id, {
      status: status ?? (call.answeredAt ? 'completed' : 'no-answer'),
      endedAt,
      seconds,
    });
  }

  async #onEvent(event: TelephonyEvent): Promise<void> {
    if (event.type === 'device.online' || event.type === 'device.offline') {
      const userId = userIdOf(event.identity);
      if (userId !== null) await setOnlineApp(this.#db, userId, event.type === 'device.online');
      return;
    }
    const call = await findCallBySid(this.#db, event.callSid);
    if (!call) return;
    switch (event.type) {
      case 'agent.answered': {
        const userId = userIdOf(event.identity);
        if (userId === null || call.status !== 'ringing') return;
        this.#clearRingTimer(call.sid);
        await settleCallUsers(this.#db, call.id, 'accepted', userId);
        await settleCallUsers(this.#db, call.id, 'canceled');
        await updateCall(this.#db, call.id, { status: 'in-progress', userId });
        await touchLastCall(this.#db, userId, this.#clock.now());
        if (call.phoneNumber) this.#telephony.dial(call.sid, call.phoneNumber);
        return;
      }
      case 'agent.rejected': {
        const userId = userIdOf(event.identity);
        if (call.status !== 'ringing' || userId === null) return;
        await settleCallUsers(this.#db, call.id, 'rejected', userId);
        return this.#unanswered(call, 'missed');
      }
      case 'agent.left':
        if (call.status === 'ringing') {
          await settleCallUsers(this.#db, call.id, 'missed');
          return this.#unanswered(call, 'missed');
        }
        return this.#finish(call);
      case 'phone.answered':
        if (call.status !== 'in-progress' || call.answeredAt) return;
        await updateCall(this.#db, call.id, { answeredAt: this.#clock.now() });
        return;
      case 'phone.unanswered':
        this.#telephony.hangup(call.sid, UNANSWERED_ERRORS[event.reason]);
        return this.#finish(call, event.reason);
      case 'phone.left':
        return this.#finish(call);
      default:
        return;
    }
  }
}
