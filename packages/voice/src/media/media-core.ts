import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FRAME_DURATION_MS, MAX_CATCH_UP_FRAMES, SAMPLE_RATE_HZ } from '../constants';
import { WavFileWriter } from '../dsp/wav-writer';
import type { NumberPlan } from '../pstn/number-plan';
import { partyCallName, SandboxNetwork } from '../pstn/sandbox-network';
import { VirtualParty, type PartyCall } from '../pstn/virtual-party';
import { safeFileName } from './file-names';
import { FramePacer } from './frame-pacer';
import { MediaError } from './media-errors';
import type {
  DialOptions,
  LegOptions,
  MediaEvent,
  ParticipantId,
  ParticipantRole,
  RoomId,
} from './media-engine';
import type { HearingRule } from './mixer';
import type { LeaveReason, Participant } from './participant';
import { createPeerFactory, type PeerFactory } from './peer-factory';
import {
  nodeScheduler,
  performanceClock,
  type CancelTimer,
  type MonotonicClock,
  type Scheduler,
} from './platform';
import { Room } from './room';
import { WebRtcLeg, type LegObserver } from './webrtc-leg';

/** Options of a {@link MediaCore}; the optional ones exist for tests. */
export interface MediaCoreOptions {
  /** Addresses announced in ICE candidates. */
  iceAddresses: readonly string[];
  /** Directory of the virtual parties' recordings and records (created by `start`). */
  sandboxDir: string;
  /** Directory of the rooms' recordings (created by `start`). */
  recordingsDir: string;
  /** Directory of the voice clips (loaded by `start`). */
  assetsDir: string;
  /** Ringing time of a sandbox number whose row sets none. */
  answerDelayMs: number;
  /** Receives every engine event. */
  emit: (event: MediaEvent) => void;
  /** Receives problems that end no call (they are logged on the main thread). */
  warn: (message: string) => void;
  clock?: MonotonicClock;
  scheduler?: Scheduler;
  numberPlan?: NumberPlan;
  /** Overrides the role rule of every room (tests). */
  hearingRule?: HearingRule;
  /**
   * Where the mixer's 20 ms grid lies on `clock` (see `FramePacerOptions.phaseMs`); default:
   * the first frame one period after `start`.
   */
  framePhaseMs?: number;
  /** Made by `start` (which generates the DTLS certificate) when not given. */
  peerFactory?: PeerFactory;
  /**
   * Offer legs kept ready ahead of time (see `MediaCore.createOfferLeg`); default
   * `DEFAULT_OFFER_POOL_SIZE`, 0 for none. Made after the first offer is asked for.
   */
  offerPoolSize?: number;
  /**
   * Runs after every mixed frame with how late it started and how late it finished (ms after
   * its due time; bench instrumentation).
   */
  onFrameMixed?: (latenessMs: number, endLatenessMs: number) => void;
}

/**
 * Offer legs kept ready per media core once offers are wanted: enough for a burst of rings (a
 * campaign's leads arriving together) to take ready legs only.
 */
export const DEFAULT_OFFER_POOL_SIZE = 32;
/**
 * With fewer ready offers than this, one is made as soon as one is taken; with more, the pool
 * is refilled only once no offer has been asked for `OFFER_REFILL_QUIET_MS`.
 */
export const OFFER_POOL_LOW_WATER = 4;
/** See `OFFER_POOL_LOW_WATER`: how long the core goes without a ring before it refills. */
export const OFFER_REFILL_QUIET_MS = 250;
/** An offer older than this is not used (its leg is closed and a fresh one made). */
export const READY_OFFER_MAX_AGE_MS = 10 * 60_000;

export { recordingFileName, safeFileName } from './file-names';

/**
 * The media engine inside its worker: rooms, WebRTC legs, virtual parties, room recordings and
 * the 20 ms mixer loop. It executes the commands of `MediaEngine` and reports `MediaEvent`s
 * through `emit`; it knows nothing of threads, so tests run it in-process with a fake clock.
 */
export class MediaCore {
  private readonly rooms = new Map<RoomId, Room>();
  private readonly participants = new Map<ParticipantId, Participant>();
  /** Work still finishing (peer connections closing, WAVs being written). */
  private readonly leaving = new Set<Promise<void>>();
  private readonly pacer: FramePacer;
  private readonly scheduler: Scheduler;
  private readonly clock: MonotonicClock;
  /** The virtual phone network: the phone parties of dialled numbers and callers. */
  private readonly network: SandboxNetwork;
  private peerFactory: PeerFactory | undefined;
  /** Offer legs made ahead of time, oldest first (see `createOfferLeg`). */
  private readonly readyOffers: Array<{ leg: WebRtcLeg; sdp: string; madeAt: number }> = [];
  /** Offer legs being made for `readyOffers`. */
  private makingOffers = 0;
  /** When an offer was last asked for (`clock`), or `undefined` before the first. */
  private lastOfferAskedAt: number | undefined;
  /** The refill waiting for a quiet moment, if one is scheduled. */
  private cancelRefill: CancelTimer | undefined;
  private running = false;

