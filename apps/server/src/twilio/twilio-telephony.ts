/**
 * The `Telephony` port over Twilio Programmable Voice: each Leadline call is a Twilio *named
 * Conference* whose FriendlyName is the Leadline call sid, and everyone in it a participant with a
 * label Leadline chooses (`agent-<identity>`, `phone-<n>`, `caller-<n>`). Three lifecycles with
 * their own failures share one store of the parties ({@link TwilioLegs}, in the database, so that
 * several equal instances share it) and one order of each call's work ({@link TwilioCallQueues}):
 *
 * | part                     | file                        | what it does                                       |
 * | ------------------------ | --------------------------- | -------------------------------------------------- |
 * | {@link TwilioCommands}   | `twilio-commands.ts`        | the port's commands as REST calls (`ringAgent` … `hangup`): a failure is logged, or told as the leg's end |
 * | {@link TwilioCallbacks}  | `twilio-callbacks.ts`       | status and recording callbacks → the port's events, once per transition of a party (`PARTY_TRANSITIONS`) |
 * | {@link AbandonedMoveSweeper} | `abandoned-move-sweeper.ts` | what a dead instance left half done: moves not handed on, removals not sent |
 *
 * This class composes them, and keeps what is neither: the browsers' presence and the inbound
 * callers' bookkeeping.
 *
 * Inbound calls: the voice webhook records the Twilio call as waiting ({@link TwilioTelephony.callerWaiting});
 * `addCaller(callSid, from, to)` takes the oldest waiting call from `from` to `to` and returns
 * `caller-<n>` (its Twilio `CA…` sid kept as the party's leg); the webhook's own answer joins it
 * when the flows placed it during the webhook, otherwise the call is updated with the join TwiML.
 * Outgoing client calls: the voice webhook joins the agent's leg (`agent-<identity>`, answered)
 * and dials the number ({@link TwilioTelephony.placeOutgoing}, `outgoing.placed` as the engine).
 *
 * What Twilio cannot tell or carry: which browsers are registered (the server reports presence
 * through {@link TwilioTelephony.deviceOnline}); a `WireError` on `hangup` (the SDK sees a plain
 * disconnect); DTMF (`dtmf`, `phone.dtmf`: the SDK's digits go to the far end inside Twilio, no
 * callback reports them) and per-party recordings (`phone.recorded`) are not emitted;
 * `recording.ready` carries the conference recording's URL as `path` and Twilio's duration.
 */
import type twilio from 'twilio';
import type { WireError } from '@leadline/contracts/signalling';
import type { Db } from '../db/database';
import type { AgentRole, Telephony, TelephonyEvent } from '../telephony/telephony';
import { AbandonedMoveSweeper } from './abandoned-move-sweeper';
import { TwilioCallQueues } from './twilio-call-queues';
import { TwilioCallbacks } from './twilio-callbacks';
import { TwilioCommands } from './twilio-commands';
import { TwilioLegs } from './twilio-legs';
import { TwilioParticipants } from './twilio-participants';

export { PARTY_TRANSITIONS, type PartyInput, type PartyState } from './twilio-legs';
export { ABANDONED_SWEEP_MS } from './abandoned-move-sweeper';
export { CALLER_WAIT_MS } from './twilio-commands';

/** What the provider needs. */
export interface TwilioTelephonyOptions {
  client: twilio.Twilio;
  /** Where Twilio reaches this server, without a trailing slash. */
  publicBaseUrl: string;
  /**
   * The `From` of an agent's ring that names none (E.164). Never a phone's caller ID: the Twilio
   * account's numbers are shared by every Leadline account, so a dial must name the account's own.
   */
  callerId: string;
  log: { warn(details: object, message: string): void };
  /** Where the parties, conferences and waiting callers live (shared by the instances). */
  db: Db;
  /** How long Twilio rings an agent's browser (s); the flows' own ring timer decides first. */
  ringTimeoutS?: number;
  /** Music the lead hears on hold (Twilio's default when left out). */
  holdUrl?: string;
  /** Time, for forgetting inbound calls nobody placed (`Date.now` when left out). */
  clock?: { now(): number };
}

/** See the module comment. */
export class TwilioTelephony implements Telephony {
  readonly #now: () => number;
  readonly #legs: TwilioLegs;
  readonly #queues: TwilioCallQueues;
  readonly #commands: TwilioCommands;
  readonly #callbacks: TwilioCallbacks;
  readonly #sweeper: AbandonedMoveSweeper;
  readonly #online = new Set<string>();

  constructor(options: TwilioTelephonyOptions) {
    const { client, log, holdUrl } = options;
    const clock = options.clock;
    const now = clock ? () => clock.now() : () => Date.now();
    const legs = new TwilioLegs(options.db);
    const queues = new TwilioCallQueues(log);
    const participants = new TwilioParticipants({
      client,
      legs,
      log,
      ...(holdUrl === undefined ? {} : { holdUrl }),
    });
    const callbacks = new TwilioCallbacks({ legs, queues, participants, now });
    const commands = new TwilioCommands({
      client,
      publicBaseUrl: options.publicBaseUrl,
      callerId: options.callerId,
      log,
      ...(options.ringTimeoutS === undefined ? {} : { ringTimeoutS: options.ringTimeoutS }),
      legs,
      queues,
      participants,
      callbacks,
      now,
    });
    this.#now = now;
    this.#legs = legs;
    this.#queues = queues;
    this.#callbacks = callbacks;
    this.#commands = commands;
    this.#sweeper = new AbandonedMoveSweeper({ legs, queues, callbacks, commands, log, now });
  }

