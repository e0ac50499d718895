/**
 * The `Telephony` port's commands as Twilio REST calls. Each Leadline call is a Twilio *named
 * Conference* whose FriendlyName is the Leadline call sid; everyone in it is a participant with a
 * label Leadline chooses (`agent-<identity>`, `phone-<n>`, `caller-<n>`), and every later command
 * names the participant by that label (Twilio accepts a label in place of the leg's call sid).
 * Participants are created by name (`/Conferences/<call sid>/Participants`, which starts the
 * conference); later commands use the `CF…` sid Twilio answered with (or a callback reported).
 * Each command writes what it does to the shared {@link TwilioLegs} first, then sends its REST
 * calls; commands of one call run one after another, so a remove never overtakes its create.
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
 * A failure Twilio answers is logged; what it means for a leg (a dial refused, a participant
 * Twilio no longer knows) goes through the callbacks' lifecycle as if Twilio had reported it.
 */
import { randomInt } from 'node:crypto';
import type twilio from 'twilio';
import type { WireError } from '@leadline/contracts/signalling';
import type { AgentRole } from '../telephony/telephony';
import { conferenceTwiml } from './conference-twiml';
import type { TwilioCallQueues } from './twilio-call-queues';
import type { TwilioCallbacks } from './twilio-callbacks';
import { RESERVED_ROLES, type Party, type TwilioLegs } from './twilio-legs';
import { notFound, type TwilioParticipants } from './twilio-participants';

/**
 * How long a ring waits for the agent's legs of other calls, taken out, to be reported gone
 * (ms): a removal and its callback take milliseconds; on a loaded install, seconds.
 */
const OTHER_RINGS_WAIT_MS = 4_000;
/** How often it looks (ms). */
const OTHER_RINGS_POLL_MS = 25;
/** Twilio caps a participant's ring at 600 s; the flows cancel well before. */
const DEFAULT_RING_TIMEOUT_S = 60;
/** Conference events the provider listens to. */
const CONFERENCE_EVENTS = ['start', 'end', 'join', 'leave'];
/** A leg's call progress events the provider listens to. */
const LEG_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];
/**
 * An inbound call nobody placed is forgotten after this long: the voice webhook kept it waiting
 * at most `DEFAULT_INBOUND_WAIT_S` (twilio-webhooks.ts), then Twilio hung it up.
 */
export const CALLER_WAIT_MS = 120_000;

/** What the commands need. */
export interface TwilioCommandsOptions {
  client: twilio.Twilio;
  /** Where Twilio reaches this server, without a trailing slash. */
  publicBaseUrl: string;
  /** The `From` of an agent's ring that names none (E.164): see `TwilioTelephonyOptions`. */
  callerId: string;
  log: { warn(details: object, message: string): void };
  /** How long Twilio rings an agent's browser (s); the flows' own ring timer decides first. */
  ringTimeoutS?: number;
  legs: TwilioLegs;
  queues: TwilioCallQueues;
  participants: TwilioParticipants;
  /** Where what a command learnt of a leg goes, and the events it emits. */
  callbacks: TwilioCallbacks;
  now: () => number;
}

/** See the module comment. */
export class TwilioCommands {
  readonly #options: TwilioCommandsOptions;
  readonly #legs: TwilioLegs;
  readonly #queues: TwilioCallQueues;
  readonly #callbacks: TwilioCallbacks;
  readonly #now: () => number;
  /** Labels of phones dialled here: unique across instances (a random base) and in order. */
  #nextPhone = randomInt(1, 1_000_000) * 1000;

