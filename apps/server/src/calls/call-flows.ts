/**
 * Call flows: what happens to a call from its start to its end. The flows decide (whom to
 * offer it, when to dial the lead, who takes over on a transfer, when the call is over) and
 * persist through the repositories; the telephony provider carries the audio and reports
 * events. Everything that touches one call (its events and the agents' commands) runs one at a
 * time (`exclusive`); the call's status moves only through its transition table
 * (`call-status.ts`).
 *
 * A lead call: intake → offered to one eligible agent at a time, longest idle first (the
 * router); Ignore, reject, the ring timeout or a device error move it to the next → the first
 * agent who answers takes it → the lead is dialled from the call's caller number → the talk
 * starts when the lead answers → it ends when its last phone party or its last agent leaves.
 * Nobody to offer it to: missed (everyone tried), busy (everyone busy), offline (outside the
 * profile's hours, or nobody online); a web lead then waits in the queue and is offered as
 * soon as an agent becomes free. After a call its agents wrap up until Done.
 */
import {
  type CallType,
  type ConferenceLeadBody,
  type LeadIntakeBody,
  type OutboundCallBody,
  type RetryCallBody,
} from '@leadline/contracts';
import type { OutgoingCallDecision } from '@leadline/voice';
import { identityOf } from '../auth/access-token';
import type { Db } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import type { EventBus } from '../events/event-bus';
import { AppError } from '../http/errors';
import { findLeadProfile, leadColumns, type LeadRow } from '../leads/leads-repo';
import { insertIntake } from '../leads/intake-repo';
import { KeyedQueue } from '../lib/keyed-queue';
import type { ClusterLock } from '../cluster/call-locks';
import type { Telephony } from '../telephony/telephony';
import { AgentPresence } from '../users/agent-presence';
import { SettingsCache } from '../profiles/settings-cache';
import { OutgoingNumbers } from './outgoing-numbers';
import type { UserRow } from '../users/users-repo';
import { isConnected, isFinal, isQueued, isRinging } from './call-status';
import {
  bornAs,
  closeCallPhones,
  closeCallUsers,
  findCallBySid,
  findCallById,
  findCallUserById,
  findCallUserOf,
  insertCall,
  insertCallPhone,
  liveCalls,
  newCallSid,
  transitionCall,
  type CallRow,
  type CallUserRow,
} from './calls-repo';
import { DialGuard } from './dial-guard';
import {
  CARRIER_GRACE_MS,
  CARRIER_SWEEP_MS,
  CarriedCallSweeper,
  recoverInterruptedCalls,
  STALE_HEARTBEATS,
  type CallCarrier,
  type RecoveryReport,
} from './recovery';
import { NOBODY_EVENT, NOBODY_MESSAGES, waitsInQueue } from './call-outcomes';
import { HEARTBEAT_MS, QueueScheduler, QUEUE_SWEEP_MS } from './queue-scheduler';
import { recordingUrlOf, TelephonyReactor } from './telephony-reactor';
import { CallEndings } from './call-endings';
import { floorChangesOn, type FloorChanged } from './floor-changes';
import { ADD_LEAD_TIMEOUT_MS, AddLeadFlow, type AddLeadOutcome } from './add-lead';
import {
  findOrCreateLead,
  leadCallValues,
  OUTBOUND_CONNECT_TIMEOUT_MS,
  OutgoingCalls,
} from './outgoing-calls';
import { ROLE_OF, Router, type NobodyReason } from '../routing/router';

import { isRungOrOnCall, oldestQueuedCall, type ProfileRow } from '../routing/routing-repo';
import { type Clock, systemClock } from '../lib/clock';

export { ROLE_OF };

