/**
 * A media engine for tests of the signalling layer: it records commands, returns SDP strings,
 * and lets the test play media events. The real engine has its own tests.
 */
import type { MediaEngine, MediaEvent } from '../media/media-engine';

/** The fake. */
export class FakeMediaEngine implements MediaEngine {
  readonly commands: Array<{ op: string; args: unknown[] }> = [];
  readonly #listeners = new Set<(event: MediaEvent) => void>();

  start(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  createOfferLeg(roomId: string, participantId: string): Promise<string> {
    this.commands.push({ op: 'createOfferLeg', args: [roomId, participantId] });
    return Promise.resolve(`v=0 offer ${participantId}`);
  }
  acceptAnswer(participantId: string, answerSdp: string): Promise<void> {
    this.commands.push({ op: 'acceptAnswer', args: [participantId, answerSdp] });
    return Promise.resolve();
  }
  createAnswerLeg(roomId: string, participantId: string, offerSdp: string): Promise<string> {
    this.commands.push({ op: 'createAnswerLeg', args: [roomId, participantId, offerSdp] });
    return Promise.resolve(`v=0 answer ${participantId}`);
  }
  dial(roomId: string, participantId: string, number: string): void {
    this.commands.push({ op: 'dial', args: [roomId, participantId, number] });
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
