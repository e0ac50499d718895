/**
 * A media engine for tests of the signalling layer: it records commands, returns SDP strings,
 * and lets the test play media events. The real engine has its own tests.
 */
import type {
  DialOptions,
  LegOptions,
  MediaEngine,
  MediaEvent,
  ParticipantRole,
} from '../media/media-engine';

/** The fake. */
export class FakeMediaEngine implements MediaEngine {
  readonly commands: Array<{ op: string; args: unknown[] }> = [];
  readonly #listeners = new Set<(event: MediaEvent) => void>();
  /** When set, `renegotiate` rejects with it. */
  renegotiateError: Error | undefined;
  /** When set, `createAnswerLeg` rejects with it (an offer the engine cannot use). */
  createAnswerLegError: Error | undefined;

  start(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  createOfferLeg(roomId: string, participantId: string, options: LegOptions = {}): Promise<string> {
    this.commands.push({
      op: 'createOfferLeg',
      args: [roomId, participantId, options.role ?? 'agent'],
    });
    return Promise.resolve(`v=0 offer ${participantId}`);
  }
  acceptAnswer(participantId: string, answerSdp: string): Promise<void> {
    this.commands.push({ op: 'acceptAnswer', args: [participantId, answerSdp] });
    return Promise.resolve();
  }
  createAnswerLeg(
    roomId: string,
    participantId: string,
    offerSdp: string,
    options: LegOptions = {},
  ): Promise<string> {
    this.commands.push({
      op: 'createAnswerLeg',
      args: [roomId, participantId, offerSdp, options.role ?? 'agent'],
    });
    if (this.createAnswerLegError) return Promise.reject(this.createAnswerLegError);
    return Promise.resolve(`v=0 answer ${participantId}`);
  }
  renegotiate(participantId: string, offerSdp: string): Promise<string> {
    this.commands.push({ op: 'renegotiate', args: [participantId, offerSdp] });
    if (this.renegotiateError) return Promise.reject(this.renegotiateError);
    return Promise.resolve(`v=0 reanswer ${participantId}`);
  }
  /** Records `[roomId, participantId, number]`, and the options when they carry a caller ID. */
  dial(roomId: string, participantId: string, number: string, options: DialOptions = {}): void {
    this.commands.push({
      op: 'dial',
      args: [roomId, participantId, number, ...(options.from === undefined ? [] : [options])],
    });
  }
  addCaller(roomId: string, participantId: string, from: string, to: string): void {
    this.commands.push({ op: 'addCaller', args: [roomId, participantId, from, to] });
  }
  remove(participantId: string): void {
    this.commands.push({ op: 'remove', args: [participantId] });
  }
  closeRoom(roomId: string): void {
    this.commands.push({ op: 'closeRoom', args: [roomId] });
  }
  setMuted(participantId: string, muted: boolean): void {
    this.commands.push({ op: 'setMuted', args: [participantId, muted] });
  }
  setRole(participantId: string, role: ParticipantRole): void {
    this.commands.push({ op: 'setRole', args: [participantId, role] });
  }
  setHold(roomId: string, held: boolean): void {
    this.commands.push({ op: 'setHold', args: [roomId, held] });
  }
  sendDigits(roomId: string, digits: string): void {
    this.commands.push({ op: 'sendDigits', args: [roomId, digits] });
  }
  partyHangsUp(participantId: string): void {
    this.commands.push({ op: 'partyHangsUp', args: [participantId] });
  }
  interruptMedia(participantId: string, durationMs: number): void {
    this.commands.push({ op: 'interruptMedia', args: [participantId, durationMs] });
  }
  subscribe(listener: (event: MediaEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Plays an event as the engine would. */
  emit(event: MediaEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
  /** The commands of one kind. */
  ops(op: string): unknown[][] {
    return this.commands.filter((c) => c.op === op).map((c) => c.args);
  }
}