/** A logger (pino's shape). */
export interface FlowLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the flows need. */
export interface CallFlowsOptions {
  db: Db;
  telephony: Telephony;
  log: FlowLogger;
  /** How long an agent is rung when the profile does not say (`AGENT_RING_TIMEOUT_MS`). */
  ringTimeoutMs: number;
  events: EventBus;
  clock?: Clock;
  /** How often live calls are stamped as seen (a crash loses at most this much of a call). */
  heartbeatMs?: number;
  /** How often the queue is swept (expired web leads; leads an agent could take). */
  sweepMs?: number;
  /** Longest wait for an added lead's phone to answer or fail (ms). */
  addLeadTimeoutMs?: number;
  /** Longest wait for the console to connect an outbound call it asked for (ms). */
  outboundConnectTimeoutMs?: number;
  /**
   * The toll-fraud guard every call and SMS an agent places passes (`dial-guard.ts`); by default
   * one on `db` that does not ask for a caller number of the account's own.
   */
  dialGuard?: DialGuard;
  /**
   * The provider that carries the calls outside this process (Twilio), which several equal
   * instances share: start-up recovery closes only the calls no instance stamped lately and the
   * provider no longer carries, a sweeper reconciles the calls in progress with it every
   * `carrierSweepMs`, and a shutdown leaves the live calls to it and the other instances
   * (`recovery.ts`). Absent (the embedded engine): the calls live and die with this process.
   */
  carrier?: CallCarrier;
  /**
   * Several instances run the flows side by side (Twilio): each task of a call also holds the
   * call's lock across them (`cluster/call-locks.ts`).
   */
  clusterLock?: ClusterLock;
  /** How often the sweeper asks the carrier (ms; default `CARRIER_SWEEP_MS`). */
  carrierSweepMs?: number;
  /** How long a call goes uncarried before the sweeper closes it (ms; default `CARRIER_GRACE_MS`). */
  carrierGraceMs?: number;
}

export { HEARTBEAT_MS, NOBODY_MESSAGES, OUTBOUND_CONNECT_TIMEOUT_MS, QUEUE_SWEEP_MS };

export { ADD_LEAD_TIMEOUT_MS, recordingUrlOf, type AddLeadOutcome };

/** What offering a call came to, as the endpoints answer it. */
export type OfferOutcome =
  | { kind: 'rang'; agentId: number }
  | { kind: 'queued'; reason: NobodyReason }
  | { kind: 'ended'; reason: NobodyReason };

/** The call flows of the server. */
export class CallFlows {
  readonly #db: Db;
  /** Profiles and caller numbers as routing reads them; `forget()` after changing them. */
  readonly settings: SettingsCache;
  readonly #numbers: OutgoingNumbers;
  readonly #telephony: Telephony;
  readonly #log: FlowLogger;
  readonly #clock: Clock;
  readonly #queue: KeyedQueue;
  readonly #router: Router;
  readonly presence: AgentPresence;
  /** The toll-fraud guard: every call and SMS an agent places passes it. */
  readonly dialGuard: DialGuard;
  /** Calls whose recording is awaited at shutdown, by sid. */
  readonly #recordingWaiters = new Map<string, () => void>();
  readonly #reactor: TelephonyReactor;
  #unsubscribe: (() => void) | null = null;
  #stopping = false;
  readonly #scheduler: QueueScheduler;
  readonly #endings: CallEndings;
  readonly #addLead: AddLeadFlow;
  readonly #outgoing: OutgoingCalls;
  #sweeper: CarriedCallSweeper | null = null;
  /** Tells the floor a call moved (after the write committed; `floor-changes.ts`). */
  readonly #floorChanged: FloorChanged;

