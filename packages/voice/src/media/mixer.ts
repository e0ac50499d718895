import { PCM16_MAX, PCM16_MIN, SAMPLES_PER_FRAME } from '../constants';
import type { ParticipantId, ParticipantRole } from './media-engine';

/**
 * Who a mix input is: a participant's role, or one of the room's own sources and listeners
 * (`music`: the hold music; `recorder`: the call's recording, which listens but never speaks).
 */
export type MixRole = ParticipantRole | 'music' | 'recorder';

/** One participant's contribution to a frame of the mix. */
export interface MixInput {
  /** The participant. */
  id: ParticipantId;
  /** What it says in this frame, or `undefined` for nothing. */
  frame: Int16Array | undefined;
  /** Muted participants are heard by no one. */
  muted: boolean;
  /** How it takes part; the plain conference rule ignores it. Default `agent`. */
  role?: MixRole;
}

/** Decides whether `listener` hears `speaker` (the room's mixing rule). */
export type HearingRule = (listener: MixInput, speaker: MixInput) => boolean;

/** The plain conference rule: everyone hears every other unmuted participant, never themselves. */
export const conferenceHearing: HearingRule = (listener, speaker) =>
  listener.id !== speaker.id && !speaker.muted;

/**
 * The call's mixing rule by role, for a room on hold (`held`) or not.
 *
 * | speaker      | heard by                                                     |
 * |--------------|--------------------------------------------------------------|
 * | agent, lead, conference, barge | everyone else (and the recording)          |
 * | listen       | no one (its microphone is never mixed, even unmuted)         |
 * | whisper      | the `agent`s it coaches only: never the lead or the recording |
 * | muted (any)  | no one                                                       |
 * | music        | the lead, while the room is on hold                          |
 *
 * On hold, the lead hears the music and nobody else, and nobody (not even a listening
 * supervisor or the recording) hears the lead; the others go on hearing each other.
 */
export function roleHearing(held: boolean): HearingRule {
  return (listener, speaker) => {
    if (listener.id === speaker.id || speaker.muted || listener.role === 'music') return false;
    const speakerRole = speaker.role ?? 'agent';
    const listenerRole = listener.role ?? 'agent';
    if (speakerRole === 'recorder') return false;
    if (speakerRole === 'music') return held && listenerRole === 'lead';
    if (held && (listenerRole === 'lead' || speakerRole === 'lead')) return false;
    switch (speakerRole) {
      case 'listen':
        return false;
      case 'whisper':
        return listenerRole === 'agent';
      default:
        return true;
    }
  };
}

/**
 * Mixes one frame for every input: the sum of the frames of everyone it hears under `rule`,
 * saturated to 16 bits. Returns a fresh frame per input (silence when it hears nobody).
 */
export function mixFrames(
  inputs: readonly MixInput[],
  rule: HearingRule = conferenceHearing,
  frameSamples: number = SAMPLES_PER_FRAME,
): Map<ParticipantId, Int16Array> {
  const outputs = new Map<ParticipantId, Int16Array>();
  const sum = new Int32Array(frameSamples);
  for (const listener of inputs) {
    sum.fill(0);
    for (const speaker of inputs) {
      const frame = speaker.frame;
      if (frame === undefined || !rule(listener, speaker)) continue;
      const length = Math.min(frame.length, frameSamples);
      for (let i = 0; i < length; i++) sum[i] = (sum[i] ?? 0) + (frame[i] ?? 0);
    }
    const out = new Int16Array(frameSamples);
    for (let i = 0; i < frameSamples; i++) {
      const value = sum[i] ?? 0;
      out[i] = value > PCM16_MAX ? PCM16_MAX : value < PCM16_MIN ? PCM16_MIN : value;
    }
    outputs.set(listener.id, out);
  }
  return outputs;
}
