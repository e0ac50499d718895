/**
 * The PStream 1.6 signalling gateway at `/signal`: the official `@twilio/voice-sdk` and our
 * own SDK register here, receive incoming calls, and place outgoing ones. Each client call gets
 * a WebRTC leg in the media engine, in the room named by the server's call sid; several clients
 * (agents, a supervisor, a conference guest) may have legs in one room. The first client leg of
 * a room uses the room's sid on the wire; legs added later get fresh `CA…` sids, so each leg is
 * one call for its SDK. Towards its owner a leg is (room sid, identity).
 *
 * A frame names a call as its client knows it: an outgoing call keeps the client's temporary id
 * (`TJS…`) until `ringing` or `answer` gives the client the sid, so a call that fails before it
 * rings ends with `hangup {callsid: <temporary id>, error}` (`ClientCall.frameSid`).
 *
 * Calls survive a lost socket for a grace period: every `invite` and `answer` the gateway sends
 * carries a `reconnect` token, and a new socket of the same identity that presents it (`invite`
 * with `reconnect`) takes the call over; its SDP is applied to the same leg (an ICE restart if
 * its ICE credentials changed). `reinvite` (ICE restart) is answered with `answer`.
 *
 * The gateway owns sockets and call signalling; which calls may be placed and what happens
 * when one is answered are decided by its owner (the voice engine, then the server).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type { ClientLeftReason } from '@leadline/contracts/telephony';
import type { MediaEngine, MediaEvent, ParticipantRole } from '../media/media-engine';
import { TypedEmitter } from '@leadline/contracts/lib';
import { ClientCall } from './client-call';
import { ClientSession, type CallFrame, type SessionHost, type TokenCheck } from './client-session';
import { systemClock, type Clock } from './clock';
import { RECONNECT_GRACE_MS } from './gateway-constants';

// Why a client's side of a call ended: the telephony port's word (`agent.left`).
export type { ClientLeftReason };

/** Events of the gateway, by name; `callSid` is always the room's sid. */
export interface GatewayEvents extends Record<string, unknown[]> {
  /** The identity's first device registered. */
  'device.online': [identity: string];
  /** The identity's last registered device went away. */
  'device.offline': [identity: string];
  /** A device answered an incoming call (its leg is set up). */
  'call.answered': [callSid: string, identity: string];
  /** Every device rung for an incoming call rejected it. */
  'call.rejected': [callSid: string, identity: string];
  /** An outgoing call was accepted by `authorizeOutgoing` and its leg is ready. */
  'call.outgoing': [callSid: string, identity: string, params: Record<string, string>];
  /**
   * The client's side of a call ended on the client's side: it hung up, its leg failed, or its
   * socket was lost (and, for a live call, nobody reconnected within the grace period); or an
   * outgoing call `authorizeOutgoing` accepted could not be placed (its offer was unusable, or
   * the socket went while it was being authorised).
   */
  'call.left': [callSid: string, identity: string, reason: ClientLeftReason];
  /** Digits the client sent over signalling. */
  'call.dtmf': [callSid: string, identity: string, digits: string];
}

/** An authenticated socket, as `clients()` lists it and `revoke()` asks about it. */
export interface SignallingClient {
  identity: string;
  /** The login session its token was issued to (`TokenCheck.session`). */
  session: string | undefined;
}

/**
 * Sizes of the gateway's bookkeeping (`stats()`): each is back where it was once the sockets and
 * calls that added to it are gone.
 */
export interface GatewayStats {
  /** Open sockets. */
  sessions: number;
  /** Keys of the calls map (a call's wire sid and, outgoing, the client's temporary id). */
  calls: number;
  /** Rooms with client calls (or whose calls ended without the room being hung up). */
  rooms: number;
  /** Room sids already given to a leg. */
  roomSids: number;
  /** Media participants (legs and ringing invites) mapped to their calls. */
  participants: number;
  /** Reconnect tokens issued and still valid. */
  tokens: number;
}

/** The owner's answer to an outgoing call: the call's sid (its room), or a refusal. */
export type OutgoingDecision = { callSid: string } | { error: WireError };

/** What the gateway needs. */
export interface GatewayOptions {
  media: MediaEngine;
  /** Checks an access token (the server holds the secret). */
  verifyToken(token: string): Promise<TokenCheck>;
  /** Decides an outgoing call from its connect params. */
  authorizeOutgoing(identity: string, params: Record<string, string>): Promise<OutgoingDecision>;
  clock?: Clock;
  /** How long a live call waits for its client to reconnect after a lost socket (default 30 s). */
  reconnectGraceMs?: number;
}

