/**
 * The `Telephony` port over Twilio Programmable Voice. Each Leadline call is a Twilio *named
 * Conference* whose FriendlyName is the Leadline call sid; everyone in it is a participant with a
 * label Leadline chooses (`agent-<identity>`, `phone-<n>`, `caller-<n>`), and every later command
 * names the participant by that label (Twilio accepts a label in place of the leg's call sid).
 * Participants are created by name (`/Conferences/<call sid>/Participants`, which starts the
 * conference); later commands use the `CF…` sid Twilio answered with (or a callback reported).
 * Commands of one call run one after another, so a remove never overtakes its create.
 *
 * | command        | REST                                                                           |
 * | -------------- | ------------------------------------------------------------------------------ |
 * | `ringAgent`    | create `to: client:<identity>?<params but From>`, `from: params.From`, label `agent-<identity>`, `timeout`, `muted` (listen), `coaching` + `callSidToCoach` (whisper) |
 * | `dial`         | create `to: <number>`, `from: <the account's number>`, label `phone-<n>`, early media; refused without a `from` |
 * | `addCaller`    | the waiting inbound call: answered by the voice webhook, or `Calls/<sid>` update with the join TwiML |
 * | `cancelRing`, `removeAgent`, `hangupPhone` | delete the participant by label                    |
 * | `setRole`      | update `muted`, `coaching`, `callSidToCoach`                                   |
 * | `hold`/`unhold`| update the phone parties' `hold` (+ `holdUrl`): the held party hears music and nobody hears it |
 * | `hangup`       | delete the participants still ringing, then update the conference `status: completed` |
 *
 * Events: each participant's leg reports to `/twilio/status?call=<call sid>&label=<label>` (the
 * signature covers the query), and the conference reports `participant-join`/`participant-leave`
 * (with `ParticipantLabel`) and `conference-end` to `/twilio/status`. {@link TwilioTelephony.handleStatus}
 * turns both into the port's events through one lifecycle per party (`PARTY_TRANSITIONS`), so an
 * event is emitted only on a transition: a repeated callback (also deduplicated by CallSid, event,
 * status and SequenceNumber) or the same fact told by both kinds of callback changes nothing
 * twice. A party removed by a command reports nothing more (as the port says).
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
import { randomInt } from 'node:crypto';
import type twilio from 'twilio';
import type { WireError } from '@leadline/contracts/signalling';
import type { Db } from '../db/database';
import type { AgentRole, Telephony, TelephonyEvent } from '../telephony/telephony';
import { conferenceTwiml } from './conference-twiml';
import {
  RESERVED_ROLES,
  TwilioLegs,
  type Party,
  type PartyInput,
  type PendingMove,
} from './twilio-legs';

export { PARTY_TRANSITIONS, type PartyInput, type PartyState } from './twilio-legs';

/**
 * How long a ring waits for the agent's legs of other calls, taken out, to be reported gone
 * (ms): a removal and its callback take milliseconds; on a loaded install, seconds.
 */
const OTHER_RINGS_WAIT_MS = 4_000;
/** How often it looks (ms). */
const OTHER_RINGS_POLL_MS = 25;
/** How often each instance looks for moves a dead instance left unreacted (ms). */
export const ABANDONED_SWEEP_MS = 2_000;
/** How many such moves one sweep takes. */
const ABANDONED_BATCH = 20;

/** Twilio's call statuses that end a leg. */
const ENDED = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

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

/** Twilio caps a participant's ring at 600 s; the flows cancel well before. */
const DEFAULT_RING_TIMEOUT_S = 60;
/** Conference events the provider listens to. */
const CONFERENCE_EVENTS = ['start', 'end', 'join', 'leave'];
/**
 * An inbound call nobody placed is forgotten after this long: the voice webhook kept it waiting
 * at most `DEFAULT_INBOUND_WAIT_S` (twilio-webhooks.ts), then Twilio hung it up.
 */
export const CALLER_WAIT_MS = 120_000;
/** A leg's call progress events the provider listens to. */
const LEG_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

