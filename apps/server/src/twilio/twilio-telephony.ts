/**
 * The `Telephony` port over Twilio Programmable Voice (`TELEPHONY_PROVIDER=twilio`). Each Leadline
 * call is a Twilio Conference named after the Leadline call sid; everyone in it is a conference
 * participant added through the REST API with a label Leadline chooses, so every later command
 * names the participant by its label (Twilio accepts a label in place of a call sid):
 *
 * | command                 | REST (`/Conferences/<call sid>/Participants…`)                                  |
 * | ----------------------- | ------------------------------------------------------------------------------- |
 * | `ringAgent`             | create `to: client:<identity>`, `from: params.From` (`client:<call user id>`, what the console reads), label `agent-<identity>`, muted for listen |
 * | `dial`                  | create `to: <number>`, `from: <caller ID>`, label `phone-<n>` (returned)         |
 * | `cancelRing`, `removeAgent`, `hangupPhone` | delete the participant by label                             |
 * | `setRole`               | update `muted`, `coaching` and `callSidToCoach` (whisper coaches the call's agent) |
 * | `hold` / `unhold`       | update the phone parties' `hold`                                                |
 * | `hangup`                | update the conference `status: completed`                                       |
 *
 * Each participant's call status callback comes to `/twilio/status?call=<call sid>&label=<label>`
 * (the signature covers the query, so it cannot be forged) and becomes the engine's events:
 * `agent.answered` / `agent.rejected` / `agent.left`, `phone.ringing` / `phone.answered` /
 * `phone.unanswered` / `phone.left`. A repeated callback (same call, same status) is ignored.
 *
 * Not covered yet (issue 20 note): which browsers are registered (Twilio does not tell; the server
 * reports it through `deviceOnline`), inbound calls (`addCaller`), DTMF and the recording
 * callback, and the REST calls of `ringAgent` carry no custom parameters besides `From`.
 */
import type twilio from 'twilio';
import type { AgentRole, Telephony, TelephonyEvent } from '../telephony/telephony';
import { TWILIO_WEBHOOK_PATHS } from './signed-webhooks';

/** Call statuses Twilio reports for a participant's call leg. */
type CallStatus =
  | 'queued'
  | 'initiated'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled';

interface Party {
  callSid: string;
  /** `agent` (identity) or `phone` (participant id). */
  kind: 'agent' | 'phone';
  id: string;
  role: AgentRole | 'lead';
  answered: boolean;
  /** Removed by a command: its end is not reported as the party leaving by itself. */
  removed: boolean;
  /** Twilio's call sid of the leg, once a callback named it. */
  legSid?: string;
}

/** What the provider needs. */
export interface TwilioTelephonyOptions {
  client: twilio.Twilio;
  /** Where Twilio reaches this server, without a trailing slash. */
  publicBaseUrl: string;
  /** Caller ID for dialled numbers when the call names none (E.164). */
  defaultCallerId: string;
  /** How long an agent's browser rings (seconds); the flows' own ring timer decides first. */
  ringTimeoutS: number;
  log: { warn(details: object, message: string): void };
}

/** See the module comment. */
export class TwilioTelephony implements Telephony {
  readonly #online = new Set<string>();
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();
  readonly #parties = new Map<string, Party>();
  readonly #seen = new Set<string>();
  #nextPhone = 1;

  constructor(private readonly options: TwilioTelephonyOptions) {}

