import { SAMPLE_RATE_HZ, SAMPLES_PER_FRAME } from '../constants';
import { ToneGenerator } from '../dsp/tone';
import type { DialFailure, ParticipantId, RoomId } from '../media/media-engine';
import type { LeaveReason, Participant } from '../media/participant';
import { PcmRecorder } from '../media/pcm-recorder';
import type { CancelTimer, Scheduler } from '../media/platform';
import { MediaStateMachine } from '../media/state-machine';
import type { PartyAudio, PartyBehaviour } from './number-plan';
import { PARTY_TRANSITIONS, type PartyEvent, type PartyState } from './party-state';

/** Writes a recording as a WAV file (asynchronously). */
export type RecordingWriter = (
  path: string,
  samples: Int16Array,
  sampleRateHz: number,
) => Promise<void>;

/** What a virtual party reports to its owner. */
export interface PartyObserver {
  ringing(party: VirtualParty): void;
  answered(party: VirtualParty): void;
  /** It did not answer; the owner removes it from the room. */
  unanswered(party: VirtualParty, reason: DialFailure): void;
  /** It hung up by itself; the owner removes it from the room. */
  hungUp(party: VirtualParty): void;
  /** What it heard is in a WAV file at `path`. */
  recorded(party: VirtualParty, path: string, seconds: number): void;
  /** Writing the recording failed. */
  warn(message: string): void;
}

/** Options of a {@link VirtualParty}. */
export interface VirtualPartyOptions {
  id: ParticipantId;
  roomId: RoomId;
  /** How the dialled number behaves (from the number plan). */
  behaviour: PartyBehaviour;
  /** Ringing time of an answering number whose row sets none. */
  answerDelayMs: number;
  /** Where the WAV of what it heard goes. */
  recordingPath: string;
  writeRecording: RecordingWriter;
  scheduler: Scheduler;
  observer: PartyObserver;
}

/**
 * A number dialled on the virtual phone network. It rings, answers (or not) as its number-plan
 * row says, then plays its audio into the room and records what it hears. When it leaves after
 * answering, the recording is written as an 8 kHz mono WAV and reported.
 */
export class VirtualParty implements Participant {
  readonly id: ParticipantId;
  readonly roomId: RoomId;
  muted = false;
  private readonly options: VirtualPartyOptions;
  private readonly lifecycle: MediaStateMachine<PartyState, PartyEvent>;
  private readonly timers = new Set<CancelTimer>();
  private audio: ToneGenerator | undefined;
  private recorder: PcmRecorder | undefined;

  /** Creates the party; nothing happens until `dial`. */
  constructor(options: VirtualPartyOptions) {
    this.id = options.id;
    this.roomId = options.roomId;
    this.options = options;
    this.lifecycle = new MediaStateMachine(
      `virtual party ${options.id}`,
      PARTY_TRANSITIONS,
      'dialling',
    );
  }

  /** The party's lifecycle state. */
  get state(): PartyState {
    return this.lifecycle.state;
  }

  get inMix(): boolean {
    return this.lifecycle.state === 'answered';
  }

  /** Places the call: reports ringing, then an answer or a failure as the behaviour says. */
  dial(): void {
    const { behaviour, answerDelayMs } = this.options;
    if (behaviour.kind === 'unanswered') {
      if (behaviour.ringMs === undefined) {
        this.reject(behaviour.reason);
        return;
      }
      this.ring();
      this.later(behaviour.ringMs, () => this.reject(behaviour.reason));
      return;
    }
    this.ring();
    this.later(behaviour.ringMs ?? answerDelayMs, () =>
      this.answer(behaviour.audio, behaviour.hangUpAfterMs),
    );
  }

  speak(): Int16Array | undefined {
    return this.audio?.fill(new Int16Array(SAMPLES_PER_FRAME));
  }

  hear(frame: Int16Array): void {
    if (this.lifecycle.state === 'answered') this.recorder?.append(frame);
  }

  async leave(_reason: LeaveReason): Promise<void> {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    if (!this.lifecycle.trySend('leave')) return;
    this.audio = undefined;
    const recorder = this.recorder;
    if (!recorder) return;
    this.recorder = undefined;
    const { recordingPath, writeRecording, observer } = this.options;
    try {
      await writeRecording(recordingPath, recorder.toSamples(), SAMPLE_RATE_HZ);
      observer.recorded(this, recordingPath, recorder.sampleCount / SAMPLE_RATE_HZ);
    } catch (error) {
      observer.warn(`party ${this.id}: writing ${recordingPath} failed: ${String(error)}`);
    }
  }

  private ring(): void {
    this.lifecycle.send('ring');
    this.options.observer.ringing(this);
  }

  private answer(audio: PartyAudio, hangUpAfterMs: number | undefined): void {
    this.lifecycle.send('answer');
    this.audio = new ToneGenerator({
      frequencyHz: audio.frequencyHz,
      dbfs: audio.dbfs,
      sampleRateHz: SAMPLE_RATE_HZ,
    });
    this.recorder = new PcmRecorder();
    this.options.observer.answered(this);
    if (hangUpAfterMs !== undefined) this.later(hangUpAfterMs, () => this.hangUp());
  }

  private hangUp(): void {
    this.lifecycle.send('hang-up');
    this.options.observer.hungUp(this);
  }

  private reject(reason: DialFailure): void {
    this.lifecycle.send('reject');
    this.options.observer.unanswered(this, reason);
  }

  private later(delayMs: number, action: () => void): void {
    const cancel = this.options.scheduler.after(delayMs, () => {
      this.timers.delete(cancel);
      action();
    });
    this.timers.add(cancel);
  }
}
