import { SANDBOX_TONE_DBFS, SANDBOX_TONE_HZ } from '../constants';
import type { DialFailure } from '../media/media-engine';

/** What an answered virtual party plays into the room. */
export type PartyAudio = { kind: 'tone'; frequencyHz: number; dbfs: number };

/**
 * How a dialled virtual number behaves. Delays left out use the engine's defaults
 * (`answerDelayMs` for ringing before an answer).
 */
export type PartyBehaviour =
  /** Rings for `ringMs`, answers, plays `audio`; hangs up by itself after `hangUpAfterMs` if set. */
  | { kind: 'answer'; ringMs?: number; audio: PartyAudio; hangUpAfterMs?: number }
  /** Does not answer: at once, or after ringing for `ringMs` when set. */
  | { kind: 'unanswered'; reason: DialFailure; ringMs?: number };

/** One row of the number plan: the numbers it matches and how they behave. */
export interface NumberPlanRow {
  /** What the row is for (shown in docs and test names). */
  description: string;
  /** Matches the E.164 numbers of the row. */
  pattern: RegExp;
  /** How those numbers behave. */
  behaviour: PartyBehaviour;
}

/** A number plan: rows tried in order, then the fallback for every other number. */
export interface NumberPlan {
  rows: readonly NumberPlanRow[];
  fallback: PartyBehaviour;
}

/**
 * The sandbox phone network. Later behaviours (busy, no answer, voicemail, hanging up after 3 s,
 * invalid numbers) are further rows.
 */
export const SANDBOX_NUMBER_PLAN: NumberPlan = {
  rows: [
    {
      description: '+1 555 010 XXXX rings, answers and plays a steady 440 Hz tone',
      pattern: /^\+1555010\d{4}$/,
      behaviour: {
        kind: 'answer',
        audio: { kind: 'tone', frequencyHz: SANDBOX_TONE_HZ, dbfs: SANDBOX_TONE_DBFS },
      },
    },
  ],
  fallback: { kind: 'unanswered', reason: 'failed' },
};

/** How `number` behaves under `plan`: the first matching row, else the fallback. */
export function resolveNumber(plan: NumberPlan, number: string): PartyBehaviour {
  return plan.rows.find((row) => row.pattern.test(number))?.behaviour ?? plan.fallback;
}
