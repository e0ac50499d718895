import { rename, writeFile } from 'node:fs/promises';
import { SAMPLE_RATE_HZ, SAMPLES_PER_FRAME } from '../constants';
import { WavFileWriter } from '../dsp/wav-writer';
import type { DialFailure, ParticipantId, ParticipantRole, RoomId } from '../media/media-engine';
import type { LeaveReason, Participant } from '../media/participant';
import type { CancelTimer, Scheduler } from '../media/platform';
import { MediaStateMachine } from '../media/state-machine';
import {
  BeepSource,
  ClipSource,
  EchoSource,
  SequenceSource,
  ToneSource,
  type AudioSource,
} from '../media/audio-source';
import type { ClipLibrary } from './clips';
import type { PartyAudio, PartyBehaviour } from './number-plan';
import { PARTY_TRANSITIONS, type PartyEvent, type PartyState } from './party-state';

/** What a virtual party reports to its owner. */
export interface PartyObserver {
  ringing(party: VirtualParty): void;
  answered(party: VirtualParty): void;
  /** It did not answer; the owner removes it from the room. */
  unanswered(party: VirtualParty, reason: DialFailure): void;
  /** It hung up by itself; the owner removes it from the room. */
  hungUp(party: VirtualParty): void;
  /** It received digits (they are in its record's `digits`). */
  dtmf(party: VirtualParty, digits: string): void;
  /** What it heard is in a WAV file at `path`. */
  recorded(party: VirtualParty, path: string, seconds: number): void;
  /** Writing the recording or the record failed. */
  warn(message: string): void;
}

/**
 * Who the party is: a number the room dialled (from the caller ID `from`, or none), or a caller
 * that called in.
 */
export type PartyCall =
  | { direction: 'outbound'; number: string; from: string | null; behaviour: PartyBehaviour }
  | { direction: 'inbound'; from: string; to: string };

/** Options of a {@link VirtualParty}. */
export interface VirtualPartyOptions {
  id: ParticipantId;
  roomId: RoomId;
  call: PartyCall;
  /** Ringing time of an answering number whose row sets none. */
  answerDelayMs: number;
  /** Where the WAV of what it heard goes. */
  recordingPath: string;
  /** Where its sandbox record (JSON) goes when it leaves. */
  recordPath: string;
  /** The voice clips. */
  clips: ClipLibrary;
  scheduler: Scheduler;
  observer: PartyObserver;
}

/**
 * What a virtual party leaves behind in the sandbox directory (`<id>.json`), so tests and people
 * trying the demo can see what happened on the "phone" side.
 */
export interface PartyRecord {
  participantId: ParticipantId;
  roomId: RoomId;
  direction: 'outbound' | 'inbound';
  /** The dialled number (outbound) or the caller's number (inbound). */
  number: string;
  /** Inbound: the number it called. */
  to?: string;
  /**
   * The number the call came from: the caller ID it was dialled with (outbound; null when none
   * was given), or the caller's own number (inbound, the same as `number`).
   */
  from: string | null;
  /** Its last state before it left (`answered`, `hung-up`, `unanswered`…). */
  outcome: PartyState;
  /** Why it did not answer, if it did not. */
  failure?: DialFailure;
  /** DTMF digits it received, in order. */
  digits: string;
  /** WAV of what it heard (a voicemail: the message after the beep), or null. */
  recording: string | null;
  /** Seconds of audio in `recording`. */
  seconds: number;
}

/**
 * A party on the virtual phone network: a number dialled into a room, or a caller already on
 * the line. It rings, answers (or not) as its number-plan row says, then plays its audio into the
 * room and records what it hears (a voicemail only after its beep). It logs the DTMF digits it
 * receives. When it leaves, its recording is finished (8 kHz mono WAV) and its record written.
 */
export class VirtualParty implements Participant {
  readonly id: ParticipantId;
  readonly roomId: RoomId;
  muted = false;
  role: ParticipantRole = 'lead';
  private readonly options: VirtualPartyOptions;
  private readonly lifecycle: MediaStateMachine<PartyState, PartyEvent>;
  private readonly timers = new Set<CancelTimer>();
  private audio: AudioSource | undefined;
  /** Set once recording starts (answer; a voicemail's beep end). */
  private recorder: WavFileWriter | undefined;
  /** A voicemail records once its greeting and beep have played. */
  private recordWhenAudioEnds = false;
  private digits = '';
  private failure: DialFailure | undefined;
  private outcome: PartyState;

