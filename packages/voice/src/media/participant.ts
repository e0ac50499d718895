import type { ParticipantId, ParticipantRole, RoomId } from './media-engine';

/** Why a participant leaves its room. */
export type LeaveReason = 'removed' | 'room-closed' | 'hung-up' | 'failed' | 'engine-closed';

/**
 * A member of a room as the mixer sees it (worker side): a WebRTC leg or a virtual phone party.
 * Each 20 ms the room asks every participant for what it says and gives it what it hears.
 */
export interface Participant {
  /** Caller-chosen id, unique for the engine's lifetime. */
  readonly id: ParticipantId;
  /** The room it belongs to. */
  readonly roomId: RoomId;
  /** A muted participant is heard by no one (it still hears the others). */
  muted: boolean;
  /** How it takes part (who hears it, whom it hears). */
  role: ParticipantRole;
  /** Whether it takes part in the mix now (a ringing party does not yet). */
  readonly inMix: boolean;
  /** What it says during the next frame (`SAMPLES_PER_FRAME` samples), or `undefined` for nothing. */
  speak(): Int16Array | undefined;
  /** What it hears during this frame (`SAMPLES_PER_FRAME` samples; the array is its own). */
  hear(frame: Int16Array): void;
  /**
   * `frames` frames of media time passed unmixed (the engine fell behind and skipped them):
   * clocks move past them and what it records keeps wall-clock time (silence for the gap).
   */
  skipFrames(frames: number): void;
  /**
   * Leaves the room for `reason`: stops media, cancels timers and finishes asynchronous work
   * (closing the peer connection, writing the recording). Resolves when that work is done.
   */
  leave(reason: LeaveReason): Promise<void>;
}