const CALL_IN_PROGRESS: WireError = {
  code: SignallingErrorCode.BadRequest,
  message: 'This call is already in progress.',
};

const RECONNECT_REFUSED: WireError = {
  code: SignallingErrorCode.CallNotFound,
  message: 'This call can no longer be reconnected.',
};

const ACCESS_WITHDRAWN: WireError = {
  code: SignallingErrorCode.AccessTokenInvalid,
  message: 'Signed out: this session has ended.',
};

let nextLeg = 1;

/** A fresh call sid for a leg, shaped like Twilio's (`CA` + 32 hex digits). */
const newWireSid = (): string => `CA${randomBytes(16).toString('hex')}`;
/** A fresh reconnect token (opaque to clients). */
const newToken = (): string => randomBytes(24).toString('base64url');

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The signalling gateway. */
export class SignallingGateway extends TypedEmitter<GatewayEvents> implements SessionHost {
  readonly #wss: WebSocketServer;
  readonly #clock: Clock;
  readonly #graceMs: number;
  readonly #sessions = new Set<ClientSession>();
  /** Calls by wire sid and, outgoing, by the client's temporary id. */
  readonly #calls = new Map<string, ClientCall>();
  /** Calls by room sid. */
  readonly #rooms = new Map<string, Set<ClientCall>>();
  /** Room sids that already name a leg on the wire (never reused while the room lasts). */
  readonly #roomSidsUsed = new Set<string>();
  readonly #byParticipant = new Map<string, ClientCall>();
  readonly #byToken = new Map<string, ClientCall>();
  readonly #unsubscribeMedia: () => void;