  /** Creates a stopped core. */
  constructor(private readonly options: MediaCoreOptions) {
    this.scheduler = options.scheduler ?? nodeScheduler;
    this.clock = options.clock ?? performanceClock;
    this.network = new SandboxNetwork({
      sandboxDir: options.sandboxDir,
      assetsDir: options.assetsDir,
      answerDelayMs: options.answerDelayMs,
      ...(options.numberPlan ? { numberPlan: options.numberPlan } : {}),
      scheduler: this.scheduler,
      emit: (event) => options.emit(event),
      warn: (message) => options.warn(message),
      detach: (participantId, reason) => this.detach(participantId, reason),
    });
    this.peerFactory = options.peerFactory;
    this.pacer = new FramePacer({
      clock: this.clock,
      scheduler: this.scheduler,
      frameMs: FRAME_DURATION_MS,
      ...(options.framePhaseMs === undefined ? {} : { phaseMs: options.framePhaseMs }),
      maxCatchUpFrames: MAX_CATCH_UP_FRAMES,
      onFrame: (latenessMs) => this.mixFrame(latenessMs),
      onSkip: (frames) => this.skipFrames(frames),
      onError: (error) => options.warn(`mixer frame failed: ${String(error)}`),
    });
  }

  /**
   * Prepares the directories, the voice clips and the DTLS certificate. The mixer loop runs
   * while a room exists (`join` starts it, the last `closeRoom` stops it): an engine without
   * calls does not wake 50 times a second.
   */
  async start(): Promise<void> {
    await mkdir(this.options.sandboxDir, { recursive: true });
    await mkdir(this.options.recordingsDir, { recursive: true });
    await this.network.start();
    this.peerFactory ??= await createPeerFactory(this.options.iceAddresses);
    this.running = true;
    if (this.rooms.size > 0) this.pacer.start();
  }

  /** Whether the mixer loop is running (it runs while a room exists). */
  get mixing(): boolean {
    return this.pacer.running;
  }

  /** Ends every room, waits for recordings to be written and peers to close, stops the loop. */
  async shutdown(): Promise<void> {
    this.running = false;
    this.cancelRefill?.();
    for (const roomId of [...this.rooms.keys()]) this.closeRoom(roomId, 'engine-closed');
    for (const { leg } of this.readyOffers.splice(0)) this.track(leg.leave('engine-closed'));
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

  /** Rooms and participants now (bench instrumentation). */
  get size(): { rooms: number; participants: number } {
    return { rooms: this.rooms.size, participants: this.participants.size };
  }

  /** See `MediaEngine.createOfferLeg`. */
  async createOfferLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    options: LegOptions = {},
  ): Promise<string> {
    if (this.participants.has(participantId))
      throw new MediaError('ParticipantExists', participantId);
    const ready = this.takeReadyOffer();
    this.lastOfferAskedAt = this.clock.now();
    // After this offer is answered: making a leg is a millisecond or two of this thread's time.
    this.scheduler.after(0, () => this.refillOffers());
    if (ready) {
      ready.leg.bind(participantId, roomId, options.role ?? 'agent');
      this.join(ready.leg);
      return ready.sdp;
    }
    const leg = this.addLeg(roomId, participantId, options);
    return this.failOnError(leg, () => leg.createOffer());
  }

  /** Offer legs ready now (tests). */
  get readyOfferCount(): number {
    return this.readyOffers.length;
  }

  /** The oldest offer made ahead of time that is not too old to use, if any. */
  private takeReadyOffer(): { leg: WebRtcLeg; sdp: string } | undefined {
    for (;;) {
      const ready = this.readyOffers.shift();
      if (!ready) return undefined;
      if (
        this.clock.now() - ready.madeAt <= READY_OFFER_MAX_AGE_MS &&
        ready.leg.state === 'awaiting-answer'
      )
        return ready;
      this.track(ready.leg.leave('removed'));
    }
  }

  /**
   * Starts keeping offer legs ready (see `refillOffers`) before any offer is asked of this core:
   * the engine asks every core as soon as one of them is asked for its first offer, so that a
   * core's first rings do not find it empty.
   */
  prepareOffers(): void {
    if (this.running) this.scheduler.after(0, () => this.refillOffers());
  }