  /** The server learnt that a browser of `identity` registered with Twilio or went away. */
  deviceOnline(identity: string, online: boolean): void {
    if (online === this.#online.has(identity)) return;
    if (online) this.#online.add(identity);
    else this.#online.delete(identity);
    this.#emit({ type: online ? 'device.online' : 'device.offline', identity });
  }

  isOnline(identity: string): boolean {
    return this.#online.has(identity);
  }

  async ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    const role = options.role ?? 'agent';
    const label = agentLabel(identity);
    this.#parties.set(partyKey(callSid, label), {
      callSid,
      kind: 'agent',
      id: identity,
      role,
      answered: false,
      removed: false,
    });
    try {
      await this.#participants(callSid).create({
        from: params.From ?? this.options.defaultCallerId,
        to: `client:${identity}`,
        label,
        timeout: this.options.ringTimeoutS,
        muted: role === 'listen',
        beep: 'false',
        startConferenceOnEnter: true,
        endConferenceOnExit: false,
        ...this.#callbacks(callSid, label),
      });
      return 1;
    } catch (error) {
      this.#parties.delete(partyKey(callSid, label));
      this.options.log.warn({ err: error, callSid, identity }, 'Twilio could not ring the agent');
      return 0;
    }
  }

  cancelRing(callSid: string, identity?: string): void {
    for (const party of this.#partiesOf(callSid)) {
      if (party.kind !== 'agent' || party.answered) continue;
      if (identity !== undefined && party.id !== identity) continue;
      this.#remove(party, agentLabel(party.id));
    }
  }

  dial(callSid: string, number: string, options: { from?: string } = {}): string {
    const id = `phone-${this.#nextPhone++}`;
    const party: Party = {
      callSid,
      kind: 'phone',
      id,
      role: 'lead',
      answered: false,
      removed: false,
    };
    this.#parties.set(partyKey(callSid, id), party);
    this.#participants(callSid)
      .create({
        from: options.from ?? this.options.defaultCallerId,
        to: number,
        label: id,
        earlyMedia: true,
        beep: 'false',
        startConferenceOnEnter: true,
        endConferenceOnExit: false,
        ...this.#callbacks(callSid, id),
      })
      .catch((error: unknown) => {
        this.options.log.warn({ err: error, callSid, number }, 'Twilio could not dial');
        if (party.removed) return;
        party.removed = true;
        this.#emit({ type: 'phone.unanswered', callSid, participantId: id, reason: 'failed' });
      });
    return id;
  }

  addCaller(): string {
    throw new Error('Inbound calls through Twilio are not built yet (issue 20).');
  }

  hangupPhone(callSid: string, participantId: string): void {
    const party = this.#parties.get(partyKey(callSid, participantId));
    if (party) this.#remove(party, participantId);
  }

  setRole(callSid: string, identity: string, role: AgentRole): void {
    const party = this.#parties.get(partyKey(callSid, agentLabel(identity)));
    if (!party) return;
    party.role = role;
    const coached = this.#partiesOf(callSid).find(
      (p) => p.kind === 'agent' && p.role === 'agent' && p.answered && p.legSid,
    );
    const update =
      role === 'whisper' && coached?.legSid
        ? { muted: false, coaching: true, callSidToCoach: coached.legSid }
        : { muted: role === 'listen', coaching: false };
    this.#participant(callSid, agentLabel(identity))
      .update(update)
      .catch((error: unknown) =>
        this.options.log.warn({ err: error, callSid, identity, role }, 'Twilio role change failed'),
      );
  }

  removeAgent(callSid: string, identity: string): void {
    const party = this.#parties.get(partyKey(callSid, agentLabel(identity)));
    if (party) this.#remove(party, agentLabel(identity));
  }

  hold(callSid: string): void {
    this.#holdPhones(callSid, true);
  }

  unhold(callSid: string): void {
    this.#holdPhones(callSid, false);
  }

  hangup(callSid: string): void {
    for (const party of this.#partiesOf(callSid)) party.removed = true;
    this.options.client
      .conferences(callSid)
      .update({ status: 'completed' })
      .catch((error: unknown) =>
        this.options.log.warn({ err: error, callSid }, 'Twilio could not end the conference'),
      )
      .finally(() => {
        for (const key of [...this.#parties.keys()]) {
          if (this.#parties.get(key)?.callSid === callSid) this.#parties.delete(key);
        }
      });
  }

  subscribe(listener: (event: TelephonyEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A participant's call status callback (`/twilio/status?call=…&label=…`, fields as Twilio
   * posts them: `CallSid`, `CallStatus`). Anything else, or a repeat, is ignored.
   */
  handleStatus(query: Record<string, string>, params: Record<string, string>): void {
    const { call: callSid, label } = query;
    const status = params.CallStatus as CallStatus | undefined;
    if (!callSid || !label || !status) return;
    const party = this.#parties.get(partyKey(callSid, label));
    if (!party) return;
    const once = `${callSid}|${label}|${params.CallSid ?? ''}|${status}`;
    if (this.#seen.has(once)) return;
    this.#seen.add(once);
    if (params.CallSid) party.legSid = params.CallSid;
    if (party.kind === 'agent') this.#agentStatus(party, status);
    else this.#phoneStatus(party, status);
  }

  #agentStatus(party: Party, status: CallStatus): void {
    const { callSid, id: identity } = party;
    if (status === 'in-progress' && !party.answered) {
      party.answered = true;
      this.#emit({ type: 'agent.answered', callSid, identity });
      return;
    }
    const ended = ['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(status);
    if (!ended) return;
    this.#parties.delete(partyKey(callSid, agentLabel(identity)));
    if (party.removed) return;
    if (party.answered) {
      this.#emit({
        type: 'agent.left',
        callSid,
        identity,
        reason: status === 'failed' ? 'failed' : 'hangup',
      });
    } else {
      this.#emit({ type: 'agent.rejected', callSid, identity });
    }
  }

  #phoneStatus(party: Party, status: CallStatus): void {
    const { callSid, id: participantId } = party;
    switch (status) {
      case 'ringing':
        if (!party.answered) this.#emit({ type: 'phone.ringing', callSid, participantId });
        return;
      case 'in-progress':
        if (party.answered) return;
        party.answered = true;
        this.#emit({ type: 'phone.answered', callSid, participantId });
        return;
      case 'busy':
      case 'no-answer':
      case 'failed':
        this.#parties.delete(partyKey(callSid, participantId));
        if (!party.removed) {
          this.#emit({ type: 'phone.unanswered', callSid, participantId, reason: status });
        }
        return;
      case 'completed':
      case 'canceled':
        this.#parties.delete(partyKey(callSid, participantId));
        if (party.removed) return;
        this.#emit(
          party.answered
            ? { type: 'phone.left', callSid, participantId }
            : { type: 'phone.unanswered', callSid, participantId, reason: 'no-answer' },
        );
        return;
      default:
        return;
    }
  }

  #holdPhones(callSid: string, hold: boolean): void {
    for (const party of this.#partiesOf(callSid)) {
      if (party.kind !== 'phone' || !party.answered) continue;
      this.#participant(callSid, party.id)
        .update({ hold })
        .catch((error: unknown) =>
          this.options.log.warn({ err: error, callSid, hold }, 'Twilio hold failed'),
        );
    }
  }

  #remove(party: Party, label: string): void {
    party.removed = true;
    this.#participant(party.callSid, label)
      .remove()
      .catch((error: unknown) =>
        this.options.log.warn({ err: error, label }, 'Twilio could not remove the participant'),
      );
  }

  #callbacks(callSid: string, label: string) {
    const query = new URLSearchParams({ call: callSid, label });
    return {
      statusCallback: `${this.options.publicBaseUrl}${TWILIO_WEBHOOK_PATHS.status}?${query.toString()}`,
      statusCallbackMethod: 'POST',
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    };
  }

  #participants(callSid: string) {
    return this.options.client.conferences(callSid).participants;
  }

  #participant(callSid: string, label: string) {
    return this.options.client.conferences(callSid).participants(label);
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