  constructor(private readonly options: CallFlowsOptions) {
    this.#db = options.db;
    this.#telephony = options.telephony;
    this.#log = options.log;
    this.#clock = options.clock ?? systemClock;
    this.#floorChanged = floorChangesOn(options.events, this.#clock);
    this.dialGuard = options.dialGuard ?? new DialGuard({ db: options.db, log: options.log });
    this.#queue = new KeyedQueue(
      (error, key) => this.#log.error({ err: error, key }, 'call flow failed'),
      options.clusterLock,
    );
    this.settings = new SettingsCache({ db: this.#db });
    this.#numbers = new OutgoingNumbers(this.#db, this.settings);
    this.#router = new Router({
      db: this.#db,
      profileOf: (profileId) => this.settings.profile(profileId),
      telephony: this.#telephony,
      clock: this.#clock,
      ringTimeoutMs: options.ringTimeoutMs,
      accountLock: (accountId, task) => this.#locked(`route:${accountId}`, task),
      onRingTimeout: (callSid, callUserId) =>
        void this.#queue.run(callSid, () => this.#ringTimedOut(callUserId)),
      onSweepError: (error) => this.#log.error({ err: error }, 'ring sweep failed'),
      onWrapUpsEnded: (accountId) => this.#scheduler.drainSoon(accountId),
      floorChanged: this.#floorChanged,
    });
    this.#scheduler = new QueueScheduler({
      db: this.#db,
      clock: this.#clock,
      log: this.#log,
      router: this.#router,
      exclusive: (callSid, task) => this.exclusive(callSid, task),
      run: (key, task) => this.#queue.run(key, task),
      isStopping: () => this.#stopping,
      floorChanged: this.#floorChanged,
    });
    this.presence = new AgentPresence({
      db: this.#db,
      clock: this.#clock,
      events: options.events,
      onFree: (accountId) => this.#scheduler.drainSoon(accountId),
      enqueue: (key, task) => void this.#queue.run(key, async () => void (await task())),
    });
    this.#endings = new CallEndings({
      db: this.#db,
      telephony: this.#telephony,
      clock: this.#clock,
      router: this.#router,
      presence: this.presence,
      settings: this.settings,
      transaction: (work) => this.#transaction(work),
      floorChanged: this.#floorChanged,
    });
    this.#addLead = new AddLeadFlow({
      db: this.#db,
      telephony: this.#telephony,
      clock: this.#clock,
      dialGuard: this.dialGuard,
      timeoutMs: options.addLeadTimeoutMs ?? ADD_LEAD_TIMEOUT_MS,
      exclusive: (callSid, task) => this.exclusive(callSid, task),
      dial: (call, number) => this.#dial(call, number),
      callerNumberOf: (call) => this.#numbers.numberOf(call),
    });
    this.#outgoing = new OutgoingCalls({
      db: this.#db,
      telephony: this.#telephony,
      clock: this.#clock,
      presence: this.presence,
      dialGuard: this.dialGuard,
      settings: this.settings,
      connectTimeoutMs: options.outboundConnectTimeoutMs ?? OUTBOUND_CONNECT_TIMEOUT_MS,
      exclusive: (callSid, task) => this.exclusive(callSid, task),
      run: (key, task) => this.#queue.run(key, task),
      transaction: (work) => this.#transaction(work),
      callerNumberOf: (call) => this.#numbers.numberOf(call),
      callerNumberId: (user, callerId) => this.#numbers.chosenId(user, callerId),
      leadProfile: (accountId, phoneNumber) => this.#leadProfile(accountId, phoneNumber),
      fromNumber: (accountId, callerNumberId, profileId) =>
        this.#numbers.from(accountId, callerNumberId, profileId),
      floorChanged: this.#floorChanged,
    });
    this.#reactor = new TelephonyReactor({
      db: this.#db,
      telephony: this.#telephony,
      log: this.#log,
      clock: this.#clock,
      router: this.#router,
      presence: this.presence,
      settleAddedLead: (participantId, outcome) => this.#addLead.settle(participantId, outcome),
      recordingReady: (callSid) => this.#recordingWaiters.get(callSid)?.(),
      notAnswered: (callUser, outcome) => this.#notAnswered(callUser, outcome),
      finish: (call, event, reason) => this.#endings.finish(call, event, reason),
      afterLeave: (call, offerAgain) => this.#endings.afterLeave(call, offerAgain),
      wrapUp: (call, participants) => this.#endings.wrapUp(call, participants),
      dial: (call, number) => this.#dial(call, number),
      dialRefusal: async (call, number) =>
        this.dialGuard.refusal(
          { id: call.userId, accountId: call.accountId },
          { kind: 'call', to: number, from: await this.#numbers.numberOf(call) },
        ),
      callerNumberOf: (call) => this.#numbers.numberOf(call),
      transaction: (work) => this.#transaction(work),
      floorChanged: this.#floorChanged,
    });
  }

  /** The telephony provider (call control uses it inside `exclusive`). */
  get telephony(): Telephony {
    return this.#telephony;
  }

  /** The time now, by the flows' clock. */
  now(): Date {
    return this.#clock.now();
  }

  /**
   * Closes what a crash left open (see `recovery.ts`; with a carrier, only what no instance
   * stamped lately and the carrier no longer carries), then handles telephony events, stamps
   * live calls, sweeps the queue and, with a carrier, reconciles the calls with it. Resolves with
   * what was recovered.
   */
  async start(): Promise<RecoveryReport> {
    const { carrier } = this.options;
    const heartbeatMs = this.options.heartbeatMs ?? HEARTBEAT_MS;
    const report = await recoverInterruptedCalls(
      this.#db,
      this.#clock.now(),
      carrier && { carrier, staleAfterMs: STALE_HEARTBEATS * heartbeatMs, log: this.#log },
    );
    if (report.calls.length > 0)
      this.#log.warn({ ...report }, 'closed calls a restart interrupted');
    await this.presence.start();
    // A provider that awaits the listener (Twilio's webhooks) answers once the flows reacted.
    this.#unsubscribe ??= this.#telephony.subscribe((event) => {
      const key = 'callSid' in event ? event.callSid : `user:${event.identity}`;
      return this.#queue.run(key, () => this.#reactor.onEvent(event));
    });
    this.#scheduler.start({ heartbeatMs: this.options.heartbeatMs, sweepMs: this.options.sweepMs });
    this.#router.start();
    if (carrier && !this.#sweeper) {
      this.#sweeper = new CarriedCallSweeper({
        db: this.#db,
        clock: this.#clock,
        carrier,
        log: this.#log,
        everyMs: this.options.carrierSweepMs ?? CARRIER_SWEEP_MS,
        graceMs: this.options.carrierGraceMs ?? CARRIER_GRACE_MS,
        queuedOutboundAfterMs:
          (this.options.outboundConnectTimeoutMs ?? OUTBOUND_CONNECT_TIMEOUT_MS) +
          (this.options.carrierGraceMs ?? CARRIER_GRACE_MS),
        exclusive: (callSid, task) => this.exclusive(callSid, task),
        wrapUp: (call, participants) => this.#endings.wrapUp(call, participants),
        refresh: (userId) => this.presence.refresh(userId),
      });
      this.#sweeper.start();
    }
    return report;
  }

  /** With a carrier: one reconciliation of the calls in progress with it now (tests). */
  reconcileWithCarrier() {
    if (!this.#sweeper) throw new Error('the flows have no carrier to reconcile with');
    return this.#sweeper.sweep();
  }

  /** Stops handling events and clears timers (the calls stay as they are). */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#sweeper?.stop();
    this.#scheduler.stop();
    this.#router.stop();
    this.presence.stop();
  }

  /**
   * A clean shutdown: live calls end now for everyone (seconds stored), their recordings are
   * linked (waiting up to `recordingWaitMs` for them), web leads still ringing go back to the
   * queue; then the flows stop.
   *
   * With a carrier (Twilio) the calls are not this instance's: they go on, carried by the
   * provider and handled by the other instances (any of them takes the callbacks, runs the due
   * ring and wrap-up timers, reconciles). This instance stops offering and its timers, finishes
   * what it was doing, and keeps handling the events of callbacks still in flight until its
   * server has closed (`stop()` after that). It does not tell whether it is the last instance:
   * if it is, the calls go on at Twilio, and the next instance to start reconciles them.
   */
  async shutdown(recordingWaitMs = 5_000): Promise<void> {
    this.#stopping = true;
    if (this.options.carrier) {
      this.#sweeper?.stop();
      this.#scheduler.stop();
      this.#router.stop();
      this.presence.stop();
      await this.idle();
      return;
    }
    const recordings: Array<Promise<void>> = [];
    for (const call of await liveCalls(this.#db)) {
      await this.exclusive(call.sid, async () => {
        const fresh = await findCallBySid(this.#db, call.sid);
        if (!fresh || isFinal(fresh.status)) return;
        if (isConnected(fresh.status) && fresh.answeredAt) {
          recordings.push(this.#awaitRecording(fresh.sid, recordingWaitMs));
        }
        if (isRinging(fresh.status) && fresh.source === 'web') {
          this.#telephony.hangup(fresh.sid);
          await closeCallUsers(this.#db, fresh.id, this.#clock.now());
          await transitionCall(this.#db, fresh, 'requeue', {
            reason: 'server-restart',
            waitingSince: fresh.waitingSince ?? fresh.createdAt,
          });
          this.#floorChanged(fresh, 'queued');
          return;
        }
        await this.#endings.finish(fresh, 'restart', 'server-restart');
      });
    }
    await Promise.all(recordings);
    await this.idle();
    this.stop();
  }

  /** Resolves when every queued task has run (tests, shutdown). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * Runs `task` alone for the call: after the call's earlier events and commands, before later
   * ones. Errors reach the caller.
   */
  exclusive<T>(callSid: string, task: () => Promise<T>): Promise<T> {
    return this.#locked(callSid, task);
  }

  // ------------------------------------------------------------------ starting calls

  /**
   * A web lead: offered (its agent rung first), then stored with its call. A lead nobody can
   * take now waits in the queue (all agents busy, or nobody online); outside the profile's hours
   * it is `offline`. The lead gets `profileId` (the intake key's profile) when it is one of the
   * account's, else the account's first profile.
   */
  async intakeLead(
    accountId: number,
    body: LeadIntakeBody,
    profileId: number | null = null,
  ): Promise<{ lead: LeadRow; call: CallRow; outcome: OfferOutcome }> {
    const own = await this.settings.profile(profileId);
    const profile =
      own?.accountId === accountId ? own : await this.settings.defaultProfile(accountId);
    const leadProfileId = profile?.id ?? null;
    const callerNumber = await this.settings.defaultCallerNumber(accountId, leadProfileId);
    const callerNumberId = callerNumber?.id ?? null;
    await this.dialGuard.admitLead(accountId, body.phone_number, callerNumber?.phoneNumber ?? null);
    const sid = newCallSid();
    return this.exclusive(sid, async () => {
      // An agent freed from here on wakes the queue; if that happened before this lead is
      // stored as waiting, the wake-up did not see it, so it is woken again below.
      const freedBefore = this.#scheduler.freedCount(accountId);
      let lead: LeadRow | undefined;
      const { call, result } = await this.#router.offerNew(
        accountId,
        profile,
        { sid, to: body.phone_number },
        async (decision) => {
          // One statement for the lead, its call and the ring (leads/intake-repo.ts).
          const leadValues = leadColumns(accountId, leadProfileId, body);
          const callBase = { sid, callerNumberId, waitingSince: null, endedAt: null } as const;
          if (decision.kind === 'rang') {
            const stored = await insertIntake(
              this.#db,
              leadValues,
              { ...callBase, status: bornAs('ring'), reason: null },
              {
                id: decision.callUserId,
                userId: decision.agent.id,
                autoaccept: decision.agent.autoaccept,
                outcome: decision.outcome,
                expiresAt: decision.expiresAt,
              },
            );
            // The router took a rung agent out of its memory; one not rung is free again.
            if (decision.outcome !== 'ringing') routingChanged();
            lead = stored.lead;
            return { call: stored.call, callUser: stored.callUser };
          }
          const { reason } = decision;
          const now = this.#clock.now();
          const stored = await insertIntake(
            this.#db,
            leadValues,
            waitsInQueue(reason)
              ? { ...callBase, status: bornAs('wait'), reason, waitingSince: now }
              : { ...callBase, status: bornAs(NOBODY_EVENT[reason]), reason, endedAt: now },
            null,
          );
          lead = stored.lead;
          return { call: stored.call, callUser: null };
        },
      );
      if (!lead) throw new Error('The lead was not stored.');
      if (result.kind === 'rang') {
        this.#log.info({ callId: call.id, agentId: result.agent.id }, 'ringing agent');
        return { lead, call, outcome: { kind: 'rang', agentId: result.agent.id } };
      }
      if (isRinging(call.status)) {
        // Rung, but nobody's devices answered the ring: as for any call nobody could take.
        const outcome = await this.#nobody(call, result.reason, false);
        return {
          lead,
          call: outcome.call ?? (await findCallById(this.#db, call.id)) ?? call,
          outcome,
        };
      }
      if (isQueued(call.status)) {
        this.#floorChanged(call, 'queued');
        if (this.#scheduler.freedCount(accountId) !== freedBefore)
          this.#scheduler.drainSoon(accountId);
        return { lead, call, outcome: { kind: 'queued', reason: result.reason } };
      }
      // Stored as ended (outside hours; nobody to offer it to): offered and missed today.
      this.#floorChanged(call, 'ended');
      return { lead, call, outcome: { kind: 'ended', reason: result.reason } };
    });
  }

  /**
   * Retry (spec section 4): a new call to the same lead from the agent who asked, offered to
   * them first (they are done wrapping up: they asked), else to whoever can take it. It is the
   * asking agent's dial from the start (their one call being placed, and counted in their
   * rate), whoever takes it.
   */
  async retry(
    user: UserRow,
    body: RetryCallBody & { caller_id?: number | undefined },
  ): Promise<{ call: CallRow; lead: LeadRow; outcome: OfferOutcome }> {
    const callerNumberId = await this.#numbers.chosenId(user, body.caller_id);
    const profileId = await this.#leadProfile(user.accountId, body.phone_number);
    const from = await this.#numbers.from(user.accountId, callerNumberId, profileId);
    const { lead, call } = await this.dialGuard.admit(
      user,
      { kind: 'call', to: body.phone_number, from: from?.phoneNumber ?? null, oneAtATime: true },
      async (tx) => {
        const lead = await findOrCreateLead(tx, user.accountId, profileId, body);
        const call = await insertCall(tx, {
          ...leadCallValues(lead, 'retry'),
          callerNumberId: from?.id ?? null,
        });
        return { lead, call };
      },
      ({ call }) => call.id,
    );
    routingChanged();
    await this.presence.endWrapUpQuietly(user.id);
    const outcome = await this.exclusive(call.sid, () =>
      this.#offerLead(call, { preferUserId: user.id }),
    );
    await this.presence.refresh(user.id);
    return {
      call: outcome.call ?? (await findCallBySid(this.#db, call.sid)) ?? call,
      lead,
      outcome,
    };
  }

  /**
   * Outbound (spec section 4): the agent places a call from the console (`outgoing-calls.ts`).
   */
  placeOutbound(
    user: UserRow,
    body: OutboundCallBody,
  ): Promise<{ call: CallRow; callUser: CallUserRow; lead: LeadRow }> {
    return this.#outgoing.placeOutbound(user, body);
  }

  /**
   * Keeps the agent out of routing while their phone runs a network test (issue 17): nothing
   * rings them meanwhile, and waiting leads stay queued or go to other agents. Refuses with
   * `PHONE_OFFLINE` when no device of theirs is registered and `ALREADY_ON_CALL` when they are
   * rung for or on a call. Resolves with the release: the agent is then routable again and
   * waiting leads are offered to them.
   */
  async holdAgentBack(user: Pick<UserRow, 'id' | 'accountId'>): Promise<() => Promise<void>> {
    if (!this.#telephony.isOnline(identityOf(user.id))) throw new AppError('PHONE_OFFLINE');
    const release = await this.#router.holdBack(user.accountId, user.id, () =>
      isRungOrOnCall(this.#db, user.id),
    );
    if (!release)
      throw new AppError('ALREADY_ON_CALL', 'Finish the call you are on or rung for first.');
    return async () => {
      release();
      await this.presence.refresh(user.id);
    };
  }

  /**
   * An inbound call to one of the account's numbers (the sandbox's virtual caller): the caller
   * is on the line in the call's room and the call is offered; nobody to take it ends it.
   */
  async inbound(
    accountId: number,
    callerNumber: { id: number; profileId: number | null; phoneNumber: string },
    from: string,
  ): Promise<{ call: CallRow; outcome: OfferOutcome }> {
    const call = await insertCall(this.#db, {
      accountId,
      leadId: null,
      profileId: callerNumber.profileId ?? (await this.#defaultProfile(accountId)),
      phoneNumber: from,
      type: 'lead',
      direction: 'inbound',
      source: 'inbound',
      callerNumberId: callerNumber.id,
    });
    const outcome = await this.exclusive(call.sid, async () => {
      const participantId = this.#telephony.addCaller(call.sid, from, callerNumber.phoneNumber);
      await insertCallPhone(this.#db, {
        callId: call.id,
        participantId,
        direction: 'inbound',
        phoneNumber: from,
        fromNumber: callerNumber.phoneNumber,
        // A caller is on the line from the moment they call in (no ringing on their side).
        state: 'answered',
        answeredAt: this.#clock.now(),
      });
      return this.#offerLead(call, {});
    });
    return { call: (await findCallBySid(this.#db, call.sid)) ?? call, outcome };
  }

  /**
   * 'Check for lead': offers the user the oldest web lead waiting for an agent of their teams.
   * Resolves with the call they are rung for, or null when no lead waits.
   */
  async checkForLead(user: UserRow): Promise<{ call: CallRow; outcome: OfferOutcome } | null> {
    await this.presence.endWrapUpQuietly(user.id);
    try {
      return await this.#checkForLead(user);
    } finally {
      await this.presence.refresh(user.id);
    }
  }

  async #checkForLead(user: UserRow): Promise<{ call: CallRow; outcome: OfferOutcome } | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const waiting = await oldestQueuedCall(this.#db, user.accountId, user.id);
      if (!waiting) return null;
      const outcome = await this.exclusive(waiting.sid, async (): Promise<OfferOutcome | null> => {
        // Claimed with the agent's ring in one transaction (`offerQueued`): a lead taken
        // meanwhile by another agent or instance is `taken`: look again.
        const result = await this.#router.offerQueued(waiting, {
          onlyUserIds: [user.id],
          checkHours: true,
        });
        if (result.kind === 'taken') return null;
        if (result.kind === 'rang') {
          this.#log.info({ callId: waiting.id, agentId: result.agent.id }, 'ringing agent');
          return { kind: 'rang', agentId: result.agent.id };
        }
        const fresh = (await findCallBySid(this.#db, waiting.sid)) ?? waiting;
        return this.#nobody(fresh, result.reason, true);
      });
      if (outcome) return { call: (await findCallBySid(this.#db, waiting.sid))!, outcome };
    }
    return null;
  }

  /**
   * The agent refused a ringing call from the console (Ignore, `/apps/webrtc/{id}/reject`): it
   * moves to the next agent. Resolves with what became of the call.
   */
  async agentIgnored(call: CallRow, userId: number): Promise<CallRow> {
    return this.exclusive(call.sid, async () => {
      const fresh = (await findCallById(this.#db, call.id)) ?? call;
      if (fresh.source === 'outbound' && fresh.userId === userId) {
        // The agent's own New Call, hung up while dialing: withdrawn at once if their softphone
        // never reached the gateway (not at the connect timeout); otherwise the softphone's
        // hang-up ends it.
        await this.#outgoing.withdrawUnconnected(fresh);
        return (await findCallById(this.#db, call.id)) ?? fresh;
      }
      const callUser = await findCallUserOf(this.#db, call.id, userId, 'ringing');
      if (!callUser) throw new AppError('NOT_RINGING');
      this.#telephony.cancelRing(call.sid, identityOf(userId));
      await this.#notAnswered(callUser, 'rejected');
      return (await findCallById(this.#db, call.id)) ?? call;
    });
  }

  /**
   * Rings a user into a live call as a participant of `type` (conference, listen, whisper,
   * barge). Resolves with the call-user row, or null if no device of theirs rang. Call it
   * inside `exclusive`.
   */
  async ringParticipant(
    call: CallRow,
    userId: number,
    type: Exclude<CallType, 'lead' | 'transfer'>,
    autoaccept: boolean,
    invitedByUserId: number | null = null,
  ): Promise<CallUserRow | null> {
    // A reservation with its expiry (routing/reservations.ts): null if a conference invitee
    // holds a live ring already, or none of their devices rang.
    const callUser = await this.#router.ringParticipant(call, {
      userId,
      type,
      autoaccept,
      invitedByUserId,
    });
    if (callUser) await this.presence.refresh(userId);
    return callUser;
  }

  /**
   * A transfer (inside `exclusive`): rings the agent, or the team's agents one at a time; when
   * one answers, `requester` leaves the call. Resolves with whether someone is being rung.
   */
  async startTransfer(
    call: CallRow,
    requester: number,
    target: { userId: number } | { teamId: number },
  ): Promise<boolean> {
    const result = await this.#router.offer(call, {
      type: 'transfer',
      invitedByUserId: requester,
      excludeUserIds: [requester],
      ...('userId' in target
        ? { teamId: null, onlyUserIds: [target.userId] }
        : { teamId: target.teamId }),
    });
    return result.kind === 'rang';
  }

  /**
   * Add Lead (`conferencelead`): a lead joins the user's call that has none (`add-lead.ts`).
   */
  addLead(
    call: CallRow,
    user: UserRow,
    body: ConferenceLeadBody,
  ): Promise<{ call: CallRow; lead: LeadRow; outcome: AddLeadOutcome; message: string | null }> {
    return this.#addLead.addLead(call, user, body);
  }

  /** Decides an outgoing call a device placed (`outgoing-calls.ts`). */
  authorizeOutgoing(
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision> {
    return this.#outgoing.authorizeOutgoing(identity, params);
  }

  /** Sweeps the queue: expired web leads end as busy/offline; free agents get waiting leads. */
  sweepQueue(): Promise<void> {
    return this.#scheduler.sweepQueue();
  }

  // ------------------------------------------------------------------ routing

  /**
   * Offers the call to the next eligible agent (inside `exclusive`). Nobody: a web lead that
   * may still be taken waits in the queue; otherwise the call ends with the reason.
   */
  async #offerLead(
    call: CallRow,
    request: { preferUserId?: number; onlyUserIds?: number[]; profile?: ProfileRow | null },
  ): Promise<OfferOutcome & { call?: CallRow }> {
    const live = isConnected(call.status);
    const result = await this.#router.offer(call, {
      type: 'lead',
      checkHours: !live,
      ...request,
    });
    if (result.kind === 'rang') {
      // The agent's presence is unchanged by a ring (available until they answer): nothing to
      // publish, and they are not free for the queue either.
      const rung = live ? call : await transitionCall(this.#db, call, 'ring', { reason: null });
      this.#log.info({ callId: call.id, agentId: result.agent.id }, 'ringing agent');
      return { kind: 'rang', agentId: result.agent.id, call: rung };
    }
    return this.#nobody(call, result.reason, request.onlyUserIds !== undefined);
  }

  /** Nobody could be offered the call: queue a web lead that may still be taken, else end it. */
  async #nobody(
    call: CallRow,
    reason: NobodyReason,
    askedByOne: boolean,
  ): Promise<OfferOutcome & { call?: CallRow }> {
    const fresh = (await findCallById(this.#db, call.id)) ?? call;
    if (isConnected(fresh.status)) {
      // A lead already on the line whose agent left and whom nobody took back.
      await this.#endings.finish(fresh, 'complete');
      return { kind: 'ended', reason };
    }
    const waits = fresh.source === 'web' && waitsInQueue(reason);
    // Check for lead asks one agent: a lead they cannot take waits on for the others.
    if (waits || (askedByOne && isQueued(fresh.status))) {
      if (isQueued(fresh.status) && fresh.waitingSince !== null) {
        return { kind: 'queued', reason, call: fresh };
      }
      const waiting = await transitionCall(this.#db, fresh, 'wait', {
        reason: waits ? reason : fresh.reason,
        waitingSince: fresh.waitingSince ?? this.#clock.now(),
      });
      this.#floorChanged(waiting, 'queued');
      return { kind: 'queued', reason, call: waiting };
    }
    this.#telephony.hangup(fresh.sid);
    const now = this.#clock.now();
    await this.#transaction(async (tx) => {
      await closeCallUsers(tx, fresh.id, now);
      await closeCallPhones(tx, fresh.id, now);
      await transitionCall(tx, fresh, NOBODY_EVENT[reason], { reason, endedAt: now });
    });
    this.#floorChanged(fresh, 'ended');
    return { kind: 'ended', reason };
  }

  async #ringTimedOut(callUserId: number): Promise<void> {
    const callUser = await findCallUserById(this.#db, callUserId);
    if (!callUser || callUser.outcome !== 'ringing') return;
    const call = await findCallById(this.#db, callUser.callId);
    if (call) this.#telephony.cancelRing(call.sid, identityOf(callUser.userId));
    await this.#notAnswered(callUser, 'missed');
  }

  /**
   * A rung user did not take the call (Ignore, reject, timeout, device gone): a lead call moves
   * to the next agent; a team transfer to the next member; a transfer nobody takes stays with
   * the agent who asked, or, if they left, is offered as a lead.
   */
  async #notAnswered(callUser: CallUserRow, outcome: 'rejected' | 'missed'): Promise<void> {
    this.#router.cancelRingTimer(callUser.id);
    // A compare-and-set: of the ring's timer, a sweeper (any instance), Ignore, one moves on.
    if (!(await this.#router.endRing(callUser.id, outcome))) return;
    await this.presence.refresh(callUser.userId);
    const call = await findCallById(this.#db, callUser.callId);
    if (!call) return;
    this.#floorChanged(call, 'ring-ended');
    if (isFinal(call.status)) return;
    switch (callUser.type) {
      case 'lead':
        if (isRinging(call.status)) await this.#offerLead(call, {});
        else if (isConnected(call.status)) await this.#endings.afterLeave(call, true);
        return;
      case 'transfer': {
        if (callUser.teamId !== null && callUser.invitedByUserId !== null) {
          const next = await this.#router.offer(call, {
            type: 'transfer',
            teamId: callUser.teamId,
            invitedByUserId: callUser.invitedByUserId,
            excludeUserIds: [callUser.invitedByUserId],
          });
          if (next.kind === 'rang') return;
        }
        return this.#endings.afterLeave(call, true);
      }
      default:
        return this.#endings.afterLeave(call);
    }
  }

  // ------------------------------------------------------------------ helpers

  /** Dials a number into the call from its caller number; records the phone party. */
  async #dial(call: CallRow, number: string): Promise<string> {
    const from = await this.#numbers.numberOf(call);
    const participantId = this.#telephony.dial(call.sid, number, from ? { from } : {});
    await insertCallPhone(this.#db, {
      callId: call.id,
      participantId,
      direction: 'outbound',
      phoneNumber: number,
      fromNumber: from,
    });
    return participantId;
  }

  /** The profile of the account's lead with this number, or the account's default profile. */
  async #leadProfile(accountId: number, phoneNumber: string): Promise<number | null> {
    const existing = await findLeadProfile(this.#db, accountId, phoneNumber);
    return existing ? existing.profileId : this.#defaultProfile(accountId);
  }

  async #defaultProfile(accountId: number): Promise<number | null> {
    return (await this.settings.defaultProfile(accountId))?.id ?? null;
  }

  /** Waits for the call's recording event (shutdown), at most `ms`. */
  #awaitRecording(callSid: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(done, ms);
      function done() {
        resolve();
      }
      this.#recordingWaiters.set(callSid, () => {
        this.#clock.clearTimeout(timer);
        this.#recordingWaiters.delete(callSid);
        // The recording's link is stored by the event's own task, queued behind this one.
        resolve();
      });
    });
  }

  /**
   * Runs `work` in a transaction. Its writes are counted for routing again once committed: a
   * PostgreSQL reader could have read what was there before while it ran (`routingChanges`).
   */
  async #transaction(
    work: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<void>,
  ): Promise<void> {
    await this.#db.transaction(work);
    routingChanged();
  }

  /** Runs `task` after the earlier tasks of `key`; its result or error reaches the caller. */
  async #locked<T>(key: string, task: () => Promise<T>): Promise<T> {
    let result: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    await this.#queue.run(key, async () => {
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
}
