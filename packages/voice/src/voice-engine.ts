/**
 * The embedded telephony provider: the signalling gateway and the media engine composed into
 * calls. The server's call flows drive it (ring agents into a call in a role, dial a number, put
 * the lead on hold, take an agent out, hang up) and persist what it reports; it knows nothing
 * of the database.
 *
 * A call is a room, named by the server's call sid (`CA…`); `callSid` in every command and event
 * means the room. An agent's side of a call is (callSid, identity); a phone party's is its
 * participant id, which `dial` and `addCaller` return and every `phone.*` event carries. A call
 * may have several phone parties (an added lead, a second lead).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type { AgentRole, Telephony, TelephonyEvent } from '@leadline/contracts/telephony';
import type {
  DialFailure,
  DialOptions,
  MediaEngine,
  MediaEvent,
  ParticipantId,
} from './media/media-engine';
import { SandboxCallLog, type SandboxCall } from './pstn/sandbox-call-log';
import {
  SignallingGateway,
  type GatewayStats,
  type SignallingClient,
} from './gateway/signalling-gateway';
import type { TokenCheck } from './gateway/client-session';
import { systemClock, type Clock } from './gateway/clock';

// The telephony port the engine implements, and its events (`@leadline/contracts/telephony`).
export type { AgentRole, Telephony, TelephonyEvent };

/**
 * The owner's answer to an outgoing call: the call's sid, the number to dial and the caller ID to
 * dial it from (E.164; left out, none), or a refusal.
 */
export type OutgoingCallDecision =
  { callSid: string; dial: string; from?: string } | { error: WireError };

/** What the engine needs. */
export interface VoiceEngineOptions {
  media: MediaEngine;
  verifyToken(token: string): Promise<TokenCheck>;
  /** Decides an outgoing call placed by a client from its connect params. */
  authorizeOutgoing(
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision>;
  /** The gateway's timers and the sandbox call log's times; default the system clock. */
  clock?: Clock;
  /** How long a live call waits for a client whose socket dropped (default 30 s). */
  reconnectGraceMs?: number;
}

const DIAL_ERRORS: Record<DialFailure, WireError> = {
  busy: { code: SignallingErrorCode.Busy, message: 'The number is busy.' },
  'no-answer': { code: SignallingErrorCode.NoAnswer, message: 'The number did not answer.' },
  failed: { code: SignallingErrorCode.InvalidNumber, message: 'The number could not be reached.' },
};

/** The embedded telephony provider. */
export class VoiceEngine implements Telephony {
  readonly #gateway: SignallingGateway;
  readonly #media: MediaEngine;
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();
  /** What outgoing calls that are being placed dial (number, caller ID), by call sid. */
  readonly #pendingOutgoing = new Map<string, { to: string; options: DialOptions }>();
  /**
   * Calls placed by a client, with the phone party they dialled: its progress drives the client's
   * ringing, answer and failure; other phone parties of the call do not.
   */
  readonly #outgoing = new Map<string, ParticipantId>();
  /** The phone parties in a call now (dialled or calling in, not gone), with their call. */
  readonly #phones = new Map<ParticipantId, string>();
  readonly #log: SandboxCallLog;
  #nextParty = 1;