/** See the module comment. */
export class TwilioTelephony implements Telephony {
  readonly #options: TwilioTelephonyOptions;
  readonly #now: () => number;
  readonly #legs: TwilioLegs;
  readonly #online = new Set<string>();
  readonly #listeners = new Set<(event: TelephonyEvent) => unknown>();
  /** Recording callbacks already handled here (a repeat across instances: webhook receipts). */
  readonly #recorded = new Set<string>();
  /** Each call's writes, in order: a callback handled here reads after them. */
  readonly #writes = new Map<string, Promise<unknown>>();
  /** Each call's REST commands, in order: a remove never overtakes its create. */
  readonly #chains = new Map<string, Promise<unknown>>();
  /** Labels of phones dialled here: unique across instances (a random base) and in order. */
  #nextPhone = randomInt(1, 1_000_000) * 1000;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: TwilioTelephonyOptions) {
    this.#options = options;
    this.#legs = new TwilioLegs(options.db);
    const clock = options.clock;
    this.#now = clock ? () => clock.now() : () => Date.now();
  }

  /**
   * The server learnt that a browser of `identity` registered with Twilio or went away (Twilio
   * does not report registrations; the console's realtime presence or its token fetch does).
   */
  deviceOnline(identity: string, online: boolean): void {
    if (online === this.#online.has(identity)) return;
    if (online) this.#online.add(identity);
    else this.#online.delete(identity);
    void this.#emit({ type: online ? 'device.online' : 'device.offline', identity });
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
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.#writes.values(), ...this.#chains.values()];
      if (pending.length === 0) return;
      await Promise.all(pending);
      if ([...this.#writes.values(), ...this.#chains.values()].every((p) => pending.includes(p))) {
        return;
      }
    }
  }

  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    const role = options.role ?? 'agent';
    const label = agentLabel(identity);
    const added = this.#write(callSid, () =>
      this.#legs.add({
        callSid,
        label,
        kind: 'agent',
        id: identity,
        role,
        state: 'ringing',
        legSid: null,
      }),
    );
    const { From, ...custom } = params;
    const query = new URLSearchParams(custom).toString();
    return this.#run(callSid, async () => {
      // A live party of that label already: it rings or talks.
      if (!(await added)) return 0;
      await this.#othersCancelled(identity, callSid, label, role);
      // Cancelled meanwhile (the flows have settled it): it never rings at Twilio.
      if (await this.#legs.isRemoved(callSid, label)) {
        await this.#legs.drop(callSid, label);
        return 1;
      }
      try {
        const created = await this.#options.client.conferences(callSid).participants.create({
          from: From ?? this.#options.callerId,
          to: `client:${identity}${query ? `?${query}` : ''}`,
          label,
          timeout: this.#options.ringTimeoutS ?? DEFAULT_RING_TIMEOUT_S,
          ...(await this.#roleFields(callSid, role)),
          ...this.#joining(callSid, label),
        });
        await this.#learn(callSid, label, created);
        return 1;
      } catch (error) {
        await this.#legs.drop(callSid, label);
        this.#options.log.warn({ err: error, callSid, identity }, 'Twilio refused to ring agent');
        return 0;
      }
    });
  }

  /**
   * Before an agent's browser rings for `callSid`: their legs of other calls are gone at Twilio
   * (the database holds one live ring per agent, but the leg of a ring or a call that ended
   * there may still be on until its end arrives), waiting at most {@link OTHER_RINGS_WAIT_MS}: a
   * browser never rings for two calls, nor while its last call is being hung up. For a ring that
   * is a reservation, the agent's earlier legs nobody took out (their instance died first: see
   * {@link TwilioLegs.supersede}) are removed first. It never waits on another call's commands
   * (they may be waiting on this one's).
   */
  async #othersCancelled(
    identity: string,
    callSid: string,
    label: string,
    role: AgentRole,
  ): Promise<void> {
    const stale = RESERVED_ROLES.includes(role)
      ? await this.#legs.supersede(identity, callSid, label, this.#date())
      : [];
    for (const earlier of stale) {
      this.#options.log.warn(
        { callSid, identity, earlier: earlier.callSid, state: earlier.state },
        'an earlier leg of the agent was left on: removing it',
      );
      void this.#run(earlier.callSid, () => this.#remove(earlier.callSid, earlier.label));
    }
    const deadline = this.#now() + OTHER_RINGS_WAIT_MS;
    while ((await this.#legs.ringingElsewhere(identity, callSid)).length > 0) {
      if (this.#now() >= deadline) {
        this.#options.log.warn({ callSid, identity }, 'an earlier ring of the agent is still on');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, OTHER_RINGS_POLL_MS));
    }
  }

  cancelRing(callSid: string, identity?: string): void {
    const removed = this.#write(callSid, () =>
      this.#legs.markRemoved(callSid, this.#date(), {
        kind: 'agent',
        states: ['dialling', 'ringing'],
        ...(identity === undefined ? {} : { label: agentLabel(identity) }),
      }),
    );
    this.#removeAll(callSid, removed);
  }

  dial(callSid: string, number: string, options: { from?: string } = {}): string {
    const label = `phone-${this.#nextPhone++}`;
    const from = options.from;
    const added = this.#write(callSid, () =>
      this.#legs.add({
        callSid,
        label,
        kind: 'phone',
        id: label,
        role: 'lead',
        state: 'dialling',
        legSid: null,
      }),
    );
    void this.#run(callSid, async () => {
      await added;
      if (!from) {
        // Issue 36 (Twilio tenancy): no number of another account, ever; the flows' dial guard
        // refuses such a call with a sentence before it gets here.
        this.#options.log.warn({ callSid }, 'no caller number of the account: not dialled');
        await this.#input(callSid, label, 'end', 'failed');
        return;
      }
      try {
        const created = await this.#options.client.conferences(callSid).participants.create({
          from,
          to: number,
          label,
          earlyMedia: true,
          ...this.#joining(callSid, label),
        });
        await this.#learn(callSid, label, created);
      } catch (error) {
        this.#options.log.warn({ err: error, callSid, number }, 'Twilio refused to dial');
        await this.#input(callSid, label, 'end', 'failed');
      }
    });
    return label;
  }

  /**
   * An inbound caller (on a Twilio call of its own since the voice webhook, {@link callerWaiting})
   * joins the call as `caller-<n>` (the id returned): the first waiting call from `from` to `to`.
   * Still in its webhook, the webhook's answer joins it ({@link answerCaller}); already answered
   * with a wait, its call is updated with the join TwiML.
   */
  addCaller(callSid: string, from: string, to: string): string {
    const label = `caller-${this.#nextPhone++}`;
    const claimed = this.#write(callSid, async () => {
      const claim = await this.#legs.claimCaller(from, to, this.#callersSince(), {
        callSid,
        label,
      });
      if (!claim) {
        this.#options.log.warn({ callSid, from, to }, 'No Twilio call is waiting for this caller');
        return null;
      }
      await this.#legs.put({
        callSid,
        label,
        kind: 'phone',
        id: label,
        role: 'lead',
        state: 'answered',
        legSid: claim.twilioCallSid,
      });
      return claim;
    });
    void this.#run(callSid, async () => {
      const claim = await claimed;
      // Still in its webhook: the webhook's answer joins it.
      if (!claim || claim.state === 'webhook') return;
      try {
        await this.#options.client
          .calls(claim.twilioCallSid)
          .update({ twiml: this.#joinTwiml(callSid, label, { waitsForAgent: true }) });
      } catch (error) {
        this.#options.log.warn({ err: error, callSid }, 'Twilio could not move the caller');
        await this.#input(callSid, label, 'end', 'completed');
      }
    });
    return label;
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
    return this.#legs.waitingCallers(this.#callersSince());
  }

  #callersSince(): Date {
    return new Date(this.#now() - CALLER_WAIT_MS);
  }

  /**
   * The voice webhook's answer for a waiting inbound call: the join TwiML when `addCaller`
   * claimed it meanwhile; `null` when it did not (the webhook answers with a wait, and a later
   * `addCaller` moves the call). A caller whose call already ended is refused with `ended`.
   */
  async answerCaller(twilioCallSid: string): Promise<{ join: string } | { ended: true } | null> {
    // The flows placed it here during the webhook: their claim is written first.
    await Promise.all(this.#writes.values());
    const claim = await this.#legs.webhookAnswering(twilioCallSid);
    if (claim === null || claim === undefined) return null;
    const { callSid, label } = claim;
    if (await this.#legs.isRemoved(callSid, label)) return { ended: true };
    return { join: this.#joinTwiml(callSid, label, { waitsForAgent: true }) };
  }

  /**
   * An agent's browser placed an outgoing call that the voice webhook joins to `callSid` as
   * `agent-<identity>` (answered from the start); the number is dialled into it. Emits
   * `outgoing.placed` with the dialled party's id, as the embedded engine does. Returns the TwiML
   * answering the agent's call.
   */
  async placeOutgoing(
    callSid: string,
    identity: string,
    dial: { to: string; from?: string },
  ): Promise<string> {
    const label = agentLabel(identity);
    await this.#write(callSid, () =>
      this.#legs.put({
        callSid,
        label,
        kind: 'agent',
        id: identity,
        role: 'agent',
        state: 'answered',
        legSid: null,
      }),
    );
    const twiml = this.#joinTwiml(callSid, label);
    const participantId = this.dial(callSid, dial.to, dial.from ? { from: dial.from } : {});
    void this.#emit({ type: 'outgoing.placed', callSid, identity, to: dial.to, participantId });
    return twiml;
  }

  hangupPhone(callSid: string, participantId: string): void {
    const removed = this.#write(callSid, () =>
      this.#legs.markRemoved(callSid, this.#date(), {
        label: participantId,
        kind: 'phone',
        states: ['dialling', 'ringing', 'answered'],
      }),
    );
    this.#removeAll(callSid, removed);
  }

  setRole(callSid: string, identity: string, role: AgentRole): void {
    const label = agentLabel(identity);
    const set = this.#write(callSid, () => this.#legs.setRole(callSid, label, role));
    void this.#run(callSid, async () => {
      if (!(await set)) return;
      try {
        const participant = await this.#participant(callSid, label);
        await participant.update(await this.#roleFields(callSid, role));
      } catch (error) {
        this.#options.log.warn({ err: error, callSid, identity, role }, 'Twilio role failed');
      }
    });
  }

  removeAgent(callSid: string, identity: string): void {
    const removed = this.#write(callSid, () =>
      this.#legs.markRemoved(callSid, this.#date(), {
        label: agentLabel(identity),
        states: ['dialling', 'ringing', 'answered'],
      }),
    );
    this.#removeAll(callSid, removed);
  }

  hold(callSid: string): void {
    this.#setHeld(callSid, true);
  }

  unhold(callSid: string): void {
    this.#setHeld(callSid, false);
  }

  #setHeld(callSid: string, held: boolean): void {
    const phones = this.#write(callSid, async () =>
      (await this.#legs.setHeld(callSid, held))
        ? (await this.#legs.partiesOf(callSid)).filter(
            (p) => p.kind === 'phone' && p.state === 'answered',
          )
        : [],
    );
    void this.#run(callSid, async () => {
      for (const party of await phones) await this.#hold(party, held);
    });
  }

  /**
   * Completes the conference, after cancelling the legs still ringing (an agent's browser, a
   * phone being dialled): they are not in the conference yet, so ending it need not stop them,
   * and one answered later would start a conference of the same name anew. Before Twilio named
   * the conference (no create answered, no callback yet: an inbound caller just joined), each
   * known leg is ended instead (`Calls/<sid>`: `canceled` while it rings, `completed` once
   * answered). The call's parties are forgotten: late callbacks change nothing.
   */
  hangup(callSid: string, _error?: WireError): void {
    const marked = this.#write(callSid, async () => {
      const parties = await this.#legs.partiesOf(callSid);
      await this.#legs.markRemoved(callSid, this.#date());
      return { parties, conferenceSid: await this.#legs.conferenceSid(callSid) };
    });
    void this.#run(callSid, async () => {
      const { parties, conferenceSid } = await marked;
      // Still ringing and not removed by an earlier command.
      const ringing = parties.filter(
        (p) => !p.removed && (p.state === 'dialling' || p.state === 'ringing'),
      );
      try {
        if (conferenceSid !== undefined) {
          for (const party of ringing) {
            await this.#options.client
              .conferences(conferenceSid)
              .participants(party.label)
              .remove()
              .catch((error: unknown) =>
                this.#options.log.warn(
                  { err: error, label: party.label },
                  'Twilio could not cancel',
                ),
              );
          }
          await this.#options.client.conferences(conferenceSid).update({ status: 'completed' });
        } else {
          for (const party of parties) {
            if (party.legSid === null || party.state === 'gone') continue;
            const status = party.state === 'answered' ? 'completed' : 'canceled';
            await this.#options.client.calls(party.legSid).update({ status });
          }
        }
      } catch (error) {
        this.#options.log.warn({ err: error, callSid }, 'Twilio could not end the call');
        // Not known to Twilio: nothing of it is left there. Otherwise the parties stay marked,
        // and a sweep removes each of them once their lease has passed.
        if (!notFound(error)) return;
      }
      await this.#legs.forget(callSid);
    });
  }

  /**
   * A listener may return a promise: a callback is answered once the listeners of the events it
   * caused have settled (the flows reacted), so Twilio's next callback of the call finds it done.
   */
  subscribe(listener: (event: TelephonyEvent) => unknown): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A status callback: a leg's (`query` names the call and label; `CallSid`, `CallStatus`) or the
   * conference's (`StatusCallbackEvent`, `FriendlyName`, `ParticipantLabel`). Anything unknown,
   * a repeat, or a fact another instance acted on already, is ignored.
   */
  async handleStatus(query: Record<string, string>, params: Record<string, string>): Promise<void> {
    const event = params.StatusCallbackEvent;
    const callSid = query.call ?? params.FriendlyName;
    if (!callSid) return;
    // What this instance commanded for the call is written before the callback is read.
    await this.#writes.get(callSid);
    if (params.ConferenceSid && event !== 'conference-end') {
      await this.#legs.learnConference(callSid, params.ConferenceSid);
    }
    if (event === 'conference-end') return this.#conferenceEnded(callSid);
    const label = query.label ?? params.ParticipantLabel;
    if (label === undefined) return;
    // A late report of an earlier leg with the same label (the agent rung again) is not this
    // one's: the step only moves a party whose leg is this one or not known yet.
    const leg = params.CallSid;
    if (event === 'participant-join')
      return this.#input(callSid, label, 'answer', 'in-progress', leg);
    if (event === 'participant-leave') return this.#input(callSid, label, 'end', 'completed', leg);
    const status = params.CallStatus;
    if (event !== undefined || status === undefined) return;
    if (status === 'ringing') return this.#input(callSid, label, 'ringing', status, leg);
    if (status === 'in-progress' || status === 'answered') {
      return this.#input(callSid, label, 'answer', status, leg);
    }
    if (ENDED.has(status)) return this.#input(callSid, label, 'end', status, leg);
  }

  /**
   * The conference's recording callback (`RecordingStatus`, `RecordingUrl`,
   * `RecordingDuration`, and the conference's `FriendlyName` in `query.call` or the body):
   * `recording.ready` with the recording's URL as `path` (fetching it needs the account's
   * credentials). Repeats are ignored.
   */
  handleRecording(query: Record<string, string>, params: Record<string, string>): void {
    const callSid = query.call ?? params.FriendlyName;
    if (!callSid || params.RecordingStatus !== 'completed' || !params.RecordingUrl) return;
    const key = `${callSid}|${params.RecordingSid ?? params.RecordingUrl}`;
    if (this.#recorded.has(key)) return;
    this.#recorded.add(key);
    // Bounded: the oldest are forgotten (a repeat that late is caught by the webhook receipts).
    if (this.#recorded.size > 10_000) {
      this.#recorded.delete(this.#recorded.values().next().value as string);
    }
    void this.#emit({
      type: 'recording.ready',
      callSid,
      path: params.RecordingUrl,
      seconds: Number(params.RecordingDuration ?? 0) || 0,
    });
  }

  /** Moves the party on and tells the flows, once, whichever instance got there first. */
  async #input(
    callSid: string,
    label: string,
    input: PartyInput,
    status: string,
    legSid?: string,
  ): Promise<void> {
    const moved = await this.#legs.step(
      callSid,
      label,
      input,
      status,
      new Date(this.#now()),
      legSid,
    );
    if (moved) await this.#react(moved);
  }

  /**
   * Tells the flows what the party's pending move means and, once they reacted, marks it done.
   * A move of a party a command had removed tells nothing (a removal that came after the move,
   * say the flows' own reaction to it, does not silence it: see `pendingSilent`).
   */
  async #react(party: Party): Promise<void> {
    const pending = party.pending;
    if (!pending) return;
    if (!pending.silent) {
      const event = eventOf(party, pending);
      if (event) await this.#emit(event);
      if (event?.type === 'phone.answered' && (await this.#legs.held(party.callSid))) {
        void this.#run(party.callSid, () => this.#hold(party, true));
      }
    }
    await this.#legs.done(party.callSid, party.label, pending.input);
  }

  /**
   * Takes over what another instance left half done when it died, a few at a time: hands this
   * instance's flows the moves it left unreacted, and sends Twilio the removals it left unsent
   * (each lease passed). Resolves with how many.
   */
  async sweepAbandoned(limit = ABANDONED_BATCH): Promise<number> {
    // Nobody to tell yet: a move told to nobody would be marked done and lost.
    if (this.#listeners.size === 0) return 0;
    const parties = await this.#legs.claimAbandoned(this.#date(), limit);
    for (const party of parties) {
      await this.#react(party).catch((error: unknown) =>
        this.#options.log.warn({ err: error, callSid: party.callSid }, 'Twilio move not handed on'),
      );
    }
    const removals = await this.#legs.claimUnsentRemovals(this.#date(), limit);
    for (const party of removals) {
      await this.#run(party.callSid, () => this.#remove(party.callSid, party.label));
    }
    return parties.length + removals.length;
  }

  /** Sweeps for abandoned moves every `everyMs` until {@link stopSweeping}. */
  startSweeping(everyMs = ABANDONED_SWEEP_MS): void {
    if (this.#sweeper) return;
    let running = false;
    this.#sweeper = setInterval(() => {
      if (running) return;
      running = true;
      void this.sweepAbandoned()
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error }, 'sweeping abandoned Twilio moves failed'),
        )
        .finally(() => (running = false));
    }, everyMs);
    this.#sweeper.unref?.();
  }

  stopSweeping(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  async #conferenceEnded(callSid: string): Promise<void> {
    for (const party of await this.#legs.partiesOf(callSid)) {
      await this.#input(callSid, party.label, 'end', 'completed');
    }
    await this.#legs.forget(callSid);
  }

  async #roleFields(callSid: string, role: string) {
    if (role === 'whisper') {
      const coached = (await this.#legs.partiesOf(callSid)).find(
        (p) => p.kind === 'agent' && p.role !== 'whisper' && p.role !== 'listen' && p.legSid,
      );
      if (coached?.legSid) return { muted: false, coaching: true, callSidToCoach: coached.legSid };
      this.#options.log.warn({ callSid }, 'No agent leg to coach: whispering as listen');
      return { muted: true, coaching: false };
    }
    return { muted: role === 'listen', coaching: false };
  }

  async #hold(party: Party, hold: boolean): Promise<void> {
    const holdUrl = this.#options.holdUrl;
    try {
      const participant = await this.#participant(party.callSid, party.label);
      await participant.update(hold && holdUrl ? { hold, holdUrl } : { hold });
    } catch (error) {
      this.#options.log.warn({ err: error, label: party.label, hold }, 'Twilio hold failed');
    }
  }

  /** Removes the parties a command marked, each by its label. */
  #removeAll(callSid: string, marked: Promise<Party[]>): void {
    void this.#run(callSid, async () => {
      for (const party of await marked) await this.#remove(callSid, party.label);
    });
  }

  /**
   * Removes a marked party at Twilio. Once Twilio has the removal, no sweep sends it again; a
   * participant Twilio does not know is no longer there (ended, or never created: the instance
   * that was creating it died first, or its create finds it removed, {@link learn}), so it is
   * ended here without telling anyone. On any other failure the lease runs out and a sweep
   * tries again.
   */
  async #remove(callSid: string, label: string): Promise<void> {
    try {
      const participant = await this.#participant(callSid, label);
      await participant.remove();
      await this.#legs.removeSent(callSid, label);
    } catch (error) {
      if (notFound(error)) {
        await this.#input(callSid, label, 'end', 'completed');
        return;
      }
      this.#options.log.warn({ err: error, label }, 'Twilio could not remove');
    }
  }

  /**
   * What a create answered: the conference's `CF…` sid and the leg's sid. A party another
   * instance removed while the create was on its way is removed now (its remove found nothing).
   */
  async #learn(
    callSid: string,
    label: string,
    created: { conferenceSid: string; callSid: string },
  ): Promise<void> {
    if (created.conferenceSid) await this.#legs.learnConference(callSid, created.conferenceSid);
    if (created.callSid) await this.#legs.learnLeg(callSid, label, created.callSid);
    const party = await this.#legs.party(callSid, label);
    if (party?.removed) await this.#remove(callSid, label);
  }

  async #participant(callSid: string, label: string) {
    const conferenceSid = await this.#legs.conferenceSid(callSid);
    return this.#options.client.conferences(conferenceSid ?? callSid).participants(label);
  }

  #date(): Date {
    return new Date(this.#now());
  }

  /** Runs a database write after the call's earlier writes. */
  #write<T>(callSid: string, write: () => Promise<T>): Promise<T> {
    return this.#chain(this.#writes, callSid, write);
  }

  /** Runs a REST `command` after the call's earlier commands. */
  #run<T>(callSid: string, command: () => Promise<T>): Promise<T> {
    return this.#chain(this.#chains, callSid, command);
  }

  #chain<T>(chains: Map<string, Promise<unknown>>, callSid: string, task: () => Promise<T>) {
    const previous = chains.get(callSid) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      (error: unknown) => this.#options.log.warn({ err: error, callSid }, 'Twilio provider failed'),
    );
    chains.set(callSid, settled);
    // Forgotten once the call has nothing more in flight.
    void settled.then(() => {
      if (chains.get(callSid) === settled) chains.delete(callSid);
    });
    return next;
  }

  /** How every participant joins: no beep, the conference goes on when it leaves, callbacks. */
  #joining(callSid: string, label: string) {
    return {
      beep: 'false',
      startConferenceOnEnter: true,
      endConferenceOnExit: false,
      ...this.#legCallbacks(callSid, label),
      ...this.#conferenceCallbacks(),
    };
  }

  #legCallbacks(callSid: string, label: string) {
    const query = new URLSearchParams({ call: callSid, label }).toString();
    return {
      statusCallback: `${this.#options.publicBaseUrl}/twilio/status?${query}`,
      statusCallbackMethod: 'POST',
      statusCallbackEvent: LEG_EVENTS,
    };
  }

  /** Used by whoever starts the conference (the first participant); ignored for the others. */
  #conferenceCallbacks() {
    const base = this.#options.publicBaseUrl;
    return {
      conferenceStatusCallback: `${base}/twilio/status`,
      conferenceStatusCallbackMethod: 'POST',
      conferenceStatusCallbackEvent: CONFERENCE_EVENTS,
      conferenceRecord: 'record-from-start',
      conferenceRecordingStatusCallback: `${base}/twilio/recording`,
      conferenceRecordingStatusCallbackMethod: 'POST',
      conferenceRecordingStatusCallbackEvent: ['completed'],
    };
  }

  #joinTwiml(callSid: string, label: string, options: { waitsForAgent?: boolean } = {}): string {
    return conferenceTwiml(callSid, {
      label,
      publicBaseUrl: this.#options.publicBaseUrl,
      ...options,
    });
  }

  #emit(event: TelephonyEvent): Promise<void> {
    const settled: Array<Promise<void>> = [];
    for (const listener of [...this.#listeners]) {
      const result = listener(event);
      if (result instanceof Promise)
        settled.push(
          result.then(
            () => undefined,
            () => undefined,
          ),
        );
    }
    return Promise.all(settled).then(() => undefined);
  }
}

/** What a party's move means for the flows (nothing for a phone's `ringing` of an agent…). */
function eventOf(party: Party, pending: PendingMove): TelephonyEvent | null {
  const { callSid } = party;
  const { input, status, wasRinging } = pending;
  if (party.kind === 'agent') {
    const identity = party.id;
    if (input === 'answer') return { type: 'agent.answered', callSid, identity };
    if (input === 'end' && wasRinging) return { type: 'agent.rejected', callSid, identity };
    if (input === 'end') {
      return {
        type: 'agent.left',
        callSid,
        identity,
        reason: status === 'failed' ? 'failed' : 'hangup',
      };
    }
    return null;
  }
  const participantId = party.id;
  if (input === 'ringing') return { type: 'phone.ringing', callSid, participantId };
  if (input === 'answer') return { type: 'phone.answered', callSid, participantId };
  if (wasRinging) {
    const reason = status === 'busy' ? 'busy' : status === 'failed' ? 'failed' : 'no-answer';
    return { type: 'phone.unanswered', callSid, participantId, reason };
  }
  return { type: 'phone.left', callSid, participantId };
}

const agentLabel = (identity: string) => `agent-${identity}`;

/** Twilio answered 404: it knows no such participant, conference or call. */
function notFound(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 404;
}
