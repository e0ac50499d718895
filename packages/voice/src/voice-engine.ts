/**
 * The embedded telephony provider: the signalling gateway and the media engine composed into
 * calls. The server's call flows drive it (ring agents into a call in a role, dial a number, put
 * the lead on hold, take an agent out, hang up) and persist what it reports; it knows nothing
 * of the database.
 *
 * A call is a room, named by the server's call sid (`CA…`); `callSid` in every command and event
 * means the room. An agent's side of a call is (callSid, identity).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type {
  DialFailure,
  DtmfTone,
  MediaEngine,
  MediaEvent,
  ParticipantRole,
} from './media/media-engine';
import { SignallingGateway, type ClientLeftReason } from './gateway/signalling-gateway';
import type { TokenCheck } from './gateway/client-session';
import type { Clock } from './gateway/clock';

/** How an agent takes part in a call (the mixing rule of its leg). */
export type AgentRole = Exclude<ParticipantRole, 'lead'>;

/** What the engine reports, one event per fact; `callSid` is always the call (room). */
export type TelephonyEvent =
  | { type: 'device.online'; identity: string }
  | { type: 'device.offline'; identity: string }
  | { type: 'agent.answered'; callSid: string; identity: string }
  | { type: 'agent.rejected'; callSid: string; identity: string }
  | { type: 'agent.left'; callSid: string; identity: string; reason: ClientLeftReason }
  | { type: 'outgoing.placed'; callSid: string; identity: string; to: string }
  | { type: 'phone.ringing'; callSid: string }
  | { type: 'phone.answered'; callSid: string }
  | { type: 'phone.unanswered'; callSid: string; reason: DialFailure }
  | { type: 'phone.left'; callSid: string }
  | { type: 'phone.recorded'; callSid: string; path: string; seconds: number }
  /** Digits the call's virtual party (the lead) received, as it logged them. */
  | { type: 'phone.dtmf'; callSid: string; digits: string }
  /**
   * Digits an agent pressed: over signalling (`digits` as sent), or one RFC 4733 key press from
   * the agent's media, with `tone`: when it played on the sender's RTP clock and how long.
   */
  | {
      type: 'dtmf';
      callSid: string;
      source: 'agent' | 'phone';
      digits: string;
      tone?: DtmfTone;
    }
  /** The call's mixed recording, written when the call ended (`<recordingsDir>/<callSid>.wav`). */
  | { type: 'recording.ready'; callSid: string; path: string; seconds: number };

/** The owner's answer to an outgoing call: the call's sid and the number to dial, or a refusal. */
export type OutgoingCallDecision = { callSid: string; dial: string } | { error: WireError };

/** What the engine needs. */
export interface VoiceEngineOptions {
  media: MediaEngine;
  verifyToken(token: string): Promise<TokenCheck>;
  /** Decides an outgoing call placed by a client from its connect params. */
  authorizeOutgoing(
    identity: string,
    params: Record<string, string>,
  ): Promise<OutgoingCallDecision>;
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
export class VoiceEngine {
  readonly #gateway: SignallingGateway;
  readonly #media: MediaEngine;
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();
  /** Dial targets of outgoing calls that are being placed, by call sid. */
  readonly #pendingOutgoing = new Map<string, string>();
  /** Calls placed by a client (their phone party drives the client's ringing/answer). */
  readonly #outgoing = new Set<string>();
  #nextParty = 1;

  constructor(options: VoiceEngineOptions) {
    this.#media = options.media;
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
        this.#pendingOutgoing.set(decision.callSid, decision.dial);
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
      const to = this.#pendingOutgoing.get(callSid);
      this.#pendingOutgoing.delete(callSid);
      if (to === undefined) return;
      this.#outgoing.add(callSid);
      this.#emit({ type: 'outgoing.placed', callSid, identity, to });
      this.dial(callSid, to);
    });
    this.#media.subscribe((event) => this.#onMedia(event));
  }

  /** Starts the media engine. */
  start(): Promise<void> {
    return this.#media.start();
  }

  /** Closes every socket and room and stops the media engine. */
  async close(): Promise<void> {
    this.#gateway.close();
    await this.#media.close();
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

  /** Dials a phone number (E.164) into the call: a virtual party in the role `lead`. */
  dial(callSid: string, number: string): void {
    this.#media.dial(callSid, `${callSid}.phone.${this.#nextParty++}`, number);
  }

  /**
   * A sandbox inbound call: a virtual caller from `from` to `to` is already on the line in the
   * call as its `lead`, speaking the sandbox voice clip; `phone.answered` follows at once.
   */
  addCaller(callSid: string, from: string, to: string): void {
    this.#media.addCaller(callSid, `${callSid}.caller.${this.#nextParty++}`, from, to);
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
    this.#outgoing.delete(callSid);
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

  #onMedia(event: MediaEvent): void {
    const callSid = event.roomId;
    const outgoing = this.#outgoing.has(callSid);
    switch (event.type) {
      case 'party.ringing':
        if (outgoing) this.#gateway.ringing(callSid);
        return this.#emit({ type: 'phone.ringing', callSid });
      case 'party.answered':
        if (outgoing) this.#gateway.connect(callSid);
        return this.#emit({ type: 'phone.answered', callSid });
      case 'party.unanswered':
        if (outgoing) this.hangup(callSid, DIAL_ERRORS[event.reason]);
        return this.#emit({ type: 'phone.unanswered', callSid, reason: event.reason });
      case 'party.hangup':
        return this.#emit({ type: 'phone.left', callSid });
      case 'party.recorded':
        return this.#emit({
          type: 'phone.recorded',
          callSid,
          path: event.path,
          seconds: event.seconds,
        });
      case 'party.dtmf':
        return this.#emit({ type: 'phone.dtmf', callSid, digits: event.digits });
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