  /** Creates the party; nothing happens until `dial` or `join`. */
  constructor(options: VirtualPartyOptions) {
    this.id = options.id;
    this.roomId = options.roomId;
    this.options = options;
    this.lifecycle = new MediaStateMachine(
      `virtual party ${options.id}`,
      PARTY_TRANSITIONS,
      'dialling',
    );
    this.outcome = 'dialling';
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
    const { call, answerDelayMs } = this.options;
    if (call.direction !== 'outbound') throw new Error('only a dialled party dials');
    const { behaviour } = call;
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

  /** A caller already on the line: it is answered at once and speaks the voice clip. */
  join(): void {
    this.send('join');
    this.startAudio({ kind: 'clip', clip: 'lead-voice' });
    this.options.observer.answered(this);
  }

  /** Digits pressed by someone in its room; ignored unless it answered. */
  receiveDigits(digits: string): void {
    if (this.lifecycle.state !== 'answered' || digits === '') return;
    this.digits += digits;
    this.options.observer.dtmf(this, digits);
  }

  speak(): Int16Array | undefined {
    const audio = this.audio;
    if (!audio) return undefined;
    const frame = audio.fill(new Int16Array(SAMPLES_PER_FRAME));
    if (this.recordWhenAudioEnds && audio.ended) {
      this.recordWhenAudioEnds = false;
      this.startRecording();
    }
    return frame;
  }

  hear(frame: Int16Array): void {
    if (this.lifecycle.state !== 'answered') return;
    this.recorder?.append(frame);
    this.audio?.hear?.(frame);
  }

  skipFrames(frames: number): void {
    // What it heard keeps wall-clock time: the frames nobody mixed were silence to it.
    if (this.lifecycle.state === 'answered') {
      this.recorder?.append(new Int16Array(frames * SAMPLES_PER_FRAME));
    }
  }

  async leave(_reason: LeaveReason): Promise<void> {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    if (!this.lifecycle.trySend('leave')) return;
    this.audio = undefined;
    const recorder = this.recorder;
    this.recorder = undefined;
    const { observer } = this.options;
    let seconds = 0;
    if (recorder) {
      try {
        seconds = await recorder.close();
        observer.recorded(this, recorder.path, seconds);
      } catch (error) {
        observer.warn(`party ${this.id}: writing ${recorder.path} failed: ${String(error)}`);
      }
    }
    await this.writeRecord(recorder?.path ?? null, seconds);
  }

  private async writeRecord(recording: string | null, seconds: number): Promise<void> {
    const { call, recordPath, observer } = this.options;
    const record: PartyRecord = {
      participantId: this.id,
      roomId: this.roomId,
      direction: call.direction,
      number: call.direction === 'outbound' ? call.number : call.from,
      ...(call.direction === 'inbound' ? { to: call.to } : {}),
      from: call.from,
      outcome: this.outcome,
      ...(this.failure ? { failure: this.failure } : {}),
      digits: this.digits,
      recording,
      seconds,
    };
    try {
      // Written whole, then moved into place: a reader never sees half a record.
      const partial = `${recordPath}.partial`;
      await writeFile(partial, `${JSON.stringify(record, null, 2)}\n`);
      await rename(partial, recordPath);
    } catch (error) {
      observer.warn(`party ${this.id}: writing ${recordPath} failed: ${String(error)}`);
    }
  }

  private send(event: PartyEvent): void {
    this.outcome = this.lifecycle.send(event);
  }

  private ring(): void {
    this.send('ring');
    this.options.observer.ringing(this);
  }

  private answer(audio: PartyAudio, hangUpAfterMs: number | undefined): void {
    this.send('answer');
    this.startAudio(audio);
    this.options.observer.answered(this);
    if (hangUpAfterMs !== undefined) this.later(hangUpAfterMs, () => this.hangUp());
  }

  private startAudio(audio: PartyAudio): void {
    const { clips } = this.options;
    switch (audio.kind) {
      case 'tone':
        this.audio = new ToneSource(audio.frequencyHz, audio.dbfs);
        this.startRecording();
        return;
      case 'clip':
        this.audio = new ClipSource(clips[audio.clip], true);
        this.startRecording();
        return;
      case 'echo':
        this.audio = new EchoSource(audio.delayMs);
        this.startRecording();
        return;
      case 'voicemail':
        this.audio = new SequenceSource([
          new ClipSource(clips[audio.greeting], false),
          new BeepSource(audio.beep.frequencyHz, audio.beep.dbfs, audio.beep.durationMs),
        ]);
        this.recordWhenAudioEnds = true;
        return;
    }
  }

  private startRecording(): void {
    this.recorder = new WavFileWriter(this.options.recordingPath, SAMPLE_RATE_HZ);
  }

  /** The person on this phone hangs up now (sandbox); only a party that is talking can. */
  hangUpNow(): void {
    if (this.lifecycle.state === 'answered') this.hangUp();
  }

  private hangUp(): void {
    this.send('hang-up');
    this.options.observer.hungUp(this);
  }

  private reject(reason: DialFailure): void {
    this.send('reject');
    this.failure = reason;
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
