/**
 * The PStream 1.6 signalling gateway at `/signal`: the official `@twilio/voice-sdk` and our
 * own SDK register here, receive incoming calls, and place outgoing ones. Each client call gets
 * a WebRTC leg in the media engine, in the room named by the call's sid.
 *
 * The gateway owns sockets and call signalling; which calls may be placed and what happens
 * when one is answered are decided by its owner (the voice engine, then the server).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { SignallingErrorCode, type WireError } from '@leadline/contracts/signalling';
import type { MediaEngine, MediaEvent } from '../media/media-engine';
import { TypedEmitter } from '@leadline/contracts/lib';
import { ClientCall } from './client-call';
import { ClientSession, type CallFrame, type SessionHost, type TokenCheck } from './client-session';
import { systemClock, type Clock } from './clock';

/** Why a client's side of a call ended. */
export type ClientLeftReason = 'hangup' | 'failed' | 'disconnected';

/** Events of the gateway, by name. */
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
  /** The client's side of a call ended (hung up, leg failed, socket lost, or no device left). */
  'call.left': [callSid: string, identity: string, reason: ClientLeftReason];
  /** Digits the client sent over signalling. */
  'call.dtmf': [callSid: string, identity: string, digits: string];
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
}

let nextLeg = 1;

/** The signalling gateway. */
export class SignallingGateway extends TypedEmitter<GatewayEvents> implements SessionHost {
  readonly #wss: WebSocketServer;
  readonly #clock: Clock;
  readonly #sessions = new Set<ClientSession>();
  /** Calls by sid and by the client's temporary sid. */
  readonly #calls = new Map<string, ClientCall>();
  readonly #byParticipant = new Map<string, ClientCall>();
  readonly #unsubscribeMedia: () => void;

