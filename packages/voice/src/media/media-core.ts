import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FRAME_DURATION_MS, MAX_CATCH_UP_FRAMES } from '../constants';
import { writeWavFile } from '../dsp/wav';
import { resolveNumber, SANDBOX_NUMBER_PLAN, type NumberPlan } from '../pstn/number-plan';
import { VirtualParty, type PartyObserver, type RecordingWriter } from '../pstn/virtual-party';
import { FramePacer } from './frame-pacer';
import { MediaError } from './media-errors';
import type { MediaEvent, ParticipantId, RoomId } from './media-engine';
import type { HearingRule } from './mixer';
import type { LeaveReason, Participant } from './participant';
import { createPeerFactory, type PeerFactory } from './peer-factory';
import { nodeScheduler, performanceClock, type MonotonicClock, type Scheduler } from './platform';
import { Room } from './room';
import { WebRtcLeg, type LegObserver } from './webrtc-leg';

/** Options of a {@link MediaCore}; the optional ones exist for tests. */
export interface MediaCoreOptions {
  /** Addresses announced in ICE candidates. */
  iceAddresses: readonly string[];
  /** Directory of the virtual parties' recordings (created by `start`). */
  sandboxDir: string;
  /** Ringing time of a sandbox number whose row sets none. */
  answerDelayMs: number;
  /** Receives every engine event. */
  emit: (event: MediaEvent) => void;
  /** Receives problems that end no call (they are logged on the main thread). */
  warn: (message: string) => void;
  clock?: MonotonicClock;
  scheduler?: Scheduler;
  numberPlan?: NumberPlan;
  writeRecording?: RecordingWriter;
  hearingRule?: HearingRule;
  /** Made by `start` (which generates the DTLS certificate) when not given. */
  peerFactory?: PeerFactory;
}

