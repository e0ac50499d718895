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
import type {
  DialFailure,
  DtmfTone,
  ParticipantId,
  ParticipantRole,
} from '@leadline/contracts/telephony';

// The telephony port's vocabulary (`@leadline/contracts/telephony`), which the engine's events
// and commands speak too.
export type { DialFailure, DtmfTone, ParticipantId, ParticipantRole };

/** Identifies one room (one call). */
export type RoomId = string;

/** Options of a new WebRTC leg. */
export interface LegOptions {
  /** How it takes part in the room; default `agent`. */
  role?: ParticipantRole;
}

/** Options of a dialled call (`MediaEngine.dial`). */
export interface DialOptions {
  /**
   * The caller ID: the number (E.164) the call comes from, as the called party sees it. The
   * virtual party keeps it and writes it in its sandbox record (`PartyRecord.from`); left out,
   * the call has no caller ID (`from: null`).
   */
  from?: string;
}

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
  | { type: 'dtmf'; participantId: ParticipantId; roomId: RoomId; digit: string; tone: DtmfTone }
  /**
   * Digits a virtual party received (RFC 4733 from a leg of its room, or `sendDigits`); it also
   * logs them in its sandbox record (`<sandboxDir>/<file name>.json`, field `digits`).
   */
  | { type: 'party.dtmf'; participantId: ParticipantId; roomId: RoomId; digits: string }
  /**
   * The room's recording is complete: what the call sounded like (every participant heard by
   * the lead, and the lead; never listeners or whisperers), 8 kHz mono 16-bit WAV at `path`
   * (`<recordingsDir>/<room file name>.wav`), written when the room closed. Rooms where fewer
   * than two participants ever took part in the mix at once record nothing.
   */
  | { type: 'recording.ready'; roomId: RoomId; path: string; seconds: number };

/** Options of the engine. */
export interface MediaEngineOptions {
  /** Addresses announced in ICE candidates (`VOICE_ICE_ADDRESSES`), e.g. `['127.0.0.1']`. */
  iceAddresses: string[];
  /** Directory for what virtual parties heard and their records (created if missing). */
  sandboxDir: string;
  /**
   * Directory of the rooms' recordings (created if missing); default `recordings` beside
   * `sandboxDir` (so `DATA_DIR/recordings` when `sandboxDir` is `DATA_DIR/sandbox`).
   */
  recordingsDir?: string;
  /**
   * Directory of the engine's audio assets (the sandbox voice clips); default the package's
   * `assets/` from sources, or `assets/` beside the bundle (the server's build copies it there).
   */
  assetsDir?: string;
  /**
   * Media worker threads; rooms are spread over them (the one with fewest rooms takes the next
   * room), so one busy room or a leg's DTLS handshake never delays the frames of the others
   * by more than a thread's time slice. Default {@link defaultMediaWorkers} of the cores the
   * process may run on.
   */
  workers?: number;
  /**
   * Nice value the media worker threads give themselves (Linux; lower runs first), or `null` to
   * leave them at the process's. Default `MEDIA_THREAD_NICE` (-10): the mixer runs ahead of the
   * main thread's HTTP and database work on a shared core. Setting a negative value needs
   * `CAP_SYS_NICE`; without it each worker logs a warning and keeps its priority.
   */
  threadNice?: number | null;
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

/** The most media worker threads the engine starts unless told (`MediaEngineOptions.workers`). */
export const DEFAULT_MEDIA_WORKERS = 2;

/**
 * Media worker threads when `MediaEngineOptions.workers` is not set: one per core the process
 * may run on (`cores`, e.g. `os.availableParallelism()`, which follows the CPU affinity), at
 * most {@link DEFAULT_MEDIA_WORKERS}. A second worker on a single core keeps a DTLS handshake
 * on one from holding up the other's frames, but every packet and tick then costs a switch
 * between threads: at 10 legs on one core, two workers used about half as much CPU again as
 * one (bench/capacity, docs/benchmarks.md).
 */
export function defaultMediaWorkers(cores: number): number {
  return Math.max(1, Math.min(DEFAULT_MEDIA_WORKERS, Math.floor(cores)));
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
  createOfferLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    options?: LegOptions,
  ): Promise<string>;
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
  createAnswerLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    offerSdp: string,
    options?: LegOptions,
  ): Promise<string>;
  /**
   * Applies a new offer of the client on a live leg (an ICE restart: PStream `reinvite`, or a
   * signalling reconnect's `invite`) and resolves with the engine's answer. An SDP carrying the
   * ICE credentials the leg already uses changes nothing (a reconnect whose media never broke)
   * and resolves with the engine's current local description. Rejects with
   * `IllegalTransition` for a leg that is not negotiated yet, `NegotiationFailed` for an
   * unusable offer (the leg then fails), and resolves with `''` for a participant that has gone.
   */
  renegotiate(participantId: ParticipantId, offerSdp: string): Promise<string>;
  /**
   * Dials a virtual phone number (E.164) into `roomId`, from the caller ID `options.from` if
   * given; progress arrives as `party.*` events (`party.unanswered` with `'failed'` at once for a
   * number the phone network does not know).
   */
  dial(roomId: RoomId, participantId: ParticipantId, number: string, options?: DialOptions): void;
  /**
   * A virtual caller already on the line joins `roomId` as its `lead` (a sandbox inbound call
   * from `from` to `to`): it speaks the sandbox voice clip and records what it hears; it reports
   * `party.answered` at once.
   */
  addCaller(roomId: RoomId, participantId: ParticipantId, from: string, to: string): void;
  /** Changes how a participant takes part (e.g. whisper → barge); effective from the next frame. */
  setRole(participantId: ParticipantId, role: ParticipantRole): void;
  /**
   * Puts the room on hold (or takes it off): its `lead` hears hold music and nobody else, and
   * nobody hears the lead. Does nothing for a room that does not exist.
   */
  setHold(roomId: RoomId, held: boolean): void;
  /** Delivers digits (from the signalling channel) to the room's virtual parties. */
  sendDigits(roomId: RoomId, digits: string): void;
  /**
   * Test hook: the leg neither sends nor receives anything on its UDP sockets (RTP, RTCP, STUN
   * consent, DTLS) for `durationMs`, as if the network dropped it; the client sees its ICE
   * connection go `disconnected`, and after that an ICE restart can bring it back.
   */
  interruptMedia(participantId: ParticipantId, durationMs: number): void;
  /** Hangs up one participant (a virtual party then writes what it heard). */
  remove(participantId: ParticipantId): void;
  /**
   * Sandbox: the person on a virtual phone hangs up, as `+15550199004` does by itself: the party
   * leaves and reports `party.hangup`. Does nothing unless it is talking (answered).
   */
  partyHangsUp(participantId: ParticipantId): void;
  /** Removes every participant of the room and forgets it. */
  closeRoom(roomId: RoomId): void;
  /** A muted participant is heard by no one. */
  setMuted(participantId: ParticipantId, muted: boolean): void;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: MediaEvent) => void): () => void;
}
