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
import type twilio from 'twilio';
import type { WireError } from '@leadline/contracts/signalling';
import type { AgentRole, Telephony, TelephonyEvent } from '../telephony/telephony';
import { conferenceTwiml } from './conference-twiml';

/** Where a party is in its life; the table below is the whole lifecycle. */
export type PartyState = 'dialling' | 'ringing' | 'answered' | 'gone';
/** What Twilio told about a party's leg. */
export type PartyInput = 'ringing' | 'answer' | 'end';

/**
 * ```
 * dialling ─ringing→ ringing ─answer→ answered ─end→ gone
 *     └────────answer──────────────┘  (and end from any state but gone)
 * ```
 * A missing entry is no transition (a repeat or a late report): nothing happens.
 */
export const PARTY_TRANSITIONS: Record<PartyState, Partial<Record<PartyInput, PartyState>>> = {
  dialling: { ringing: 'ringing', answer: 'answered', end: 'gone' },
  ringing: { answer: 'answered', end: 'gone' },
  answered: { end: 'gone' },
  gone: {},
};

/** Twilio's call statuses that end a leg. */
const ENDED = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

interface Party {
  callSid: string;
  label: string;
  kind: 'agent' | 'phone';
  /** The identity (agent) or the participant id (phone; the label itself). */
  id: string;
  role: AgentRole | 'lead';
  state: PartyState;
  /** Taken out by a command: its end is not reported. */
  removed: boolean;
  /** Twilio's `CA…` sid of the leg, once known. */
  legSid?: string;
}