  /**
   * The server learnt that a browser of `identity` registered with Twilio or went away (Twilio
   * does not report registrations; the console's realtime presence or its token fetch does).
   */
  deviceOnline(identity: string, online: boolean): void {
    if (online === this.#online.has(identity)) return;
    if (online) this.#online.add(identity);
    else this.#online.delete(identity);
    void this.#callbacks.emit({ type: online ? 'device.online' : 'device.offline', identity });
  }

  /**
   * Another instance's news (the instance bus): `identity`'s device is online or gone. Only what
   * `isOnline` answers changes; no event (the instance that saw it has told its own flows).
   */
  knowOnline(identity: string, online: boolean): void {
    if (online) this.#online.add(identity);
    else this.#online.delete(identity);
  }

  isOnline(identity: string): boolean {
    return this.#online.has(identity);
  }

  /** Resolves once every write and command issued here so far is done (tests, shutdown). */
  idle(): Promise<void> {
    return this.#queues.idle();
  }

  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    return this.#commands.ringAgent(callSid, identity, params, options);
  }

  cancelRing(callSid: string, identity?: string): void {
    this.#commands.cancelRing(callSid, identity);
  }

  dial(callSid: string, number: string, options: { from?: string } = {}): string {
    return this.#commands.dial(callSid, number, options);
  }

  /** See {@link TwilioCommands.addCaller}. */
  addCaller(callSid: string, from: string, to: string): string {
    return this.#commands.addCaller(callSid, from, to);
  }

  /** The voice webhook received an inbound call (`CallSid`, `From`, `To` as Twilio posts them). */
  async callerWaiting(params: Record<string, string>): Promise<void> {
    const { CallSid: twilioCallSid, From: from, To: to } = params;
    if (!twilioCallSid || !from || !to) return;
    await this.#legs.callerArrived(twilioCallSid, from, to, new Date(this.#now()));
  }

  /** Forgets a waiting inbound call nobody will place (its number is no account's). */
  async forgetCaller(twilioCallSid: string): Promise<void> {
    await this.#legs.forgetCaller(twilioCallSid);
  }

  /** Inbound calls waiting for `addCaller` (their Twilio call sids), oldest first. */
  waitingCallers(): Promise<string[]> {
    return this.#legs.waitingCallers(this.#commands.callersSince());
  }

  /**
   * The voice webhook's answer for a waiting inbound call: the join TwiML when `addCaller`
   * claimed it meanwhile; `null` when it did not (the webhook answers with a wait, and a later
   * `addCaller` moves the call). A caller whose call already ended is refused with `ended`.
   */
  async answerCaller(twilioCallSid: string): Promise<{ join: string } | { ended: true } | null> {
    // The flows placed it here during the webhook: their claim is written first.
    await this.#queues.allWritten();
    const claim = await this.#legs.webhookAnswering(twilioCallSid);
    if (claim === null || claim === undefined) return null;
    const { callSid, label } = claim;
    if (await this.#legs.isRemoved(callSid, label)) return { ended: true };
    return { join: this.#commands.joinTwiml(callSid, label, { waitsForAgent: true }) };
  }

  /** See {@link TwilioCommands.placeOutgoing}. */
  placeOutgoing(
    callSid: string,
    identity: string,
    dial: { to: string; from?: string },
  ): Promise<string> {
    return this.#commands.placeOutgoing(callSid, identity, dial);
  }

  hangupPhone(callSid: string, participantId: string): void {
    this.#commands.hangupPhone(callSid, participantId);
  }

  setRole(callSid: string, identity: string, role: AgentRole): void {
    this.#commands.setRole(callSid, identity, role);
  }

  removeAgent(callSid: string, identity: string): void {
    this.#commands.removeAgent(callSid, identity);
  }

  hold(callSid: string): void {
    this.#commands.hold(callSid);
  }

  unhold(callSid: string): void {
    this.#commands.unhold(callSid);
  }

  /** See {@link TwilioCommands.hangup}. */
  hangup(callSid: string, error?: WireError): void {
    this.#commands.hangup(callSid, error);
  }

  /** See {@link TwilioCallbacks.subscribe}. */
  subscribe(listener: (event: TelephonyEvent) => unknown): () => void {
    return this.#callbacks.subscribe(listener);
  }

  /** See {@link TwilioCallbacks.handleStatus}. */
  handleStatus(query: Record<string, string>, params: Record<string, string>): Promise<void> {
    return this.#callbacks.handleStatus(query, params);
  }

  /** See {@link TwilioCallbacks.handleRecording}. */
  handleRecording(query: Record<string, string>, params: Record<string, string>): void {
    this.#callbacks.handleRecording(query, params);
  }

  /** See {@link AbandonedMoveSweeper.sweep}. */
  sweepAbandoned(limit?: number): Promise<number> {
    return this.#sweeper.sweep(limit);
  }

  /** Sweeps for abandoned moves every `everyMs` until {@link stopSweeping}. */
  startSweeping(everyMs?: number): void {
    this.#sweeper.start(everyMs);
  }

  stopSweeping(): void {
    this.#sweeper.stop();
  }
}