/** File name of a participant's recording: its id, with characters unsafe in a path replaced by `_`. */
export function recordingFileName(participantId: ParticipantId): string {
  const safe = participantId.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${safe === '' ? '_' : safe}.wav`;
}

/**
 * The media engine inside its worker: rooms, WebRTC legs, virtual parties and the 20 ms mixer
 * loop. It executes the commands of `MediaEngine` and reports `MediaEvent`s through `emit`; it
 * knows nothing of threads, so tests run it in-process with a fake clock.
 */
export class MediaCore {
  private readonly rooms = new Map<RoomId, Room>();
  private readonly participants = new Map<ParticipantId, Participant>();
  /** Leaves still finishing (peer connections closing, WAVs being written). */
  private readonly leaving = new Set<Promise<void>>();
  private readonly pacer: FramePacer;
  private readonly scheduler: Scheduler;
  private readonly numberPlan: NumberPlan;
  private readonly writeRecording: RecordingWriter;
  private peerFactory: PeerFactory | undefined;

  /** Creates a stopped core. */
  constructor(private readonly options: MediaCoreOptions) {
    this.scheduler = options.scheduler ?? nodeScheduler;
    this.numberPlan = options.numberPlan ?? SANDBOX_NUMBER_PLAN;
    this.writeRecording = options.writeRecording ?? writeWavFile;
    this.peerFactory = options.peerFactory;
    this.pacer = new FramePacer({
      clock: options.clock ?? performanceClock,
      scheduler: this.scheduler,
      frameMs: FRAME_DURATION_MS,
      maxCatchUpFrames: MAX_CATCH_UP_FRAMES,
      onFrame: () => this.mixFrame(),
      onError: (error) => options.warn(`mixer frame failed: ${String(error)}`),
    });
  }

  /** Prepares the sandbox directory and the DTLS certificate, then starts the mixer loop. */
  async start(): Promise<void> {
    await mkdir(this.options.sandboxDir, { recursive: true });
    this.peerFactory ??= await createPeerFactory(this.options.iceAddresses);
    this.pacer.start();
  }

  /** Ends every room, waits for recordings to be written and peers to close, stops the loop. */
  async shutdown(): Promise<void> {
    for (const roomId of [...this.rooms.keys()]) this.closeRoom(roomId, 'engine-closed');
    this.pacer.stop();
    await this.settled();
  }

  /** Resolves when every leave under way (WAV writes, peer closes) has finished. */
  async settled(): Promise<void> {
    while (this.leaving.size > 0) await Promise.allSettled([...this.leaving]);
  }

  /** Mixer loop statistics. */
  get loopStats(): { framesRun: number; framesSkipped: number } {
    return this.pacer.stats;
  }

  /** See `MediaEngine.createOfferLeg`. */
  async createOfferLeg(roomId: RoomId, participantId: ParticipantId): Promise<string> {
    const leg = this.addLeg(roomId, participantId);
    return this.failOnError(leg, () => leg.createOffer());
  }

  /** See `MediaEngine.acceptAnswer`. Does nothing for a participant that has gone. */
  async acceptAnswer(participantId: ParticipantId, answerSdp: string): Promise<void> {
    const participant = this.participants.get(participantId);
    if (!participant) return;
    if (!(participant instanceof WebRtcLeg)) {
      throw new MediaError('IllegalTransition', `${participantId} is not a WebRTC leg`);
    }
    await this.failOnError(participant, () => participant.acceptAnswer(answerSdp));
  }

  /** See `MediaEngine.createAnswerLeg`. */
  async createAnswerLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    offerSdp: string,
  ): Promise<string> {
    const leg = this.addLeg(roomId, participantId);
    return this.failOnError(leg, () => leg.answer(offerSdp));
  }

  /** See `MediaEngine.dial`. */
  dial(roomId: RoomId, participantId: ParticipantId, number: string): void {
    if (this.participants.has(participantId)) {
      this.options.warn(
        `dial ${number}: ${new MediaError('ParticipantExists', participantId).message}`,
      );
      return;
    }
    const party = new VirtualParty({
      id: participantId,
      roomId,
      behaviour: resolveNumber(this.numberPlan, number),
      answerDelayMs: this.options.answerDelayMs,
      recordingPath: join(this.options.sandboxDir, recordingFileName(participantId)),
      writeRecording: this.writeRecording,
      scheduler: this.scheduler,
      observer: this.partyObserver,
    });
    this.join(party);
    party.dial();
  }

  /** See `MediaEngine.remove`. */
  remove(participantId: ParticipantId): void {
    this.detach(participantId, 'removed');
  }

  /** See `MediaEngine.closeRoom`. */
  closeRoom(roomId: RoomId, reason: LeaveReason = 'room-closed'): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const participant of room.participants) this.detach(participant.id, reason);
    this.rooms.delete(roomId);
  }

  /** See `MediaEngine.setMuted`. */
  setMuted(participantId: ParticipantId, muted: boolean): void {
    const participant = this.participants.get(participantId);
    if (participant) participant.muted = muted;
  }

  private mixFrame(): void {
    for (const room of this.rooms.values()) room.mixFrame();
  }

  private addLeg(roomId: RoomId, participantId: ParticipantId): WebRtcLeg {
    if (this.participants.has(participantId))
      throw new MediaError('ParticipantExists', participantId);
    if (!this.peerFactory)
      throw new MediaError('EngineNotRunning', 'the media core has not started');
    const leg = new WebRtcLeg({
      id: participantId,
      roomId,
      peer: this.peerFactory.create(),
      observer: this.legObserver,
      scheduler: this.scheduler,
    });
    this.join(leg);
    return leg;
  }

  /** Runs a negotiation step; if it leaves the leg failed, the leg leaves its room. */
  private async failOnError<T>(leg: WebRtcLeg, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (leg.state === 'failed') this.detach(leg.id, 'failed');
      throw error;
    }
  }

  private join(participant: Participant): void {
    let room = this.rooms.get(participant.roomId);
    if (!room) {
      room = new Room(participant.roomId, this.options.hearingRule);
      this.rooms.set(participant.roomId, room);
    }
    room.add(participant);
    this.participants.set(participant.id, participant);
  }

  /** Takes a participant out of its room and lets it finish leaving in the background. */
  private detach(participantId: ParticipantId, reason: LeaveReason): void {
    const participant = this.participants.get(participantId);
    if (!participant) return;
    this.participants.delete(participantId);
    this.rooms.get(participant.roomId)?.delete(participantId);
    const leaving = participant
      .leave(reason)
      .catch((error: unknown) =>
        this.options.warn(`participant ${participantId} failed to leave: ${String(error)}`),
      )
      .finally(() => this.leaving.delete(leaving));
    this.leaving.add(leaving);
  }

  private readonly legObserver: LegObserver = {
    connected: (leg) =>
      this.options.emit({ type: 'leg.connected', participantId: leg.id, roomId: leg.roomId }),
    failed: (leg, reason) => {
      this.detach(leg.id, 'failed');
      this.options.emit({ type: 'leg.failed', participantId: leg.id, roomId: leg.roomId, reason });
    },
    dtmf: (leg, digit) =>
      this.options.emit({ type: 'dtmf', participantId: leg.id, roomId: leg.roomId, digit }),
    warn: (message) => this.options.warn(message),
  };

  private readonly partyObserver: PartyObserver = {
    ringing: (party) =>
      this.options.emit({ type: 'party.ringing', participantId: party.id, roomId: party.roomId }),
    answered: (party) =>
      this.options.emit({ type: 'party.answered', participantId: party.id, roomId: party.roomId }),
    unanswered: (party, reason) => {
      this.detach(party.id, 'failed');
      this.options.emit({
        type: 'party.unanswered',
        participantId: party.id,
        roomId: party.roomId,
        reason,
      });
    },
    hungUp: (party) => {
      this.options.emit({ type: 'party.hangup', participantId: party.id, roomId: party.roomId });
      this.detach(party.id, 'hung-up');
    },
    recorded: (party, path, seconds) =>
      this.options.emit({
        type: 'party.recorded',
        participantId: party.id,
        roomId: party.roomId,
        path,
        seconds,
      }),
    warn: (message) => this.options.warn(message),
  };
}
