import {
  ECHO_DELAY_MS,
  HANG_UP_AFTER_MS,
  NO_ANSWER_RING_MS,
  SANDBOX_NUMBERS,
  SANDBOX_TONE_DBFS,
  SANDBOX_TONE_HZ,
  VOICEMAIL_BEEP,
} from '../constants';
import type { DialFailure } from '../media/media-engine';
import type { ClipName } from './clips';

/** What an answered virtual party plays into the room. */
export type PartyAudio =
  /** A steady tone. */
  | { kind: 'tone'; frequencyHz: number; dbfs: number }
  /** A recorded clip (the sandbox voice), looped. */
  | { kind: 'clip'; clip: ClipName }
  /** What it hears, played back `delayMs` later (an echo test). */
  | { kind: 'echo'; delayMs: number }
  /**
   * A voicemail: the greeting clip once, then a beep, then silence; the party records only
   * from the end of the beep (the message).
   */
  | {
      kind: 'voicemail';
      greeting: ClipName;
      beep: { frequencyHz: number; durationMs: number; dbfs: number };
    };

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

const TEST_LEAD_TONE: PartyAudio = {
  kind: 'tone',
  frequencyHz: SANDBOX_TONE_HZ,
  dbfs: SANDBOX_TONE_DBFS,
};

const exactly = (number: string): RegExp => new RegExp(`^\\${number}$`);

/**
 * The sandbox phone network, as docs/sandbox-numbers.md lists it. Every number is E.164; any
 * number no row matches fails as an invalid number.
 */
export const SANDBOX_NUMBER_PLAN: NumberPlan = {
  rows: [
    {
      description: 'is busy',
      pattern: exactly(SANDBOX_NUMBERS.busy),
      behaviour: { kind: 'unanswered', reason: 'busy' },
    },
    {
      description: 'rings 30 s and is not answered',
      pattern: exactly(SANDBOX_NUMBERS.noAnswer),
      behaviour: { kind: 'unanswered', reason: 'no-answer', ringMs: NO_ANSWER_RING_MS },
    },
    {
      description: 'goes to voicemail: greeting, beep, then records',
      pattern: exactly(SANDBOX_NUMBERS.voicemail),
      behaviour: {
        kind: 'answer',
        audio: { kind: 'voicemail', greeting: 'voicemail-greeting', beep: VOICEMAIL_BEEP },
      },
    },
    {
      description: 'answers and hangs up after 3 s',
      pattern: exactly(SANDBOX_NUMBERS.hangsUp),
      behaviour: { kind: 'answer', audio: TEST_LEAD_TONE, hangUpAfterMs: HANG_UP_AFTER_MS },
    },
    {
      description: 'fails as an invalid number',
      pattern: exactly(SANDBOX_NUMBERS.invalid),
      behaviour: { kind: 'unanswered', reason: 'failed' },
    },
    {
      description: 'echo test: answers at once and plays back what it hears, 200 ms later',
      pattern: exactly(SANDBOX_NUMBERS.echo),
      behaviour: { kind: 'answer', ringMs: 0, audio: { kind: 'echo', delayMs: ECHO_DELAY_MS } },
    },
    {
      description: 'test lead: rings, answers and plays a steady 440 Hz tone',
      pattern: /^\+155501000(?:0[1-9]|[1-9]\d)$/,
      behaviour: { kind: 'answer', audio: TEST_LEAD_TONE },
    },
    {
      description: 'rings, answers and a lead talks (the sandbox voice clip, looped)',
      pattern: /^\+1555010\d{4}$/,
      behaviour: { kind: 'answer', audio: { kind: 'clip', clip: 'lead-voice' } },
    },
  ],
  fallback: { kind: 'unanswered', reason: 'failed' },
};

/** How `number` behaves under `plan`: the first matching row, else the fallback. */
export function resolveNumber(plan: NumberPlan, number: string): PartyBehaviour {
  return plan.rows.find((row) => row.pattern.test(number))?.behaviour ?? plan.fallback;
}
