/**
 * The media engine's public face on the server's main thread.
 *
 * Everything audio (WebRTC legs, the 20 ms mixer loop, the virtual phone network, recorders)
 * runs in a worker thread; this interface is what the signalling gateway and the server's call
 * flows use. It knows no database and no HTTP: it takes commands and emits typed events.
 *
 * A *room* is one call. A *participant* is a WebRTC leg (an agent's browser) or a virtual phone
 * party (a sandbox number dialled into the room). Ids are chosen by the caller and are unique
 * for the engine's lifetime.
 */

/** Identifies one participant (WebRTC leg or virtual phone party). */
export type ParticipantId = string;
/** Identifies one room (one call). */
export type RoomId = string;

/** Why a dialled virtual number did not answer. */
export type DialFailure = 'busy' | 'no-answer' | 'failed';

/** Events the engine emits; `type` discriminates. */
export type MediaEvent =
  /** ICE and DTLS completed; audio can flow. */
  | { type: 'leg.connected'; participantId: ParticipantId; roomId: RoomId }
  /** ICE or DTLS failed or the leg closed unexpectedly; the participant has left the room. */
  | { type: 'leg.failed'; participantId: ParticipantId; roomId: RoomId; reason: string }
  /** A dialled virtual number is ringing. */
  | { type: 'party.ringing'; participantId: ParticipantId; roomId: RoomId }
  /** A dialled virtual number answered; its audio is in the room. */
  | { type: 'party.answered'; participantId: ParticipantId; roomId: RoomId }
  /** A dialled virtual number did not answer; the participant has left the room. */
  | { type: 'party.unanswered'; participantId: ParticipantId; roomId: RoomId; reason: DialFailure }
  /** A virtual party hung up on its own (not by `remove`). */
  | { type: 'party.hangup'; participantId: ParticipantId; roomId: RoomId }
  /**
   * What a virtual party heard while in the room, written when it left: 8 kHz mono 16-bit WAV
   * at `path` (`<sandboxDir>/<participantId>.wav`, characters of the id other than letters,
   * digits, `-` and `_` replaced by `_`). Only parties that answered record.
   */
  | {
      type: 'party.recorded';
      participantId: ParticipantId;
      roomId: RoomId;
      path: string;
      seconds: number;
    }
  /** An RFC 4733 DTMF event received from a leg (one per key press, on its end). */
  | { type: 'dtmf'; participantId: ParticipantId; roomId: RoomId; digit: string };

/** Options of the engine. */
export interface MediaEngineOptions {
  /** Addresses announced in ICE candidates (`VOICE_ICE_ADDRESSES`), e.g. `['127.0.0.1']`. */
  iceAddresses: string[];
  /** Directory for what virtual parties heard (created if missing). */
  sandboxDir: string;
  /** Entry module of the media worker; defaults to the one next to this package's sources/bundle. */
  workerUrl?: URL;
  /** Delay before a sandbox number answers; default about 1000 ms (tests may shorten it). */
  answerDelayMs?: number;
  /**
   * Where the engine reports problems that no caller awaits: warnings that end no call (a failed
   * RTP send, a recording that could not be written) and errors (the media worker crashed).
   * Default: `console`.
   */
  logger?: MediaEngineLogger;
}

/** The logging the engine needs (pino's and `console`'s methods fit). */
export interface MediaEngineLogger {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Commands to the engine. Every method is safe to call for an id that has already gone (it does
 * nothing). Promise-returning methods reject with a `MediaError` (`name` and numeric `code`):
 * `EngineNotRunning` before `start` or after `close` or a worker crash, `WorkerCrashed` if the
 * worker dies meanwhile, `ParticipantExists` for an id in use, and the negotiation errors below.
 */
export interface MediaEngine {
  /** Starts the worker; resolves when it is ready for commands. */
  start(): Promise<void>;
  /** Closes every room and stops the worker. */
  close(): Promise<void>;
  /**
   * Creates a WebRTC leg that makes the offer (the gateway's `invite` to a client) and joins it
   * to `roomId` (created on first use). Resolves with the complete offer SDP, ICE candidates
   * included (no trickle). Rejects with `LegClosed` if the leg is removed meanwhile.
   */
  createOfferLeg(roomId: RoomId, participantId: ParticipantId): Promise<string>;
  /**
   * Applies the client's answer to a leg made by `createOfferLeg`. Rejects with
   * `IllegalTransition` if the leg is not waiting for an answer (the leg stays), or with
   * `NoCommonCodec`/`NegotiationFailed` for an unusable answer (the leg has then left its room,
   * without a `leg.failed` event).
   */
  acceptAnswer(participantId: ParticipantId, answerSdp: string): Promise<void>;
  /**
   * Creates a WebRTC leg answering a client's offer (the client's `invite`) and joins it to
   * `roomId`. Resolves with the complete answer SDP. An offer without PCMU/8000 rejects with
   * `NoCommonCodec`, an unusable one with `NegotiationFailed`; the leg has then left its room.
   */
  createAnswerLeg(roomId: RoomId, participantId: ParticipantId, offerSdp: string): Promise<string>;
  /**
   * Dials a virtual phone number (E.164) into `roomId`; progress arrives as `party.*` events
   * (`party.unanswered` with `'failed'` at once for a number the phone network does not know).
   */
  dial(roomId: RoomId, participantId: ParticipantId, number: string): void;
  /** Hangs up one participant (a virtual party then writes what it heard). */
  remove(participantId: ParticipantId): void;
  /** Removes every participant of the room and forgets it. */
  closeRoom(roomId: RoomId): void;
  /** A muted participant is heard by no one. */
  setMuted(participantId: ParticipantId, muted: boolean): void;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: MediaEvent) => void): () => void;
}
