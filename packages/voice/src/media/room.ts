import { HOLD_MUSIC, SAMPLES_PER_FRAME } from '../constants';
import { MelodySource, type AudioSource } from './audio-source';
import type { ParticipantId, RoomId } from './media-engine';
import { mixFrames, roleHearing, type HearingRule, type MixInput } from './mixer';
import type { Participant } from './participant';

/** Where a room's mixed recording goes: a file that takes frames (a `WavFileWriter`). */
export interface RoomRecorder {
  /** The file written. */
  readonly path: string;
  append(frame: Int16Array): void;
  /** Finishes the file; resolves with the seconds recorded. */
  close(): Promise<number>;
}

/** Options of a {@link Room}. */
export interface RoomOptions {
  /** Overrides the role rule (tests); by default `roleHearing(held)`. */
  rule?: HearingRule;
  /**
   * Made the first time two participants take part in the mix at once; from then on it gets
   * the call's mix every frame (what the lead hears, plus the lead) until the room closes.
   */
  startRecording?: () => RoomRecorder;
}

const HOLD_MUSIC_ID = '#hold-music';
const RECORDER_ID = '#recording';
/** The role rule, made once for each of the two hold states. */
const HEARING_NOT_HELD = roleHearing(false);
const HEARING_HELD = roleHearing(true);

/**
 * One call: its participants, whether it is on hold, and its recording. Each frame it asks
 * every participant in the mix what it says and gives each what it hears under the role rule
 * (`roleHearing`); the hold music and the recording take part as inputs of their own.
 */
export class Room {
  private readonly members = new Map<ParticipantId, Participant>();
  private held = false;
  private holdMusic: AudioSource | undefined;
  private recorder: RoomRecorder | undefined;
  /** The hold music's frame, refilled every frame (the mix copies what it reads). */
  private readonly holdMusicFrame = new Int16Array(SAMPLES_PER_FRAME);

  /** Creates an empty room. */
  constructor(
    readonly id: RoomId,
    private readonly options: RoomOptions = {},
  ) {}

  /** The participants, in joining order. */
  get participants(): Participant[] {
    return [...this.members.values()];
  }

  /** The recording, once it started. */
  get recording(): RoomRecorder | undefined {
    return this.recorder;
  }

  /** Adds `participant`. */
  add(participant: Participant): void {
    this.members.set(participant.id, participant);
  }

  /** Removes the participant `id`; returns whether it was here. */
  delete(id: ParticipantId): boolean {
    return this.members.delete(id);
  }

  /** Puts the room on hold (its lead hears music and nobody else) or takes it off. */
  setHold(held: boolean): void {
    if (held === this.held) return;
    this.held = held;
    // The melody starts from its first note at every hold.
    this.holdMusic = held
      ? new MelodySource(HOLD_MUSIC.notesHz, HOLD_MUSIC.noteMs, HOLD_MUSIC.dbfs)
      : undefined;
  }

  /** `frames` frames passed unmixed: the recording holds silence for them. */
  skipFrames(frames: number): void {
    this.recorder?.append(new Int16Array(frames * SAMPLES_PER_FRAME));
  }

  /** Mixes one frame. */
  mixFrame(): void {
    const speakers: Participant[] = [];
    const inputs: MixInput[] = [];
    for (const participant of this.members.values()) {
      if (!participant.inMix) continue;
      speakers.push(participant);
      inputs.push({
        id: participant.id,
        frame: participant.speak(),
        muted: participant.muted,
        role: participant.role,
      });
    }
    if (inputs.length === 0) return;
    if (!this.recorder && speakers.length >= 2 && this.options.startRecording) {
      this.recorder = this.options.startRecording();
    }
    if (this.recorder)
      inputs.push({ id: RECORDER_ID, frame: undefined, muted: false, role: 'recorder' });
    if (this.holdMusic) {
      inputs.push({
        id: HOLD_MUSIC_ID,
        frame: this.holdMusic.fill(this.holdMusicFrame),
        muted: false,
        role: 'music',
      });
    }
    const outputs = mixFrames(
      inputs,
      this.options.rule ?? (this.held ? HEARING_HELD : HEARING_NOT_HELD),
    );
    for (const participant of speakers) {
      const heard = outputs.get(participant.id);
      if (heard) participant.hear(heard);
    }
    const recorded = outputs.get(RECORDER_ID);
    if (recorded) this.recorder?.append(recorded);
  }
}
