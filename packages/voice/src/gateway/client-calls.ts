/**
 * The gateway's calls, found every way the wire and the engine name them: by wire sid (and an
 * outgoing call's temporary client id), by room, by media participant (a leg or an invite's
 * leg) and by reconnect token. `SignallingGateway` decides; this keeps the indexes in step.
 */
import { randomBytes } from 'node:crypto';
import type { ClientCall } from './client-call';

/** A fresh call sid for a leg, shaped like Twilio's (`CA` + 32 hex digits). */
const newWireSid = (): string => `CA${randomBytes(16).toString('hex')}`;
/** A fresh reconnect token (opaque to clients). */
const newToken = (): string => randomBytes(24).toString('base64url');

/** How much the indexes keep now (counts only). */
export interface ClientCallCounts {
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

/** See the module comment. */
export class ClientCalls {
  /** Calls by wire sid and, outgoing, by the client's temporary id. */
  readonly #bySid = new Map<string, ClientCall>();
  /** Calls by room sid. */
  readonly #rooms = new Map<string, Set<ClientCall>>();
  /** Room sids that already name a leg on the wire (never reused while the room lasts). */
  readonly #roomSidsUsed = new Set<string>();
  readonly #byParticipant = new Map<string, ClientCall>();
  readonly #byToken = new Map<string, ClientCall>();

  /** Every call kept (each once). */
  all(): Set<ClientCall> {
    return new Set(this.#bySid.values());
  }

  /** The call a wire sid or temporary client id names. */
  bySid(sid: string): ClientCall | undefined {
    return this.#bySid.get(sid);
  }

  /** Whether a wire sid or temporary client id names a call. */
  hasSid(sid: string): boolean {
    return this.#bySid.has(sid);
  }

  /** The calls in the room. */
  inRoom(roomSid: string): ClientCall[] {
    return [...(this.#rooms.get(roomSid) ?? [])];
  }

  /** The identity's call (leg or invite) in the room, if it has not ended. */
  of(roomSid: string, identity: string): ClientCall | undefined {
    return this.inRoom(roomSid).find((call) => call.identity === identity && !call.is('ended'));
  }

  /** The room's outgoing call, if it has not ended. */
  outgoing(roomSid: string): ClientCall | undefined {
    return this.inRoom(roomSid).find((call) => call.direction === 'outgoing' && !call.is('ended'));
  }

  /** The wire sid of a new leg: the room's own sid for its first leg, else a fresh one. */
  takeWireSid(roomSid: string): string {
    if (this.#roomSidsUsed.has(roomSid) || this.#bySid.has(roomSid)) return newWireSid();
    this.#roomSidsUsed.add(roomSid);
    return roomSid;
  }

  /** Keeps a new call by its sids and its room. */
  track(call: ClientCall): void {
    this.#bySid.set(call.wireSid, call);
    if (call.clientCallSid !== null) this.#bySid.set(call.clientCallSid, call);
    let room = this.#rooms.get(call.roomSid);
    if (!room) {
      room = new Set();
      this.#rooms.set(call.roomSid, room);
    }
    room.add(call);
  }

  /** Gives the call a new reconnect token (the old one names nothing from now on). */
  issueToken(call: ClientCall): string {
    if (call.reconnectToken !== null) this.#byToken.delete(call.reconnectToken);
    const token = newToken();
    call.reconnectToken = token;
    this.#byToken.set(token, call);
    return token;
  }

  /** The call a reconnect token names. */
  byToken(token: string): ClientCall | undefined {
    return this.#byToken.get(token);
  }

  /** The call a media participant (its leg, or an invite's leg) belongs to. */
  byParticipant(participantId: string): ClientCall | undefined {
    return this.#byParticipant.get(participantId);
  }

  /** Keeps the call by a media participant of it. */
  addParticipant(participantId: string, call: ClientCall): void {
    this.#byParticipant.set(participantId, call);
  }

  /** Forgets a media participant (an invite's leg dropped). */
  removeParticipant(participantId: string): void {
    this.#byParticipant.delete(participantId);
  }

  /** Forgets the room (its calls are forgotten one by one as they end). */
  closeRoom(roomSid: string): void {
    this.#rooms.delete(roomSid);
    this.#roomSidsUsed.delete(roomSid);
  }

  /** Forgets the call everywhere. */
  forget(call: ClientCall): void {
    for (const [key, value] of this.#bySid) if (value === call) this.#bySid.delete(key);
    for (const [key, value] of this.#byParticipant)
      if (value === call) this.#byParticipant.delete(key);
    if (call.reconnectToken !== null) this.#byToken.delete(call.reconnectToken);
    this.#rooms.get(call.roomSid)?.delete(call);
  }

  /** The indexes' sizes. */
  counts(): ClientCallCounts {
    return {
      calls: this.#bySid.size,
      rooms: this.#rooms.size,
      roomSids: this.#roomSidsUsed.size,
      participants: this.#byParticipant.size,
      tokens: this.#byToken.size,
    };
  }
}
