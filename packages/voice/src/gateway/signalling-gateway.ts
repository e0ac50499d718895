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
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type { MediaEvent, ParticipantRole } from '../media/media-engine';
import { TypedEmitter } from '@leadline/contracts/lib';
import { ClientCall } from './client-call';
import { ClientCalls } from './client-calls';
import { ClientSession, type CallFrame, type SessionHost, type TokenCheck } from './client-session';
import { systemClock, type Clock } from './clock';
import { RECONNECT_GRACE_MS } from './gateway-constants';
import { ACCESS_WITHDRAWN, CALL_IN_PROGRESS, RECONNECT_REFUSED } from './gateway-errors';
import type {
  ClientLeftReason,
  GatewayEvents,
  GatewayOptions,
  GatewayStats,
  SignallingClient,
} from './gateway-api';

export type {
  ClientLeftReason,
  GatewayEvents,
  GatewayOptions,
  GatewayStats,
  OutgoingDecision,
  SignallingClient,
} from './gateway-api';

let nextLeg = 1;

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The signalling gateway. */
export class SignallingGateway extends TypedEmitter<GatewayEvents> implements SessionHost {
  readonly #wss: WebSocketServer;
  readonly #clock: Clock;
  readonly #graceMs: number;
  readonly #sessions = new Set<ClientSession>();
  readonly #calls = new ClientCalls();
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
      for (const call of this.#calls.all()) {
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
    if (sessions.length === 0 || this.#calls.of(roomSid, identity)) return 0;
    const call = new ClientCall({
      wireSid: this.#calls.takeWireSid(roomSid),
      roomSid,
      identity,
      direction: 'incoming',
      role,
    });
    this.#calls.track(call);
    const reconnect = this.#calls.issueToken(call);
    const parameters = { ...params, CallSid: call.wireSid };
    await Promise.all(
      sessions.map(async (session) => {
        const participantId = `${roomSid}.${session.id}.${nextLeg++}`;
        call.invites.set(session.id, { session, participantId });
        this.#calls.addParticipant(participantId, call);
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
      this.#calls.forget(call);
      return 0;
    }
    return call.is('inviting') ? call.invites.size : 0;
  }

  /** Withdraws unanswered invites of the room: those of `identity`, or all of them. */
  cancel(roomSid: string, identity?: string): void {
    for (const call of this.#calls.inRoom(roomSid)) {
      if (call.is('inviting') && (identity === undefined || call.identity === identity)) {
        this.#cancelInvites(call);
      }
    }
  }

  /** Outgoing call: the far end rings; the client gets early media. */
  ringing(roomSid: string): void {
    const call = this.#calls.outgoing(roomSid);
    if (!call || !call.can('proceed') || !call.session || !call.localSdp) return;
    call.send('proceed');
    call.session.send('ringing', { callsid: call.wireSid, sdp: call.localSdp });
  }

  /** Outgoing call: the far end answered. */
  connect(roomSid: string): void {
    const call = this.#calls.outgoing(roomSid);
    if (!call || !call.can('connect') || !call.session || !call.localSdp) return;
    call.send('connect');
    call.session.send('answer', {
      callsid: call.wireSid,
      sdp: call.localSdp,
      reconnect: call.reconnectToken ?? this.#calls.issueToken(call),
    });
  }

  /**
   * Ends the room for every client in it from the network's side: live legs get `hangup` (with
   * `error` if given), unanswered invites `cancel`. No `call.left` is emitted.
   */
  hangup(roomSid: string, error?: WireError): void {
    for (const call of this.#calls.inRoom(roomSid)) this.#hangUpClient(call, error);
    this.#calls.closeRoom(roomSid);
  }

  /**
   * One client leaves the room from the network's side (transfer, supervisor removed): its
   * client gets `hangup` (or `cancel` while still ringing); the room stays. No `call.left` is
   * emitted. Returns whether the identity had a leg or an invite there.
   */
  removeAgent(roomSid: string, identity: string): boolean {
    const call = this.#calls.of(roomSid, identity);
    if (!call) return false;
    this.#hangUpClient(call);
    return true;
  }

  /** Changes how the identity takes part in the room (its leg, or the legs it is rung on). */
  setRole(roomSid: string, identity: string, role: ParticipantRole): boolean {
    const call = this.#calls.of(roomSid, identity);
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
    const participantId = this.#calls.of(roomSid, identity)?.participantId;
    if (!participantId) return false;
    this.options.media.interruptMedia(participantId, durationMs);
    return true;
  }

  /** How much the gateway keeps now (counts only): tests check it does not grow unbounded. */
  stats(): GatewayStats {
    return {
      sessions: this.#sessions.size,
      ...this.#calls.counts(),
    };
  }

  /** Closes every socket; calls waiting for a reconnect end at once. */
  close(): void {
    this.#unsubscribeMedia();
    for (const session of [...this.#sessions]) session.close();
    for (const call of this.#calls.all()) this.#stopGrace(call);
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
    for (const call of this.#calls.all()) {
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
    const call = this.#calls.bySid(frame.payload.callsid);
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
          this.#calls.forget(call);
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
    if (this.#calls.hasSid(payload.callsid)) return refuse(CALL_IN_PROGRESS);
    const params = Object.fromEntries(new URLSearchParams(payload.twilio?.params ?? ''));
    const decision = await this.options.authorizeOutgoing(identity, params);
    if ('error' in decision) return refuse(decision.error);
    const roomSid = decision.callSid;
    // The identity is on that call already: it stays, and so does the call.
    if (this.#calls.of(roomSid, identity)) return refuse(CALL_IN_PROGRESS);
    // From here the owner has a call for this invite (it recorded or connected one): an invite
    // that is not placed must end it too (`call.left`), or it stays in progress with nobody on it.
    if (session.closed) {
      this.emit('call.left', roomSid, identity, 'disconnected');
      return;
    }
    // Another socket's invite took the temporary id while this one was being authorised.
    if (this.#calls.hasSid(payload.callsid)) {
      refuse(CALL_IN_PROGRESS);
      this.emit('call.left', roomSid, identity, 'failed');
      return;
    }
    const call = new ClientCall({
      wireSid: this.#calls.takeWireSid(roomSid),
      roomSid,
      identity,
      direction: 'outgoing',
      role: 'agent',
      clientCallSid: payload.callsid,
    });
    call.session = session;
    call.participantId = `${roomSid}.${session.id}.${nextLeg++}`;
    this.#calls.track(call);
    this.#calls.addParticipant(call.participantId, call);
    this.#calls.issueToken(call);
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
    const call = this.#calls.byToken(payload.reconnect ?? '');
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
      reconnect: this.#calls.issueToken(call),
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
      reconnect: call.reconnectToken ?? this.#calls.issueToken(call),
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
      this.#calls.removeParticipant(other.participantId);
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
    this.#calls.removeParticipant(invite.participantId);
    this.options.media.remove(invite.participantId);
  }

  /** Stops ringing every device of an incoming call (the network withdrew it). */
  #cancelInvites(call: ClientCall): void {
    for (const invite of call.invites.values()) {
      invite.session.send('cancel', { callsid: call.wireSid });
      this.#calls.removeParticipant(invite.participantId);
      this.options.media.remove(invite.participantId);
    }
    call.invites.clear();
    call.send('end');
    this.#calls.forget(call);
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
    this.#calls.forget(call);
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
    this.#calls.forget(call);
  }

  #onMedia(event: MediaEvent): void {
    if (event.type !== 'leg.failed') return;
    const call = this.#calls.byParticipant(event.participantId);
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
