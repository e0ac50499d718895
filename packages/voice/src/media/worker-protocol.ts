/**
 * The typed message protocol between `WorkerMediaEngine` (main thread) and the media worker.
 *
 * The main thread posts {@link HostMessage}s; commands that return a value (or may fail) carry a
 * `requestId`, answered by exactly one `result` or `failure`. The worker posts
 * {@link WorkerMessage}s: `ready` once, then results, events and warnings in the order they
 * happen. Both sides are this package's code, so messages are typed, not parsed.
 */
import type { SerializedMediaError } from './media-errors';
import type { MediaEvent, ParticipantId, ParticipantRole, RoomId } from './media-engine';

/** What one media worker reports about its loop (bench and diagnostics). */
export interface WorkerStats {
  shard: number;
  rooms: number;
  participants: number;
  framesRun: number;
  /** Offer legs made ahead of time and waiting (`MediaCore.readyOfferCount`). */
  readyOffers: number;
  framesSkipped: number;
  /** How late frames started after their due time since the last `stats` (ms). */
  frameLateness: { count: number; p50: number; p99: number; max: number };
  /**
   * How late frames finished mixing after their due time since the last `stats` (ms): the
   * frame's datagrams leave the worker right after, so this bounds how late they are sent.
   */
  frameEndLateness: { count: number; p50: number; p99: number; max: number };
  /** Garbage collection pauses of the worker since the last `stats`. */
  gc: { count: number; totalMs: number; maxMs: number };
}

/** A command of `MediaEngine`, as posted to the worker. */
export type EngineCommand =
  | { kind: 'createOfferLeg'; roomId: RoomId; participantId: ParticipantId; role?: ParticipantRole }
  | { kind: 'acceptAnswer'; participantId: ParticipantId; sdp: string }
  | {
      kind: 'createAnswerLeg';
      roomId: RoomId;
      participantId: ParticipantId;
      sdp: string;
      role?: ParticipantRole;
    }
  | { kind: 'renegotiate'; participantId: ParticipantId; sdp: string }
  | { kind: 'dial'; roomId: RoomId; participantId: ParticipantId; number: string; from?: string }
  | { kind: 'addCaller'; roomId: RoomId; participantId: ParticipantId; from: string; to: string }
  | { kind: 'remove'; participantId: ParticipantId }
  | { kind: 'partyHangsUp'; participantId: ParticipantId }
  | { kind: 'closeRoom'; roomId: RoomId }
  | { kind: 'setMuted'; participantId: ParticipantId; muted: boolean }
  | { kind: 'setRole'; participantId: ParticipantId; role: ParticipantRole }
  | { kind: 'setHold'; roomId: RoomId; held: boolean }
  | { kind: 'sendDigits'; roomId: RoomId; digits: string }
  | { kind: 'interruptMedia'; participantId: ParticipantId; durationMs: number }
  | { kind: 'prepareOffers' }
  | { kind: 'stats' }
  | { kind: 'shutdown' };

/** What each command resolves with. */
export interface CommandResults {
  createOfferLeg: string;
  acceptAnswer: undefined;
  createAnswerLeg: string;
  renegotiate: string;
  dial: undefined;
  addCaller: undefined;
  remove: undefined;
  partyHangsUp: undefined;
  closeRoom: undefined;
  setMuted: undefined;
  setRole: undefined;
  setHold: undefined;
  sendDigits: undefined;
  interruptMedia: undefined;
  prepareOffers: undefined;
  stats: WorkerStats;
  shutdown: undefined;
}

/** Kinds of command. */
export type CommandKind = EngineCommand['kind'];

/** The command of kind `K`. */
export type CommandOf<K extends CommandKind> = Extract<EngineCommand, { kind: K }>;

/** Messages from the main thread to the worker. */
export type HostMessage =
  /** A command whose outcome the caller awaits. */
  | { type: 'request'; requestId: number; command: EngineCommand }
  /** A fire-and-forget command; problems come back as warnings. */
  | { type: 'notify'; command: EngineCommand };

/** Messages from the worker to the main thread. */
export type WorkerMessage =
  /** The worker started (certificate generated, sandbox directory made) and takes commands. */
  | { type: 'ready' }
  /** The worker could not start. */
  | { type: 'start-failed'; error: SerializedMediaError }
  /** A request succeeded. */
  | { type: 'result'; requestId: number; value: CommandResults[CommandKind] }
  /** A request failed. */
  | { type: 'failure'; requestId: number; error: SerializedMediaError }
  /** An engine event. */
  | { type: 'event'; event: MediaEvent }
  /** A problem that ends no call. */
  | { type: 'warning'; message: string };

/** What the worker is started with (`workerData`). */
export interface WorkerInit {
  /** Which shard this worker is (several workers may later split the rooms). */
  shard: number;
  /**
   * Where this worker's 20 ms frames fall, in ms after the shared grid (the Unix epoch, in
   * whole frames): workers on one core take turns instead of mixing at the same instant.
   */
  frameOffsetMs: number;
  /** Nice value the worker gives its thread (lower runs first); `undefined` leaves it. */
  threadNice?: number;
  iceAddresses: string[];
  sandboxDir: string;
  recordingsDir: string;
  assetsDir: string;
  answerDelayMs: number;
}