  /**
   * Makes offer legs ahead of time, up to `offerPoolSize`, once offers are wanted (the first
   * `createOfferLeg` or `prepareOffers`): ringing an agent then takes a leg whose peer
   * connection, sockets and ICE candidates are ready (a millisecond or two of this thread's time
   * each) instead of making one while the agent waits. One leg at a time, each in its own turn of
   * the event loop so the mixer's frames keep their time; while rings keep coming (a burst) only
   * up to `OFFER_POOL_LOW_WATER`, the rest once no ring has come for `OFFER_REFILL_QUIET_MS`, so
   * that a burst of rings is not slowed by making legs for the next one.
   */
  private refillOffers(): void {
    this.cancelRefill?.();
    this.cancelRefill = undefined;
    const size = this.options.offerPoolSize ?? DEFAULT_OFFER_POOL_SIZE;
    if (!this.running || !this.peerFactory || this.makingOffers > 0) return;
    const have = this.readyOffers.length;
    if (have >= size) return;
    const quietFor = this.clock.now() - (this.lastOfferAskedAt ?? -Infinity);
    if (have >= Math.min(OFFER_POOL_LOW_WATER, size) && quietFor < OFFER_REFILL_QUIET_MS) {
      this.cancelRefill = this.scheduler.after(OFFER_REFILL_QUIET_MS - quietFor, () =>
        this.refillOffers(),
      );
      return;
    }
    void this.makeReadyOffer(this.peerFactory).then(() => {
      if (this.running) this.cancelRefill = this.scheduler.after(0, () => this.refillOffers());
    });
  }

  /** Makes one offer leg for `readyOffers`; resolves when it is there (or failed, warned). */
  private makeReadyOffer(factory: PeerFactory): Promise<void> {
    this.makingOffers++;
    const leg = new WebRtcLeg({
      id: '',
      roomId: '',
      peer: factory.create(),
      observer: this.legObserver,
      scheduler: this.scheduler,
      clock: this.clock,
    });
    const made = leg.createOffer().then(
      (sdp) => {
        this.makingOffers--;
        if (this.running) this.readyOffers.push({ leg, sdp, madeAt: this.clock.now() });
        else this.track(leg.leave('engine-closed'));
      },
      (error: unknown) => {
        this.makingOffers--;
        this.options.warn(`an offer made ahead of time failed: ${String(error)}`);
        this.track(leg.leave('failed'));
      },
    );
    // Shutdown waits for it like for a leg leaving.
    this.track(made);
    return made;
  }

  /** See `MediaEngine.acceptAnswer`. Does nothing for a participant that has gone. */
  async acceptAnswer(participantId: ParticipantId, answerSdp: string): Promise<void> {
    const leg = this.legOf(participantId);
    if (!leg) return;
    await this.failOnError(leg, () => leg.acceptAnswer(answerSdp));
  }