  constructor(private readonly options: GatewayOptions) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#graceMs = options.reconnectGraceMs ?? RECONNECT_GRACE_MS;
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: ClientSession.maxFrameBytes });
    this.#unsubscribeMedia = options.media.subscribe((event) => this.#onMedia(event));
  }

  /** Takes over an HTTP upgrade request for the signalling path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      this.#sessions.add(new ClientSession(ws, this, this.#clock));
    });
  }

  /** Whether some device of the identity is registered. */
  isOnline(identity: string): boolean {
    return this.#registeredSessions(identity).length > 0;
  }

  /** Every authenticated socket: its identity and the login session its token was issued to. */
  clients(): SignallingClient[] {
    const clients: SignallingClient[] = [];
    for (const session of this.#sessions) {
      if (session.identity !== null) {
        clients.push({ identity: session.identity, session: session.accessSession });
      }
    }
    return clients;
  }

  /**
   * Withdraws access (a logout, a removed user): every authenticated socket `withdrawn` names is
   * told (31204) and closed, and its calls end at once, without the reconnect grace (nobody may
   * reconnect with that access). Returns how many sockets were closed.
   */
  revoke(withdrawn: (client: SignallingClient) => boolean): number {
    let closed = 0;
    for (const session of [...this.#sessions]) {
      const identity = session.identity;
      if (identity === null || !withdrawn({ identity, session: session.accessSession })) continue;
      for (const call of new Set(this.#calls.values())) {
        if (call.session !== session || call.is('ended')) continue;
        session.send('hangup', { callsid: call.frameSid, error: ACCESS_WITHDRAWN });
        this.#leave(call, 'disconnected');
      }
      session.revoke(ACCESS_WITHDRAWN.message);
      closed += 1;
    }
    return closed;
  }

  /**
   * Rings every registered device of `identity` to join room `roomSid` in `role`. Resolves with
   * the number of devices rung (0: nobody to ring, or the identity is already in the room or
   * being rung for it; nothing was created).
   */
  async invite(
    identity: string,
    roomSid: string,
    params: Record<string, string>,
    role: ParticipantRole = 'agent',
  ): Promise<number> {
    const sessions = this.#registeredSessions(identity);
    if (sessions.length === 0 || this.#callOf(roomSid, identity)) return 0;
    const call = new ClientCall({
      wireSid: this.#takeWireSid(roomSid),
      roomSid,
      identity,
      direction: 'incoming',
      role,
    });
    this.#track(call);
    const reconnect = this.#issueToken(call);
    const parameters = { ...params, CallSid: call.wireSid };
    await Promise.all(
      sessions.map(async (session) => {
        const participantId = `${roomSid}.${session.id}.${nextLeg++}`;
        call.invites.set(session.id, { session, participantId });
        this.#byParticipant.set(participantId, call);
        try {
          const sdp = await this.options.media.createOfferLeg(roomSid, participantId, {
            role: call.role,
          });
          if (call.is('inviting') && call.invites.has(session.id)) {
            session.send('invite', { callsid: call.wireSid, sdp, parameters, reconnect });
          }
        } catch {
          this.#dropInvite(call, session.id);
        }
      }),
    );
    if (call.is('inviting') && call.invites.size === 0) {
      call.send('end');
      this.#forget(call);
      return 0;
    }
    return call.is('inviting') ? call.invites.size : 0;
  }

  /** Withdraws unanswered invites of the room: those of `identity`, or all of them. */
  cancel(roomSid: string, identity?: string): void {
    for (const call of this.#roomCalls(roomSid)) {
      if (call.is('inviting') && (identity === undefined || call.identity === identity)) {
        this.#cancelInvites(call);
      }
    }
  }

  /** Outgoing call: the far end rings; the client gets early media. */
  ringing(roomSid: string): void {
    const call = this.#outgoingCall(roomSid);
    if (!call || !call.can('proceed') || !call.session || !call.localSdp) return;
    call.send('proceed');
    call.session.send('ringing', { callsid: call.wireSid, sdp: call.localSdp });
  }

  /** Outgoing call: the far end answered. */
  connect(roomSid: string): void {
    const call = this.#outgoingCall(roomSid);
    if (!call || !call.can('connect') || !call.session || !call.localSdp) return;
    call.send('connect');
    call.session.send('answer', {
      callsid: call.wireSid,
      sdp: call.localSdp,
      reconnect: call.reconnectToken ?? this.#issueToken(call),
    });
  }

  /**
   * Ends the room for every client in it from the network's side: live legs get `hangup` (with
   * `error` if given), unanswered invites `cancel`. No `call.left` is emitted.
   */
  hangup(roomSid: string, error?: WireError): void {
    for (const call of this.#roomCalls(roomSid)) this.#hangUpClient(call, error);
    this.#rooms.delete(roomSid);
    this.#roomSidsUsed.delete(roomSid);
  }

  /**
   * One client leaves the room from the network's side (transfer, supervisor removed): its
   * client gets `hangup` (or `cancel` while still ringing); the room stays. No `call.left` is
   * emitted. Returns whether the identity had a leg or an invite there.
   */
  removeAgent(roomSid: string, identity: string): boolean {
    const call = this.#callOf(roomSid, identity);
    if (!call) return false;
    this.#hangUpClient(call);
    return true;
  }

  /** Changes how the identity takes part in the room (its leg, or the legs it is rung on). */
  setRole(roomSid: string, identity: string, role: ParticipantRole): boolean {
    const call = this.#callOf(roomSid, identity);
    if (!call) return false;
    call.role = role;
    const participants = call.participantId
      ? [call.participantId]
      : [...call.invites.values()].map((invite) => invite.participantId);
    for (const participantId of participants) this.options.media.setRole(participantId, role);
    return true;
  }

  /** Test hook: the identity's leg in the room drops its media for `durationMs`. */
  interruptMedia(roomSid: string, identity: string, durationMs: number): boolean {
    const participantId = this.#callOf(roomSid, identity)?.participantId;
    if (!participantId) return false;
    this.options.media.interruptMedia(participantId, durationMs);
    return true;
  }

  /** How much the gateway keeps now (counts only): tests check it does not grow unbounded. */
  stats(): GatewayStats {
    return {
      sessions: this.#sessions.size,
      calls: this.#calls.size,
      rooms: this.#rooms.size,
      roomSids: this.#roomSidsUsed.size,
      participants: this.#byParticipant.size,
      tokens: this.#byToken.size,
    };
  }

  /** Closes every socket; calls waiting for a reconnect end at once. */
  close(): void {
    this.#unsubscribeMedia();
    for (const session of [...this.#sessions]) session.close();
    for (const call of new Set(this.#calls.values())) this.#stopGrace(call);
    this.#wss.close();
  }

  // ------------------------------------------------------------------ SessionHost

  /** @internal */
  verifyToken(token: string): Promise<TokenCheck> {
    return this.options.verifyToken(token);
  }

  /** @internal */
  sessionRegistered(session: ClientSession): void {
    const identity = session.identity!;
    if (this.#registeredSessions(identity).length === 1) this.emit('device.online', identity);
  }

  /** @internal */
  sessionUnregistered(session: ClientSession): void {
    const identity = session.identity;
    if (identity && this.#registeredSessions(identity).every((s) => s === session)) {
      this.emit('device.offline', identity);
    }
  }

  /** @internal */
  sessionClosed(session: ClientSession): void {
    this.#sessions.delete(session);
    for (const call of new Set(this.#calls.values())) {
      if (call.invites.has(session.id)) {
        this.#dropInvite(call, session.id);
        if (call.invites.size === 0 && call.is('inviting')) {
          this.#endUnanswered(call, 'disconnected');
        }
      } else if (call.session === session) {
        if (call.is('live')) this.#detach(call);
        else this.#leave(call, 'disconnected');
      }
    }
  }

  /** @internal */
  async callFrame(session: ClientSession, frame: CallFrame): Promise<void> {
    const identity = session.identity!;
    if (frame.type === 'invite') return this.#clientInvite(session, identity, frame.payload);
    const call = this.#calls.get(frame.payload.callsid);
    // A call waiting for its client may be hung up from any socket of the same identity.
    const mine =
      call &&
      (call.session === session ||
        call.invites.has(session.id) ||
        (call.is('reconnecting') && call.identity === identity && frame.type === 'hangup'));
    if (!call || !mine || call.is('ended')) {
      // Hanging up a call that is already over is not an error.
      if (frame.type === 'hangup' || frame.type === 'reject') return;
      session.send('error', {
        callsid: frame.payload.callsid,
        error: {
          code: SignallingErrorCode.CallNotFound,
          message: 'Call not found or already ended.',
        },
      });
      return;
    }
    switch (frame.type) {
      case 'answer':
        return this.#clientAnswer(session, call, frame.payload.sdp);
      case 'reject':
        if (!call.is('inviting')) return;
        this.#dropInvite(call, session.id);
        if (call.invites.size === 0) {
          call.send('end');
          this.#forget(call);
          this.emit('call.rejected', call.roomSid, call.identity);
        }
        return;
      case 'hangup':
        if (call.is('inviting')) {
          this.#dropInvite(call, session.id);
          if (call.invites.size === 0) this.#endUnanswered(call, 'hangup');
          return;
        }
        return this.#leave(call, 'hangup');
      case 'dtmf':
        this.emit('call.dtmf', call.roomSid, identity, frame.payload.dtmf);
        return;
      case 'message':
        session.send('ack', {
          acktype: 'message',
          callsid: frame.payload.callsid,
          voiceeventsid: frame.payload.voiceeventsid,
        });
        return;
      case 'reinvite':
        return this.#reinvite(session, call, frame.payload.callsid, frame.payload.sdp);
    }
  }

  // ------------------------------------------------------------------ internals

  #registeredSessions(identity: string): ClientSession[] {
    return [...this.#sessions].filter((s) => s.registered && s.identity === identity);
  }

  #roomCalls(roomSid: string): ClientCall[] {
    return [...(this.#rooms.get(roomSid) ?? [])];
  }

  /** The identity's call (leg or invite) in the room, if it has not ended. */
  #callOf(roomSid: string, identity: string): ClientCall | undefined {
    return this.#roomCalls(roomSid).find((call) => call.identity === identity && !call.is('ended'));
  }

  #outgoingCall(roomSid: string): ClientCall | undefined {
    return this.#roomCalls(roomSid).find(
      (call) => call.direction === 'outgoing' && !call.is('ended'),
    );
  }

  /** The wire sid of a new leg: the room's own sid for its first leg, else a fresh one. */
  #takeWireSid(roomSid: string): string {
    if (this.#roomSidsUsed.has(roomSid) || this.#calls.has(roomSid)) return newWireSid();
    this.#roomSidsUsed.add(roomSid);
    return roomSid;
  }

  #track(call: ClientCall): void {
    this.#calls.set(call.wireSid, call);
    if (call.clientCallSid !== null) this.#calls.set(call.clientCallSid, call);
    let room = this.#rooms.get(call.roomSid);
    if (!room) {
      room = new Set();
      this.#rooms.set(call.roomSid, room);
    }
    room.add(call);
  }

  #issueToken(call: ClientCall): string {
    if (call.reconnectToken !== null) this.#byToken.delete(call.reconnectToken);
    const token = newToken();
    call.reconnectToken = token;
    this.#byToken.set(token, call);
    return token;
  }

  async #clientInvite(
    session: ClientSession,
    identity: string,
    payload: Extract<CallFrame, { type: 'invite' }>['payload'],
  ): Promise<void> {
    if (payload.reconnect !== undefined) return this.#reconnect(session, identity, payload);
    const refuse = (error: WireError): void => {
      session.send('hangup', { callsid: payload.callsid, error });
    };
    // A temporary id that already names a call: refused before the owner makes a call for it.
    if (this.#calls.has(payload.callsid)) return refuse(CALL_IN_PROGRESS);
    const params = Object.fromEntries(new URLSearchParams(payload.twilio?.params ?? ''));
    const decision = await this.options.authorizeOutgoing(identity, params);
    if ('error' in decision) return refuse(decision.error);
    const roomSid = decision.callSid;
    // The identity is on that call already: it stays, and so does the call.
    if (this.#callOf(roomSid, identity)) return refuse(CALL_IN_PROGRESS);
    // From here the owner has a call for this invite (it recorded or connected one): an invite
    // that is not placed must end it too (`call.left`), or it stays in progress with nobody on it.
    if (session.closed) {
      this.emit('call.left', roomSid, identity, 'disconnected');
      return;
    }
    // Another socket's invite took the temporary id while this one was being authorised.
    if (this.#calls.has(payload.callsid)) {
      refuse(CALL_IN_PROGRESS);
      this.emit('call.left', roomSid, identity, 'failed');
      return;
    }
    const call = new ClientCall({
      wireSid: this.#takeWireSid(roomSid),
      roomSid,
      identity,
      direction: 'outgoing',
      role: 'agent',
      clientCallSid: payload.callsid,
    });
    call.session = session;
    call.participantId = `${roomSid}.${session.id}.${nextLeg++}`;
    this.#track(call);
    this.#byParticipant.set(call.participantId, call);
    this.#issueToken(call);
    try {
      call.localSdp = await this.options.media.createAnswerLeg(
        roomSid,
        call.participantId,
        payload.sdp,
      );
    } catch (error) {
      refuse({ code: 31000, message: `Error processing the offer: ${errorText(error)}` });
      return this.#leave(call, 'failed');
    }
    if (call.is('ended')) return;
    this.emit('call.outgoing', roomSid, identity, params);
  }

  /** A new socket takes over a live call with its reconnect token. */
  async #reconnect(
    session: ClientSession,
    identity: string,
    payload: Extract<CallFrame, { type: 'invite' }>['payload'],
  ): Promise<void> {
    const call = this.#byToken.get(payload.reconnect ?? '');
    const participantId = call?.participantId;
    if (
      !call ||
      !participantId ||
      call.identity !== identity ||
      !call.isNamed(payload.callsid) ||
      !(call.is('live') || call.is('reconnecting'))
    ) {
      session.send('hangup', { callsid: payload.callsid, error: RECONNECT_REFUSED });
      return;
    }
    if (call.is('reconnecting')) {
      this.#stopGrace(call);
      call.send('attach');
    }
    // A socket that still held the call (its loss not noticed yet) loses it to the new one.
    call.session = session;
    let sdp: string;
    try {
      sdp = await this.options.media.renegotiate(participantId, payload.sdp);
    } catch (error) {
      if (call.session !== session || !call.is('live')) return;
      session.send('hangup', {
        callsid: payload.callsid,
        error: { code: 31003, message: `Media could not be restored: ${errorText(error)}` },
      });
      return this.#leave(call, 'failed');
    }
    // Superseded (the socket went again, or the call ended) while the leg renegotiated.
    if (call.session !== session || !call.is('live')) return;
    session.send('answer', {
      callsid: payload.callsid,
      sdp,
      reconnect: this.#issueToken(call),
    });
  }

  /** ICE restart of a live call: the engine's leg applies the new offer and answers. */
  async #reinvite(
    session: ClientSession,
    call: ClientCall,
    callsid: string,
    offer: string,
  ): Promise<void> {
    const participantId = call.participantId;
    if (!call.is('live') || !participantId) {
      session.send('error', {
        callsid,
        error: {
          code: SignallingErrorCode.BadRequest,
          message: 'Only a call in progress can be renegotiated.',
        },
      });
      return;
    }
    let sdp: string;
    try {
      sdp = await this.options.media.renegotiate(participantId, offer);
    } catch (error) {
      // The leg stays as it was unless the offer broke it (then `leg.failed` ends the call).
      session.send('error', {
        callsid,
        error: { code: 31000, message: `Error processing the offer: ${errorText(error)}` },
      });
      return;
    }
    if (call.session !== session || !call.is('live') || sdp === '') return;
    session.send('answer', {
      callsid,
      sdp,
      reconnect: call.reconnectToken ?? this.#issueToken(call),
    });
  }

  async #clientAnswer(session: ClientSession, call: ClientCall, sdp: string): Promise<void> {
    const invite = call.invites.get(session.id);
    if (!call.is('inviting') || !invite) return;
    call.send('answer');
    call.session = session;
    call.participantId = invite.participantId;
    call.invites.delete(session.id);
    // Every other device stops ringing.
    for (const other of call.invites.values()) {
      other.session.send('cancel', { callsid: call.wireSid });
      this.#byParticipant.delete(other.participantId);
      this.options.media.remove(other.participantId);
    }
    call.invites.clear();
    try {
      await this.options.media.acceptAnswer(invite.participantId, sdp);
    } catch (error) {
      session.send('hangup', {
        callsid: call.wireSid,
        error: { code: 31000, message: `Error processing answer: ${errorText(error)}` },
      });
      return this.#leave(call, 'failed');
    }
    if (call.is('live')) this.emit('call.answered', call.roomSid, call.identity);
  }

  #dropInvite(call: ClientCall, sessionId: string): void {
    const invite = call.invites.get(sessionId);
    if (!invite) return;
    call.invites.delete(sessionId);
    this.#byParticipant.delete(invite.participantId);
    this.options.media.remove(invite.participantId);
  }

  /** Stops ringing every device of an incoming call (the network withdrew it). */
  #cancelInvites(call: ClientCall): void {
    for (const invite of call.invites.values()) {
      invite.session.send('cancel', { callsid: call.wireSid });
      this.#byParticipant.delete(invite.participantId);
      this.options.media.remove(invite.participantId);
    }
    call.invites.clear();
    call.send('end');
    this.#forget(call);
  }

  /** Ends one client's call from the network's side. */
  #hangUpClient(call: ClientCall, error?: WireError): void {
    if (call.is('ended')) return;
    if (call.is('inviting')) return this.#cancelInvites(call);
    // Named as the client knows it: an outgoing call that failed before it rang (a busy or
    // invalid number) has never been given its sid.
    const callsid = call.frameSid;
    call.session?.send('hangup', error ? { callsid, error } : { callsid });
    this.#end(call);
  }

  /** An incoming call that lost every device before anyone answered. */
  #endUnanswered(call: ClientCall, reason: ClientLeftReason): void {
    call.send('end');
    this.#forget(call);
    this.emit('call.left', call.roomSid, call.identity, reason);
  }

  /** The socket of a live call is gone: the call waits for its client to reconnect. */
  #detach(call: ClientCall): void {
    call.send('detach');
    call.session = null;
    call.graceTimer = this.#clock.setTimeout(() => {
      call.graceTimer = null;
      if (call.is('reconnecting')) this.#leave(call, 'disconnected');
    }, this.#graceMs);
  }

  #stopGrace(call: ClientCall): void {
    if (call.graceTimer !== null) this.#clock.clearTimeout(call.graceTimer);
    call.graceTimer = null;
  }

  /** The client's side ended on the client's side: tell the owner. */
  #leave(call: ClientCall, reason: ClientLeftReason): void {
    if (call.is('ended')) return;
    this.#end(call);
    this.emit('call.left', call.roomSid, call.identity, reason);
  }

  #end(call: ClientCall): void {
    if (!call.is('ended')) call.send('end');
    this.#stopGrace(call);
    if (call.participantId) this.options.media.remove(call.participantId);
    for (const invite of call.invites.values()) this.options.media.remove(invite.participantId);
    call.invites.clear();
    this.#forget(call);
  }

  #forget(call: ClientCall): void {
    for (const [key, value] of this.#calls) if (value === call) this.#calls.delete(key);
    for (const [key, value] of this.#byParticipant)
      if (value === call) this.#byParticipant.delete(key);
    if (call.reconnectToken !== null) this.#byToken.delete(call.reconnectToken);
    const room = this.#rooms.get(call.roomSid);
    room?.delete(call);
  }

  #onMedia(event: MediaEvent): void {
    if (event.type !== 'leg.failed') return;
    const call = this.#byParticipant.get(event.participantId);
    if (!call) return;
    if (call.participantId === event.participantId) {
      call.session?.send('hangup', {
        callsid: call.frameSid,
        error: { code: 31003, message: `Media connection failed: ${event.reason}` },
      });
      this.#leave(call, 'failed');
    } else {
      for (const [sessionId, invite] of call.invites) {
        if (invite.participantId === event.participantId) this.#dropInvite(call, sessionId);
      }
    }
  }
}
