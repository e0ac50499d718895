/**
 * Twilio's status and recording callbacks, turned into the `Telephony` port's events. Each
 * participant's leg reports to `/twilio/status?call=<call sid>&label=<label>` (the signature
 * covers the query), and the conference reports `participant-join`/`participant-leave` (with
 * `ParticipantLabel`) and `conference-end` to `/twilio/status`. {@link TwilioCallbacks.handleStatus}
 * moves the party on through its lifecycle (`PARTY_TRANSITIONS` in twilio-legs.ts, one
 * compare-and-set shared by the instances), so an event is emitted only on a transition: a
 * repeated callback (also deduplicated by CallSid, event, status and SequenceNumber) or the same
 * fact told by both kinds of callback changes nothing twice. A party removed by a command reports
 * nothing more (as the port says). `recording.ready` carries the conference recording's URL as
 * `path` and Twilio's duration.
 *
 * The commands report here too what they learnt of a leg themselves (a dial Twilio refused, a
 * participant Twilio no longer knows), and the sweeper hands on the moves a dead instance left.
 */
import type { TelephonyEvent } from '../telephony/telephony';
import type { TwilioCallQueues } from './twilio-call-queues';
import type { Party, PartyInput, PendingMove, TwilioLegs } from './twilio-legs';
import type { TwilioParticipants } from './twilio-participants';

/** Twilio's call statuses that end a leg. */
const ENDED = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);
/** Recording callbacks remembered here at most (a repeat that late: webhook receipts). */
const RECORDED_KEPT = 10_000;

/** What the callbacks need. */
export interface TwilioCallbacksOptions {
  legs: TwilioLegs;
  queues: TwilioCallQueues;
  participants: TwilioParticipants;
  /** The time of a move (its lease runs from it). */
  now: () => number;
}

/** See the module comment. */
export class TwilioCallbacks {
  readonly #legs: TwilioLegs;
  readonly #queues: TwilioCallQueues;
  readonly #participants: TwilioParticipants;
  readonly #now: () => number;
  readonly #listeners = new Set<(event: TelephonyEvent) => unknown>();
  /** Recording callbacks already handled here (a repeat across instances: webhook receipts). */
  readonly #recorded = new Set<string>();

  constructor(options: TwilioCallbacksOptions) {
    this.#legs = options.legs;
    this.#queues = options.queues;
    this.#participants = options.participants;
    this.#now = options.now;
  }

  /**
   * A listener may return a promise: a callback is answered once the listeners of the events it
   * caused have settled (the flows reacted), so Twilio's next callback of the call finds it done.
   */
  subscribe(listener: (event: TelephonyEvent) => unknown): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether anyone listens yet (a move told to nobody would be marked done and lost). */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Tells every listener; resolves once the promises they returned have settled. */
  emit(event: TelephonyEvent): Promise<void> {
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
    await this.#queues.written(callSid);
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
      return this.input(callSid, label, 'answer', 'in-progress', leg);
    if (event === 'participant-leave') return this.input(callSid, label, 'end', 'completed', leg);
    const status = params.CallStatus;
    if (event !== undefined || status === undefined) return;
    if (status === 'ringing') return this.input(callSid, label, 'ringing', status, leg);
    if (status === 'in-progress' || status === 'answered') {
      return this.input(callSid, label, 'answer', status, leg);
    }
    if (ENDED.has(status)) return this.input(callSid, label, 'end', status, leg);
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
    if (this.#recorded.size > RECORDED_KEPT) {
      this.#recorded.delete(this.#recorded.values().next().value as string);
    }
    void this.emit({
      type: 'recording.ready',
      callSid,
      path: params.RecordingUrl,
      seconds: Number(params.RecordingDuration ?? 0) || 0,
    });
  }

  /** Moves the party on and tells the flows, once, whichever instance got there first. */
  async input(
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
    if (moved) await this.react(moved);
  }

  /**
   * Tells the flows what the party's pending move means and, once they reacted, marks it done.
   * A move of a party a command had removed tells nothing (a removal that came after the move,
   * say the flows' own reaction to it, does not silence it: see `pendingSilent`).
   */
  async react(party: Party): Promise<void> {
    const pending = party.pending;
    if (!pending) return;
    if (!pending.silent) {
      const event = eventOf(party, pending);
      if (event) await this.emit(event);
      if (event?.type === 'phone.answered' && (await this.#legs.held(party.callSid))) {
        void this.#queues.run(party.callSid, () => this.#participants.hold(party, true));
      }
    }
    await this.#legs.done(party.callSid, party.label, pending.input);
  }

  async #conferenceEnded(callSid: string): Promise<void> {
    for (const party of await this.#legs.partiesOf(callSid)) {
      await this.input(callSid, party.label, 'end', 'completed');
    }
    await this.#legs.forget(callSid);
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
