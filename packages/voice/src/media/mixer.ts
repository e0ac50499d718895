import { PCM16_MAX, PCM16_MIN, SAMPLES_PER_FRAME } from '../constants';
import type { ParticipantId } from './media-engine';

/** One participant's contribution to a frame of the mix. */
export interface MixInput {
  /** The participant. */
  id: ParticipantId;
  /** What it says in this frame, or `undefined` for nothing. */
  frame: Int16Array | undefined;
  /** Muted participants are heard by no one. */
  muted: boolean;
}

/**
 * Decides whether `listener` hears `speaker`. The room's rule; later roles (listen, whisper,
 * barge, hold) are rules over richer participant descriptions.
 */
export type HearingRule = (listener: MixInput, speaker: MixInput) => boolean;

/** The plain conference rule: everyone hears every other unmuted participant, never themselves. */
export const conferenceHearing: HearingRule = (listener, speaker) =>
  listener.id !== speaker.id && !speaker.muted;

/**
 * Mixes one frame for every participant: the sum of the frames of everyone it hears under `rule`,
 * saturated to 16 bits. Returns a fresh frame per participant (silence when it hears nobody).
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