  constructor(private readonly options: GatewayOptions) {
    super();
    this.#clock = options.clock ?? systemClock;
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

  /**
   * Rings every registered device of `identity` with an incoming call in room `callSid`.
   * Resolves with the number of devices rung (0: nobody to ring, nothing was created).
   */
  async invite(identity: string, callSid: string, params: Record<string, string>): Promise<number> {
    const sessions = this.#registeredSessions(identity);
    if (sessions.length === 0 || this.#calls.has(callSid)) return 0;
    const call = new ClientCall(callSid, identity, 'incoming');
    this.#calls.set(callSid, call);
    const parameters = { ...params, CallSid: callSid };
    await Promise.all(
      sessions.map(async (session) => {
        const participantId = `${callSid}.${session.id}.${nextLeg++}`;
        call.invites.set(session.id, { session, participantId });
        this.#byParticipant.set(participantId, call);
        try {
          const sdp = await this.options.media.createOfferLeg(callSid, participantId);
          if (call.state === 'inviting' && call.invites.has(session.id)) {
            session.send('invite', { callsid: callSid, sdp, parameters });
          }
        } catch {
          this.#dropInvite(call, session.id);
        }
      }),
    );
    if (call.state === 'inviting' && call.invites.size === 0) {
      call.send('end');
      this.#forget(call);
      return 0;
    }
    return call.invites.size;
  }

  /** Withdraws an incoming call that no device answered yet (the caller gave up). */
  cancel(callSid: string): void {
    const call = this.#calls.get(callSid);
    if (!call || call.state !== 'inviting') return;
    for (const invite of call.invites.values()) {
      invite.session.send('cancel', { callsid: callSid });
      this.options.media.remove(invite.participantId);
    }
    call.invites.clear();
    call.send('end');
    this.#forget(call);
  }

  /** Outgoing call: the far end rings; the client gets early media. */
  ringing(callSid: string): void {
    const call = this.#calls.get(callSid);
    if (!call || !call.can('proceed') || !call.session || !call.localSdp) return;
    call.send('proceed');
    call.session.send('ringing', { callsid: call.callSid, sdp: call.localSdp });
  }

  /** Outgoing call: the far end answered. */
  connect(callSid: string): void {
    const call = this.#calls.get(callSid);
    if (!call || !call.can('connect') || !call.session || !call.localSdp) return;
    call.send('connect');
    call.session.send('answer', { callsid: call.callSid, sdp: call.localSdp });
  }

  /** Ends the client's side of a call from the network's side (optionally with an error). */
  hangup(callSid: string, error?: WireError): void {
    const call = this.#calls.get(callSid);
    if (!call) return;
    if (call.state === 'inviting') return this.cancel(callSid);
    call.session?.send(
      'hangup',
      error ? { callsid: call.callSid, error } : { callsid: call.callSid },
    );
    this.#end(call);
  }

  /** Closes every socket. */
  close(): void {
    this.#unsubscribeMedia();
    for (const session of [...this.#sessions]) session.close();
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
        if (call.invites.size === 0 && call.state === 'inviting') {
          this.#endUnanswered(call, 'disconnected');
        }
      } else if (call.session === session) {
        this.#leave(call, 'disconnected');
      }
    }
  }

  /** @internal */
  async callFrame(session: ClientSession, frame: CallFrame): Promise<void> {
    const identity = session.identity!;
    if (frame.type === 'invite') return this.#clientInvite(session, identity, frame.payload);
    const call = this.#calls.get(frame.payload.callsid);
    const mine = call && (call.session === session || call.invites.has(session.id));
    if (!call || !mine || call.state === 'ended') {
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
        if (call.state !== 'inviting') return;
        this.#dropInvite(call, session.id);
        if (call.invites.size === 0) {
          call.send('end');
          this.#forget(call);
          this.emit('call.rejected', call.callSid, call.identity);
        }
        return;
      case 'hangup':
        if (call.state === 'inviting') {
          this.#dropInvite(call, session.id);
          if (call.invites.size === 0) this.#endUnanswered(call, 'hangup');
          return;
        }
        return this.#leave(call, 'hangup');
      case 'dtmf':
        this.emit('call.dtmf', call.callSid, identity, frame.payload.dtmf);
        return;
      case 'message':
        session.send('ack', {
          acktype: 'message',
          callsid: call.callSid,
          voiceeventsid: frame.payload.voiceeventsid,
        });
        return;
      case 'reinvite':
        session.send('error', {
          callsid: call.callSid,
          error: {
            code: SignallingErrorCode.BadRequest,
            message: 'ICE restart (reinvite) is not supported by this gateway yet.',
          },
        });
        return;
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
    const refuse = (error: WireError): void => {
      session.send('hangup', { callsid: payload.callsid, error });
    };
    if (payload.reconnect !== undefined) {
      return refuse({
        code: SignallingErrorCode.CallNotFound,
        message: 'This call can no longer be reconnected.',
      });
    }
    const params = Object.fromEntries(new URLSearchParams(payload.twilio?.params ?? ''));
    const decision = await this.options.authorizeOutgoing(identity, params);
    if ('error' in decision) return refuse(decision.error);
    if (this.#calls.has(decision.callSid)) {
      return refuse({
        code: SignallingErrorCode.BadRequest,
        message: 'This call is already in progress.',
      });
    }
    const call = new ClientCall(decision.callSid, identity, 'outgoing', payload.callsid);
    call.session = session;
    call.participantId = `${call.callSid}.${session.id}.${nextLeg++}`;
    this.#calls.set(call.callSid, call);
    this.#calls.set(payload.callsid, call);
    this.#byParticipant.set(call.participantId, call);
    try {
      call.localSdp = await this.options.media.createAnswerLeg(
        call.callSid,
        call.participantId,
        payload.sdp,
      );
    } catch (error) {
      this.#end(call);
      return refuse({
        code: 31000,
        message: `Error processing the offer: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (call.is('ended')) return;
    this.emit('call.outgoing', call.callSid, identity, params);
  }

  async #clientAnswer(session: ClientSession, call: ClientCall, sdp: string): Promise<void> {
    const invite = call.invites.get(session.id);
    if (call.state !== 'inviting' || !invite) return;
    call.send('answer');
    call.session = session;
    call.participantId = invite.participantId;
    call.invites.delete(session.id);
    // Every other device stops ringing.
    for (const other of call.invites.values()) {
      other.session.send('cancel', { callsid: call.callSid });
      this.#byParticipant.delete(other.participantId);
      this.options.media.remove(other.participantId);
    }
    call.invites.clear();
    try {
      await this.options.media.acceptAnswer(invite.participantId, sdp);
    } catch (error) {
      session.send('hangup', {
        callsid: call.callSid,
        error: {
          code: 31000,
          message: `Error processing answer: ${error instanceof Error ? error.message : String(error)}`,
        },
      });
      return this.#leave(call, 'failed');
    }
    if (call.is('live')) this.emit('call.answered', call.callSid, call.identity);
  }

  #dropInvite(call: ClientCall, sessionId: string): void {
    const invite = call.invites.get(sessionId);
    if (!invite) return;
    call.invites.delete(sessionId);
    this.#byParticipant.delete(invite.participantId);
    this.options.media.remove(invite.participantId);
  }

  /** An incoming call that lost every device before anyone answered. */
  #endUnanswered(call: ClientCall, reason: ClientLeftReason): void {
    call.send('end');
    this.#forget(call);
    this.emit('call.left', call.callSid, call.identity, reason);
  }

  /** The client's side ended on the client's side: tell the owner. */
  #leave(call: ClientCall, reason: ClientLeftReason): void {
    if (call.state === 'ended') return;
    this.#end(call);
    this.emit('call.left', call.callSid, call.identity, reason);
  }

  #end(call: ClientCall): void {
    if (call.state !== 'ended') call.send('end');
    if (call.participantId) this.options.media.remove(call.participantId);
    for (const invite of call.invites.values()) this.options.media.remove(invite.participantId);
    call.invites.clear();
    this.#forget(call);
  }

  #forget(call: ClientCall): void {
    for (const [key, value] of this.#calls) if (value === call) this.#calls.delete(key);
    for (const [key, value] of this.#byParticipant)
      if (value === call) this.#byParticipant.delete(key);
  }

  #onMedia(event: MediaEvent): void {
    if (event.type !== 'leg.failed') return;
    const call = this.#byParticipant.get(event.participantId);
    if (!call) return;
    if (call.participantId === event.participantId) {
      call.session?.send('hangup', {
        callsid: call.callSid,
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