  /** See `MediaEngine.createAnswerLeg`. */
  async createAnswerLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    offerSdp: string,
    options: LegOptions = {},
  ): Promise<string> {
    const leg = this.addLeg(roomId, participantId, options);
    return this.failOnError(leg, () => leg.answer(offerSdp));
  }

  /** See `MediaEngine.renegotiate`. */
  async renegotiate(participantId: ParticipantId, offerSdp: string): Promise<string> {
    const leg = this.legOf(participantId);
    if (!leg) return '';
    try {
      return await leg.renegotiate(offerSdp);
    } catch (error) {
      if (leg.state === 'failed') {
        this.detach(leg.id, 'failed');
        this.options.emit({
          type: 'leg.failed',
          participantId: leg.id,
          roomId: leg.roomId,
          reason: `renegotiation failed: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
      throw error;
    }
  }

  /** See `MediaEngine.dial`. */
  dial(
    roomId: RoomId,
    participantId: ParticipantId,
    number: string,
    options: DialOptions = {},
  ): void {
    const party = this.addParty(
      roomId,
      participantId,
      this.network.outboundCall(number, options.from ?? null),
    );
    party?.dial();
  }

  /** See `MediaEngine.addCaller`. */
  addCaller(roomId: RoomId, participantId: ParticipantId, from: string, to: string): void {
    this.addParty(roomId, participantId, { direction: 'inbound', from, to })?.join();
  }

  /** See `MediaEngine.remove`. */
  remove(participantId: ParticipantId): void {
    this.detach(participantId, 'removed');
  }

  /** See `MediaEngine.closeRoom`: every participant leaves, then the recording is finished. */
  closeRoom(roomId: RoomId, reason: LeaveReason = 'room-closed'): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const participant of room.participants) this.detach(participant.id, reason);
    this.rooms.delete(roomId);
    if (this.rooms.size === 0) this.pacer.stop();
    const recording = room.recording;
    if (recording) {
      this.track(
        recording.close().then(
          (seconds) =>
            this.options.emit({ type: 'recording.ready', roomId, path: recording.path, seconds }),
          (error: unknown) =>
            this.options.warn(
              `recording of ${roomId} (${recording.path}) failed: ${String(error)}`,
            ),
        ),
      );
    }
  }

  /** See `MediaEngine.setMuted`. */
  setMuted(participantId: ParticipantId, muted: boolean): void {
    const participant = this.participants.get(participantId);
    if (participant) participant.muted = muted;
  }

  /** See `MediaEngine.setRole`. */
  setRole(participantId: ParticipantId, role: ParticipantRole): void {
    const participant = this.participants.get(participantId);
    if (participant) participant.role = role;
  }

  /** See `MediaEngine.setHold`. */
  setHold(roomId: RoomId, held: boolean): void {
    this.rooms.get(roomId)?.setHold(held);
  }

  /** See `MediaEngine.sendDigits`. */
  sendDigits(roomId: RoomId, digits: string): void {
    for (const participant of this.rooms.get(roomId)?.participants ?? []) {
      if (participant instanceof VirtualParty) participant.receiveDigits(digits);
    }
  }

  /** See `MediaEngine.partyHangsUp`. */
  partyHangsUp(participantId: ParticipantId): void {
    const participant = this.participants.get(participantId);
    if (participant instanceof VirtualParty) participant.hangUpNow();
  }

  /** See `MediaEngine.interruptMedia`. */
  interruptMedia(participantId: ParticipantId, durationMs: number): void {
    this.legOf(participantId)?.interruptMedia(durationMs);
  }

  /**
   * Media time that passed unmixed after a stall: legs move their RTP clocks past it, and the
   * recordings (the rooms' and the virtual parties') keep wall-clock time with silence.
   */
  private skipFrames(frames: number): void {
    for (const participant of this.participants.values()) participant.skipFrames(frames);
    for (const room of this.rooms.values()) room.skipFrames(frames);
  }

  private mixFrame(latenessMs: number): void {
    const startedAt = this.clock.now();
    for (const room of this.rooms.values()) room.mixFrame();
    this.options.onFrameMixed?.(latenessMs, latenessMs + this.clock.now() - startedAt);
  }

  private legOf(participantId: ParticipantId): WebRtcLeg | undefined {
    const participant = this.participants.get(participantId);
    if (!participant) return undefined;
    if (!(participant instanceof WebRtcLeg)) {
      throw new MediaError('IllegalTransition', `${participantId} is not a WebRTC leg`);
    }
    return participant;
  }

  private addLeg(roomId: RoomId, participantId: ParticipantId, options: LegOptions): WebRtcLeg {
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
      clock: this.clock,
      ...(options.role ? { role: options.role } : {}),
    });
    this.join(leg);
    return leg;
  }

  private addParty(
    roomId: RoomId,
    participantId: ParticipantId,
    call: PartyCall,
  ): VirtualParty | undefined {
    if (this.participants.has(participantId)) {
      this.options.warn(
        `${partyCallName(call)}: ${new MediaError('ParticipantExists', participantId).message}`,
      );
      return undefined;
    }
    const party = this.network.party(roomId, participantId, call);
    if (party) this.join(party);
    return party;
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
      const roomId = participant.roomId;
      room = new Room(roomId, {
        ...(this.options.hearingRule ? { rule: this.options.hearingRule } : {}),
        startRecording: () =>
          new WavFileWriter(
            join(this.options.recordingsDir, safeFileName(roomId, 'wav')),
            SAMPLE_RATE_HZ,
          ),
      });
      this.rooms.set(roomId, room);
      if (this.running) this.pacer.start();
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
    this.track(
      participant
        .leave(reason)
        .catch((error: unknown) =>
          this.options.warn(`participant ${participantId} failed to leave: ${String(error)}`),
        ),
    );
  }

  private track(work: Promise<void>): void {
    const tracked = work.finally(() => this.leaving.delete(tracked));
    this.leaving.add(tracked);
  }

  /** Events of legs made ahead of time (`id` '') concern no call yet and are dropped. */
  private readonly legObserver: LegObserver = {
    connected: (leg) => {
      if (leg.id === '') return;
      this.options.emit({ type: 'leg.connected', participantId: leg.id, roomId: leg.roomId });
    },
    failed: (leg, reason) => {
      if (leg.id === '') return;
      this.detach(leg.id, 'failed');
      this.options.emit({ type: 'leg.failed', participantId: leg.id, roomId: leg.roomId, reason });
    },
    dtmf: (leg, digit, tone) => {
      if (leg.id === '') return;
      this.options.emit({ type: 'dtmf', participantId: leg.id, roomId: leg.roomId, digit, tone });
      // The room's other party (the virtual lead) hears the key press.
      this.sendDigits(leg.roomId, digit);
    },
    warn: (message) => this.options.warn(message),
  };
}