  constructor(options: VoiceEngineOptions) {
    this.#media = options.media;
    const clock = options.clock ?? systemClock;
    this.#log = new SandboxCallLog({ now: () => clock.now() });
    this.#gateway = new SignallingGateway({
      media: options.media,
      verifyToken: (token) => options.verifyToken(token),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.reconnectGraceMs === undefined
        ? {}
        : { reconnectGraceMs: options.reconnectGraceMs }),
      authorizeOutgoing: async (identity, params) => {
        const decision = await options.authorizeOutgoing(identity, params);
        if ('error' in decision) return decision;
        this.#pendingOutgoing.set(decision.callSid, {
          to: decision.dial,
          options: decision.from === undefined ? {} : { from: decision.from },
        });
        return { callSid: decision.callSid };
      },
    });
    const g = this.#gateway;
    g.on('device.online', (identity) => this.#emit({ type: 'device.online', identity }));
    g.on('device.offline', (identity) => this.#emit({ type: 'device.offline', identity }));
    g.on('call.answered', (callSid, identity) =>
      this.#emit({ type: 'agent.answered', callSid, identity }),
    );
    g.on('call.rejected', (callSid, identity) =>
      this.#emit({ type: 'agent.rejected', callSid, identity }),
    );
    g.on('call.left', (callSid, identity, reason) =>
      this.#emit({ type: 'agent.left', callSid, identity, reason }),
    );
    g.on('call.dtmf', (callSid, _identity, digits) => {
      this.#emit({ type: 'dtmf', callSid, source: 'agent', digits });
      // Keypad digits sent over signalling reach the lead as RFC 4733 ones do.
      this.#media.sendDigits(callSid, digits);
    });
    g.on('call.outgoing', (callSid, identity) => {
      const pending = this.#pendingOutgoing.get(callSid);
      this.#pendingOutgoing.delete(callSid);
      if (pending === undefined) return;
      const participantId = this.#nextPhoneId(callSid, 'phone');
      this.#outgoing.set(callSid, participantId);
      this.#emit({ type: 'outgoing.placed', callSid, identity, to: pending.to, participantId });
      this.#dial(callSid, participantId, pending.to, pending.options);
    });
    this.#media.subscribe((event) => this.#onMedia(event));
  }

  /** Starts the media engine. */
  start(): Promise<void> {
    return this.#media.start();
  }

  /** Closes every socket and room and stops the media engine; every phone call ends. */
  async close(): Promise<void> {
    this.#gateway.close();
    this.#phones.clear();
    this.#log.endedAll();
    await this.#media.close();
  }

  /** Every authenticated signalling socket: its identity and the login it came from. */
  signallingClients(): SignallingClient[] {
    return this.#gateway.clients();
  }

  /**
   * Withdraws signalling access (a logout, a removed user): the sockets `withdrawn` names are
   * told and closed, their calls end at once. Returns how many sockets were closed.
   */
  revokeSignalling(withdrawn: (client: SignallingClient) => boolean): number {
    return this.#gateway.revoke(withdrawn);
  }

  /**
   * How much the engine keeps for signalling (counts only): the gateway's bookkeeping
   * (`SignallingGateway.stats`) and the outgoing calls authorised but not placed yet.
   */
  signallingStats(): GatewayStats & { pendingOutgoing: number } {
    return { ...this.#gateway.stats(), pendingOutgoing: this.#pendingOutgoing.size };
  }

  /** Takes over an HTTP upgrade to the signalling path (`/signal`). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#gateway.handleUpgrade(request, socket, head);
  }

  /** Whether a device of the identity is registered. */
  isOnline(identity: string): boolean {
    return this.#gateway.isOnline(identity);
  }

  /**
   * Rings the identity's devices to join the call in `role` (default `agent`); resolves with how
   * many ring (0: offline, or already in the call or being rung for it). Each client leg is its
   * own call on the wire: the call's first leg keeps the call sid, later ones get fresh sids.
   */
  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    return this.#gateway.invite(identity, callSid, params, options.role ?? 'agent');
  }

  /** Withdraws unanswered invites of the call: those of `identity`, or everyone's. */
  cancelRing(callSid: string, identity?: string): void {
    this.#gateway.cancel(callSid, identity);
  }

  /**
   * Dials a phone number (E.164) into the call from the caller ID `options.from` (E.164; left
   * out, none): a virtual party in the role `lead`, one more phone party of the call. Returns its
   * participant id (`<callSid>.phone.<n>`), which its `phone.*` events carry and `hangupPhone`
   * takes. Its progress comes as `phone.ringing`, then `phone.answered` or `phone.unanswered`.
   */
  dial(callSid: string, number: string, options: DialOptions = {}): string {
    const participantId = this.#nextPhoneId(callSid, 'phone');
    this.#dial(callSid, participantId, number, options);
    return participantId;
  }

  /**
   * A sandbox inbound call: a virtual caller from `from` to `to` is already on the line in the
   * call as its `lead`, speaking the sandbox voice clip; `phone.answered` follows at once.
   * Returns its participant id (`<callSid>.caller.<n>`).
   */
  addCaller(callSid: string, from: string, to: string): string {
    const participantId = this.#nextPhoneId(callSid, 'caller');
    this.#phones.set(participantId, callSid);
    this.#log.placed({ callSid, participantId, direction: 'inbound', to, from });
    this.#media.addCaller(callSid, participantId, from, to);
    return participantId;
  }

  /**
   * One phone party leaves the call: the network hangs it up (ringing, it stops ringing), e.g. an
   * added lead the agent drops. The call and everyone else in it stay. Like `removeAgent`, no
   * `phone.left` (nor any later `phone.*` progress) is reported for it; what it heard is still
   * written and reported (`phone.recorded`) if it had answered. Does nothing for a party that is
   * not in the call (gone already, or another call's).
   */
  hangupPhone(callSid: string, participantId: string): void {
    if (this.#phones.get(participantId) !== callSid) return;
    this.#phones.delete(participantId);
    this.#log.ended(participantId);
    this.#media.remove(participantId);
  }

  /**
   * Sandbox: the person on a virtual phone of the call hangs up (the lead, or the inbound
   * caller), as they would on a real line: `phone.left` follows, and the call goes on with its
   * other parties. Returns whether such a phone party is in the call.
   */
  sandboxHangUp(callSid: string, participantId: string): boolean {
    if (this.#phones.get(participantId) !== callSid) return false;
    this.#media.partyHangsUp(participantId);
    return true;
  }

  /**
   * The sandbox phone network's call log: every call it placed (`dial`) or received
   * (`addCaller`) in this engine, oldest first, the last 1,000 of them (`SANDBOX_CALL_LOG_LIMIT`),
   * with caller ID, state, times and the digits the phone party received (copies).
   */
  sandboxCalls(): SandboxCall[] {
    return this.#log.list();
  }

  /** Changes how an agent takes part in the call (e.g. whisper → barge). */
  setRole(callSid: string, identity: string, role: AgentRole): void {
    this.#gateway.setRole(callSid, identity, role);
  }

  /**
   * One agent leaves the call (transfer, a supervisor done listening): its client gets `hangup`
   * (`cancel` while ringing) and its leg leaves the room; the call goes on. No `agent.left`.
   */
  removeAgent(callSid: string, identity: string): void {
    this.#gateway.removeAgent(callSid, identity);
  }

  /** The lead hears hold music and nobody else; nobody hears the lead. */
  hold(callSid: string): void {
    this.#media.setHold(callSid, true);
  }

  /** Ends the hold: everyone hears each other as their roles say. */
  unhold(callSid: string): void {
    this.#media.setHold(callSid, false);
  }

  /**
   * Test hook: the agent's leg drops all its media (RTP, RTCP, ICE consent) for `durationMs`, so
   * its client sees the connection break and can ICE-restart it. Returns whether it had a leg.
   */
  interruptMedia(callSid: string, identity: string, durationMs: number): boolean {
    return this.#gateway.interruptMedia(callSid, identity, durationMs);
  }

  /**
   * Ends the whole call: every client in it gets `hangup` (with `error` if given; `cancel` if
   * still ringing), the room closes (its recording is written: `recording.ready`).
   */
  hangup(callSid: string, error?: WireError): void {
    // A call authorised for a client's invite that was never placed (its offer failed) ends here.
    this.#pendingOutgoing.delete(callSid);
    this.#outgoing.delete(callSid);
    for (const [participantId, room] of this.#phones)
      if (room === callSid) this.#phones.delete(participantId);
    this.#log.endedRoom(callSid);
    this.#gateway.hangup(callSid, error);
    this.#media.closeRoom(callSid);
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: TelephonyEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: TelephonyEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error(`telephony listener failed on ${event.type}`, error);
      }
    }
  }

  #nextPhoneId(callSid: string, kind: 'phone' | 'caller'): ParticipantId {
    return `${callSid}.${kind}.${this.#nextParty++}`;
  }

  #dial(callSid: string, participantId: ParticipantId, to: string, options: DialOptions): void {
    this.#phones.set(participantId, callSid);
    this.#log.placed({
      callSid,
      participantId,
      direction: 'outbound',
      to,
      from: options.from ?? null,
    });
    this.#media.dial(
      callSid,
      participantId,
      to,
      options.from === undefined ? {} : { from: options.from },
    );
  }

  /** Whether `participantId` is the phone party that the client-placed call `callSid` dialled. */
  #drivesClient(callSid: string, participantId: ParticipantId): boolean {
    return this.#outgoing.get(callSid) === participantId;
  }

  #onMedia(event: MediaEvent): void {
    const callSid = event.roomId;
    switch (event.type) {
      case 'party.ringing': {
        const { participantId } = event;
        // A party hung up by a command is over: its late progress is not news.
        if (this.#log.isOver(participantId)) return;
        if (this.#drivesClient(callSid, participantId)) this.#gateway.ringing(callSid);
        return this.#emit({ type: 'phone.ringing', callSid, participantId });
      }
      case 'party.answered': {
        const { participantId } = event;
        if (this.#log.isOver(participantId)) return;
        this.#log.answered(participantId);
        if (this.#drivesClient(callSid, participantId)) this.#gateway.connect(callSid);
        return this.#emit({ type: 'phone.answered', callSid, participantId });
      }
      case 'party.unanswered': {
        const { participantId, reason } = event;
        if (this.#log.isOver(participantId)) return;
        this.#phones.delete(participantId);
        this.#log.unanswered(participantId, reason);
        if (this.#drivesClient(callSid, participantId)) this.hangup(callSid, DIAL_ERRORS[reason]);
        return this.#emit({ type: 'phone.unanswered', callSid, participantId, reason });
      }
      case 'party.hangup': {
        const { participantId } = event;
        if (this.#log.isOver(participantId)) return;
        this.#phones.delete(participantId);
        this.#log.ended(participantId);
        return this.#emit({ type: 'phone.left', callSid, participantId });
      }
      case 'party.recorded':
        return this.#emit({
          type: 'phone.recorded',
          callSid,
          participantId: event.participantId,
          path: event.path,
          seconds: event.seconds,
        });
      case 'party.dtmf':
        this.#log.received(event.participantId, event.digits);
        return this.#emit({
          type: 'phone.dtmf',
          callSid,
          participantId: event.participantId,
          digits: event.digits,
        });
      case 'dtmf':
        // DTMF from a leg is an agent's keypad; virtual parties do not send any.
        return this.#emit({
          type: 'dtmf',
          callSid,
          source: 'agent',
          digits: event.digit,
          tone: event.tone,
        });
      case 'recording.ready':
        return this.#emit({
          type: 'recording.ready',
          callSid,
          path: event.path,
          seconds: event.seconds,
        });
      default:
        return;
    }
  }
}