/** An inbound call waiting for `addCaller` (its voice webhook in flight, or answered with a wait). */
interface WaitingCaller {
  twilioCallSid: string;
  from: string;
  to: string;
  state: 'webhook' | 'waiting';
  /** When the voice webhook received it (clock ms). */
  sinceMs: number;
  /** Set by `addCaller`: the conference and label it joins. */
  claim?: { callSid: string; label: string };
}

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
  readonly #online = new Set<string>();
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();
  /** Parties by `<call sid>|<label>`. */
  readonly #parties = new Map<string, Party>();
  /** Twilio's `CF…` sid of each call's conference, once known. */
  readonly #conferences = new Map<string, string>();
  /** Calls with the lead on hold. */
  readonly #held = new Set<string>();
  /** Callbacks already handled, per call (dropped when its conference ends). */
  readonly #seen = new Map<string, Set<string>>();
  /** Each call's command chain: REST commands of a call run in order. */
  readonly #chains = new Map<string, Promise<unknown>>();
  readonly #waiting: WaitingCaller[] = [];
  #nextPhone = 1;

  constructor(options: TwilioTelephonyOptions) {
    this.#options = options;
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
    this.#emit({ type: online ? 'device.online' : 'device.offline', identity });
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

  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    const role = options.role ?? 'agent';
    const label = agentLabel(identity);
    const known = this.#parties.get(partyKey(callSid, label));
    if (known && known.state !== 'gone') return Promise.resolve(0);
    const party: Party = {
      callSid,
      label,
      kind: 'agent',
      id: identity,
      role,
      state: 'ringing',
      removed: false,
    };
    this.#parties.set(partyKey(callSid, label), party);
    const { From, ...custom } = params;
    const query = new URLSearchParams(custom).toString();
    return this.#run(callSid, async () => {
      try {
        const created = await this.#options.client.conferences(callSid).participants.create({
          from: From ?? this.#options.callerId,
          to: `client:${identity}${query ? `?${query}` : ''}`,
          label,
          timeout: this.#options.ringTimeoutS ?? DEFAULT_RING_TIMEOUT_S,
          ...this.#roleFields(callSid, role),
          ...this.#joining(callSid, label),
        });
        this.#learn(callSid, party, created);
        return 1;
      } catch (error) {
        if (this.#parties.get(partyKey(callSid, label)) === party) {
          this.#parties.delete(partyKey(callSid, label));
        }
        this.#options.log.warn({ err: error, callSid, identity }, 'Twilio refused to ring agent');
        return 0;
      }
    });
  }

  cancelRing(callSid: string, identity?: string): void {
    for (const party of this.#partiesOf(callSid)) {
      if (party.kind !== 'agent' || party.state !== 'ringing') continue;
      if (identity !== undefined && party.id !== identity) continue;
      this.#remove(party);
    }
  }

  dial(callSid: string, number: string, options: { from?: string } = {}): string {
    const label = `phone-${this.#nextPhone++}`;
    const party: Party = {
      callSid,
      label,
      kind: 'phone',
      id: label,
      role: 'lead',
      state: 'dialling',
      removed: false,
    };
    this.#parties.set(partyKey(callSid, label), party);
    const from = options.from;
    void this.#run(callSid, async () => {
      if (!from) {
        // Issue 36 (Twilio tenancy): no number of another account, ever; the flows' dial guard
        // refuses such a call with a sentence before it gets here.
        this.#options.log.warn({ callSid }, 'no caller number of the account: not dialled');
        if (this.#step(party, 'end') && !party.removed) {
          this.#emit({ type: 'phone.unanswered', callSid, participantId: label, reason: 'failed' });
        }
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
        this.#learn(callSid, party, created);
      } catch (error) {
        this.#options.log.warn({ err: error, callSid, number }, 'Twilio refused to dial');
        if (this.#step(party, 'end') && !party.removed) {
          this.#emit({ type: 'phone.unanswered', callSid, participantId: label, reason: 'failed' });
        }
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
    this.#forgetStaleCallers();
    const index = this.#waiting.findIndex((w) => w.from === from && w.to === to && !w.claim);
    const waiting = this.#waiting[index];
    if (!waiting) {
      this.#options.log.warn({ callSid, from, to }, 'No Twilio call is waiting for this caller');
      return label;
    }
    const party: Party = {
      callSid,
      label,
      kind: 'phone',
      id: label,
      role: 'lead',
      state: 'answered',
      removed: false,
      legSid: waiting.twilioCallSid,
    };
    this.#parties.set(partyKey(callSid, label), party);
    waiting.claim = { callSid, label };
    if (waiting.state === 'webhook') return label;
    this.#waiting.splice(index, 1);
    void this.#run(callSid, async () => {
      try {
        await this.#options.client
          .calls(waiting.twilioCallSid)
          .update({ twiml: this.#joinTwiml(callSid, label, { waitsForAgent: true }) });
      } catch (error) {
        this.#options.log.warn({ err: error, callSid }, 'Twilio could not move the caller');
        if (this.#step(party, 'end') && !party.removed) {
          this.#emit({ type: 'phone.left', callSid, participantId: label });
        }
      }
    });
    return label;
  }

  /** The voice webhook received an inbound call (`CallSid`, `From`, `To` as Twilio posts them). */
  callerWaiting(params: Record<string, string>): void {
    const { CallSid: twilioCallSid, From: from, To: to } = params;
    if (!twilioCallSid || !from || !to) return;
    this.#forgetStaleCallers();
    if (this.#waiting.some((w) => w.twilioCallSid === twilioCallSid)) return;
    this.#waiting.push({ twilioCallSid, from, to, state: 'webhook', sinceMs: this.#now() });
  }

  /** Forgets a waiting inbound call nobody will place (its number is no account's). */
  forgetCaller(twilioCallSid: string): void {
    const index = this.#waiting.findIndex((w) => w.twilioCallSid === twilioCallSid && !w.claim);
    if (index >= 0) this.#waiting.splice(index, 1);
  }

  /** Inbound calls waiting for `addCaller` (their Twilio call sids), oldest first. */
  waitingCallers(): string[] {
    this.#forgetStaleCallers();
    return this.#waiting.map((w) => w.twilioCallSid);
  }

  #forgetStaleCallers(): void {
    const now = this.#now();
    for (let i = this.#waiting.length - 1; i >= 0; i--) {
      const waiting = this.#waiting[i]!;
      if (!waiting.claim && now - waiting.sinceMs > CALLER_WAIT_MS) this.#waiting.splice(i, 1);
    }
  }

  /**
   * The voice webhook's answer for a waiting inbound call: the join TwiML when `addCaller`
   * claimed it meanwhile; `null` when it did not (the webhook answers with a wait, and a later
   * `addCaller` moves the call). A caller whose call already ended is refused with `ended`.
   */
  answerCaller(twilioCallSid: string): { join: string } | { ended: true } | null {
    const index = this.#waiting.findIndex((w) => w.twilioCallSid === twilioCallSid);
    const waiting = this.#waiting[index];
    if (!waiting) return null;
    if (!waiting.claim) {
      waiting.state = 'waiting';
      return null;
    }
    this.#waiting.splice(index, 1);
    const { callSid, label } = waiting.claim;
    const party = this.#parties.get(partyKey(callSid, label));
    if (!party || party.removed) return { ended: true };
    return { join: this.#joinTwiml(callSid, label, { waitsForAgent: true }) };
  }

  /**
   * An agent's browser placed an outgoing call that the voice webhook joins to `callSid` as
   * `agent-<identity>` (answered from the start); the number is dialled into it. Emits
   * `outgoing.placed` with the dialled party's id, as the embedded engine does. Returns the TwiML
   * answering the agent's call.
   */
  placeOutgoing(callSid: string, identity: string, dial: { to: string; from?: string }): string {
    const label = agentLabel(identity);
    this.#parties.set(partyKey(callSid, label), {
      callSid,
      label,
      kind: 'agent',
      id: identity,
      role: 'agent',
      state: 'answered',
      removed: false,
    });
    const twiml = this.#joinTwiml(callSid, label);
    const participantId = this.dial(callSid, dial.to, dial.from ? { from: dial.from } : {});
    this.#emit({ type: 'outgoing.placed', callSid, identity, to: dial.to, participantId });
    return twiml;
  }

  hangupPhone(callSid: string, participantId: string): void {
    const party = this.#parties.get(partyKey(callSid, participantId));
    if (party?.kind === 'phone' && party.state !== 'gone') this.#remove(party);
  }

  setRole(callSid: string, identity: string, role: AgentRole): void {
    const party = this.#parties.get(partyKey(callSid, agentLabel(identity)));
    if (!party || party.state === 'gone') return;
    party.role = role;
    void this.#run(callSid, () =>
      this.#participant(callSid, party.label)
        .update(this.#roleFields(callSid, role))
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error, callSid, identity, role }, 'Twilio role failed'),
        ),
    );
  }

  removeAgent(callSid: string, identity: string): void {
    const party = this.#parties.get(partyKey(callSid, agentLabel(identity)));
    if (party && party.state !== 'gone') this.#remove(party);
  }

  hold(callSid: string): void {
    if (this.#held.has(callSid)) return;
    this.#held.add(callSid);
    for (const party of this.#partiesOf(callSid)) {
      if (party.kind === 'phone' && party.state === 'answered') this.#hold(party, true);
    }
  }

  unhold(callSid: string): void {
    if (!this.#held.delete(callSid)) return;
    for (const party of this.#partiesOf(callSid)) {
      if (party.kind === 'phone' && party.state === 'answered') this.#hold(party, false);
    }
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
    this.#held.delete(callSid);
    const parties = this.#partiesOf(callSid);
    // Still ringing and not removed by an earlier command.
    const ringing = parties.filter(
      (p) => !p.removed && (p.state === 'dialling' || p.state === 'ringing'),
    );
    for (const party of parties) party.removed = true;
    void this.#run(callSid, async () => {
      const conferenceSid = this.#conferences.get(callSid);
      try {
        if (conferenceSid !== undefined) {
          for (const party of ringing) {
            await this.#participant(callSid, party.label)
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
            if (party.legSid === undefined || party.state === 'gone') continue;
            const status = party.state === 'answered' ? 'completed' : 'canceled';
            await this.#options.client.calls(party.legSid).update({ status });
          }
        }
      } catch (error) {
        this.#options.log.warn({ err: error, callSid }, 'Twilio could not end the call');
      }
      for (const party of parties) this.#parties.delete(partyKey(callSid, party.label));
      this.#conferences.delete(callSid);
      this.#seen.delete(callSid);
    });
  }

  subscribe(listener: (event: TelephonyEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A status callback: a leg's (`query` names the call and label; `CallSid`, `CallStatus`) or the
   * conference's (`StatusCallbackEvent`, `FriendlyName`, `ParticipantLabel`). Anything unknown,
   * or a repeat, is ignored.
   */
  handleStatus(query: Record<string, string>, params: Record<string, string>): void {
    const event = params.StatusCallbackEvent;
    const callSid = query.call ?? params.FriendlyName;
    if (!callSid) return;
    const seen = this.#seen.get(callSid) ?? new Set<string>();
    this.#seen.set(callSid, seen);
    const key = [
      params.CallSid,
      event,
      params.CallStatus,
      params.SequenceNumber,
      query.label ?? params.ParticipantLabel,
    ].join('|');
    if (seen.has(key)) return;
    seen.add(key);
    if (params.ConferenceSid) this.#conferences.set(callSid, params.ConferenceSid);
    if (event === 'conference-end') return this.#conferenceEnded(callSid);
    const label = query.label ?? params.ParticipantLabel;
    const party = label === undefined ? undefined : this.#parties.get(partyKey(callSid, label));
    if (!party) return;
    // A late report of an earlier leg with the same label (the agent rung again) is not this one's.
    if (params.CallSid && party.legSid && party.legSid !== params.CallSid) return;
    if (params.CallSid) party.legSid = params.CallSid;
    if (event === 'participant-join') return this.#input(party, 'answer', 'in-progress');
    if (event === 'participant-leave') return this.#input(party, 'end', 'completed');
    const status = params.CallStatus;
    if (event !== undefined || status === undefined) return;
    if (status === 'ringing') this.#input(party, 'ringing', status);
    else if (status === 'in-progress' || status === 'answered') {
      this.#input(party, 'answer', status);
    } else if (ENDED.has(status)) this.#input(party, 'end', status);
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
    const seen = this.#seen.get(callSid) ?? new Set<string>();
    this.#seen.set(callSid, seen);
    const key = `recording|${params.RecordingSid ?? params.RecordingUrl}`;
    if (seen.has(key)) return;
    seen.add(key);
    this.#emit({
      type: 'recording.ready',
      callSid,
      path: params.RecordingUrl,
      seconds: Number(params.RecordingDuration ?? 0) || 0,
    });
  }

  #input(party: Party, input: PartyInput, status: string): void {
    const wasRinging = party.state === 'dialling' || party.state === 'ringing';
    if (!this.#step(party, input)) return;
    const { callSid } = party;
    if (party.state === 'gone') this.#parties.delete(partyKey(callSid, party.label));
    if (party.removed) return;
    if (party.kind === 'agent') {
      const identity = party.id;
      if (input === 'answer') this.#emit({ type: 'agent.answered', callSid, identity });
      else if (input === 'end' && wasRinging) {
        this.#emit({ type: 'agent.rejected', callSid, identity });
      } else if (input === 'end') {
        const reason = status === 'failed' ? 'failed' : 'hangup';
        this.#emit({ type: 'agent.left', callSid, identity, reason });
      }
      return;
    }
    const participantId = party.id;
    if (input === 'ringing') this.#emit({ type: 'phone.ringing', callSid, participantId });
    else if (input === 'answer') {
      this.#emit({ type: 'phone.answered', callSid, participantId });
      if (this.#held.has(callSid)) this.#hold(party, true);
    } else if (wasRinging) {
      const reason = status === 'busy' ? 'busy' : status === 'failed' ? 'failed' : 'no-answer';
      this.#emit({ type: 'phone.unanswered', callSid, participantId, reason });
    } else this.#emit({ type: 'phone.left', callSid, participantId });
  }

  /** Moves the party along its lifecycle; false when the input is no transition. */
  #step(party: Party, input: PartyInput): boolean {
    const next = PARTY_TRANSITIONS[party.state][input];
    if (next === undefined) return false;
    party.state = next;
    return true;
  }

  #conferenceEnded(callSid: string): void {
    for (const party of this.#partiesOf(callSid)) this.#input(party, 'end', 'completed');
    this.#conferences.delete(callSid);
    this.#held.delete(callSid);
    this.#seen.delete(callSid);
    this.#chains.delete(callSid);
  }

  #roleFields(callSid: string, role: AgentRole) {
    if (role === 'whisper') {
      const coached = this.#partiesOf(callSid).find(
        (p) => p.kind === 'agent' && p.role !== 'whisper' && p.role !== 'listen' && p.legSid,
      );
      if (coached?.legSid) return { muted: false, coaching: true, callSidToCoach: coached.legSid };
      this.#options.log.warn({ callSid }, 'No agent leg to coach: whispering as listen');
      return { muted: true, coaching: false };
    }
    return { muted: role === 'listen', coaching: false };
  }

  #hold(party: Party, hold: boolean): void {
    const holdUrl = this.#options.holdUrl;
    void this.#run(party.callSid, () =>
      this.#participant(party.callSid, party.label)
        .update(hold && holdUrl ? { hold, holdUrl } : { hold })
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error, label: party.label, hold }, 'Twilio hold failed'),
        ),
    );
  }

  #remove(party: Party): void {
    party.removed = true;
    void this.#run(party.callSid, () =>
      this.#participant(party.callSid, party.label)
        .remove()
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error, label: party.label }, 'Twilio could not remove'),
        ),
    );
  }

  /** What a create answered: the conference's `CF…` sid and the leg's sid. */
  #learn(callSid: string, party: Party, created: { conferenceSid: string; callSid: string }) {
    if (created.conferenceSid) this.#conferences.set(callSid, created.conferenceSid);
    if (created.callSid) party.legSid ??= created.callSid;
  }

  #participant(callSid: string, label: string) {
    return this.#options.client
      .conferences(this.#conferences.get(callSid) ?? callSid)
      .participants(label);
  }

  /** Runs `command` after the call's earlier commands. */
  #run<T>(callSid: string, command: () => Promise<T>): Promise<T> {
    const previous = this.#chains.get(callSid) ?? Promise.resolve();
    const next = previous.then(command, command);
    this.#chains.set(
      callSid,
      next.catch(() => undefined),
    );
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

  #partiesOf(callSid: string): Party[] {
    return [...this.#parties.values()].filter((p) => p.callSid === callSid);
  }

  #emit(event: TelephonyEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}

const agentLabel = (identity: string) => `agent-${identity}`;
const partyKey = (callSid: string, label: string) => `${callSid}|${label}`;