  constructor(options: TwilioCommandsOptions) {
    this.#options = options;
    this.#legs = options.legs;
    this.#queues = options.queues;
    this.#callbacks = options.callbacks;
    this.#now = options.now;
  }

  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    const role = options.role ?? 'agent';
    const label = agentLabel(identity);
    const added = this.#queues.write(callSid, () =>
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
    return this.#queues.run(callSid, async () => {
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
      void this.#queues.run(earlier.callSid, () => this.remove(earlier.callSid, earlier.label));
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
    const removed = this.#queues.write(callSid, () =>
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
    const added = this.#queues.write(callSid, () =>
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
    void this.#queues.run(callSid, async () => {
      await added;
      if (!from) {
        // Issue 36 (Twilio tenancy): no number of another account, ever; the flows' dial guard
        // refuses such a call with a sentence before it gets here.
        this.#options.log.warn({ callSid }, 'no caller number of the account: not dialled');
        await this.#callbacks.input(callSid, label, 'end', 'failed');
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
        await this.#callbacks.input(callSid, label, 'end', 'failed');
      }
    });
    return label;
  }

  /**
   * An inbound caller (on a Twilio call of its own since the voice webhook, `callerWaiting`)
   * joins the call as `caller-<n>` (the id returned): the first waiting call from `from` to `to`.
   * Still in its webhook, the webhook's answer joins it (`answerCaller`); already answered
   * with a wait, its call is updated with the join TwiML.
   */
  addCaller(callSid: string, from: string, to: string): string {
    const label = `caller-${this.#nextPhone++}`;
    const claimed = this.#queues.write(callSid, async () => {
      const claim = await this.#legs.claimCaller(from, to, this.callersSince(), {
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
    void this.#queues.run(callSid, async () => {
      const claim = await claimed;
      // Still in its webhook: the webhook's answer joins it.
      if (!claim || claim.state === 'webhook') return;
      try {
        await this.#options.client
          .calls(claim.twilioCallSid)
          .update({ twiml: this.joinTwiml(callSid, label, { waitsForAgent: true }) });
      } catch (error) {
        this.#options.log.warn({ err: error, callSid }, 'Twilio could not move the caller');
        await this.#callbacks.input(callSid, label, 'end', 'completed');
      }
    });
    return label;
  }

  /** Inbound calls that arrived since then still wait for `addCaller`; older ones are gone. */
  callersSince(): Date {
    return new Date(this.#now() - CALLER_WAIT_MS);
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
    await this.#queues.write(callSid, () =>
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
    const twiml = this.joinTwiml(callSid, label);
    const participantId = this.dial(callSid, dial.to, dial.from ? { from: dial.from } : {});
    void this.#callbacks.emit({
      type: 'outgoing.placed',
      callSid,
      identity,
      to: dial.to,
      participantId,
    });
    return twiml;
  }

  hangupPhone(callSid: string, participantId: string): void {
    const removed = this.#queues.write(callSid, () =>
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
    const set = this.#queues.write(callSid, () => this.#legs.setRole(callSid, label, role));
    void this.#queues.run(callSid, async () => {
      if (!(await set)) return;
      try {
        const participant = await this.#options.participants.participant(callSid, label);
        await participant.update(await this.#roleFields(callSid, role));
      } catch (error) {
        this.#options.log.warn({ err: error, callSid, identity, role }, 'Twilio role failed');
      }
    });
  }

  removeAgent(callSid: string, identity: string): void {
    const removed = this.#queues.write(callSid, () =>
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
    const phones = this.#queues.write(callSid, async () =>
      (await this.#legs.setHeld(callSid, held))
        ? (await this.#legs.partiesOf(callSid)).filter(
            (p) => p.kind === 'phone' && p.state === 'answered',
          )
        : [],
    );
    void this.#queues.run(callSid, async () => {
      for (const party of await phones) await this.#options.participants.hold(party, held);
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
    const marked = this.#queues.write(callSid, async () => {
      const parties = await this.#legs.partiesOf(callSid);
      await this.#legs.markRemoved(callSid, this.#date());
      return { parties, conferenceSid: await this.#legs.conferenceSid(callSid) };
    });
    void this.#queues.run(callSid, async () => {
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
   * Removes a marked party at Twilio. Once Twilio has the removal, no sweep sends it again; a
   * participant Twilio does not know is no longer there (ended, or never created: the instance
   * that was creating it died first, or its create finds it removed, {@link learn}), so it is
   * ended here without telling anyone. On any other failure the lease runs out and a sweep
   * tries again. Run it in the call's command queue.
   */
  async remove(callSid: string, label: string): Promise<void> {
    try {
      const participant = await this.#options.participants.participant(callSid, label);
      await participant.remove();
      await this.#legs.removeSent(callSid, label);
    } catch (error) {
      if (notFound(error)) {
        await this.#callbacks.input(callSid, label, 'end', 'completed');
        return;
      }
      this.#options.log.warn({ err: error, label }, 'Twilio could not remove');
    }
  }

  /** The TwiML that joins a call of its own (an inbound caller, an agent's outgoing call). */
  joinTwiml(callSid: string, label: string, options: { waitsForAgent?: boolean } = {}): string {
    return conferenceTwiml(callSid, {
      label,
      publicBaseUrl: this.#options.publicBaseUrl,
      ...options,
    });
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

  /** Removes the parties a command marked, each by its label. */
  #removeAll(callSid: string, marked: Promise<Party[]>): void {
    void this.#queues.run(callSid, async () => {
      for (const party of await marked) await this.remove(callSid, party.label);
    });
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
    if (party?.removed) await this.remove(callSid, label);
  }

  #date(): Date {
    return new Date(this.#now());
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
}

const agentLabel = (identity: string) => `agent-${identity}`;
