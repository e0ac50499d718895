/**
 * Call quality feedback (`call.postFeedback`, spec sections 5 and 9): a score of 1 to 5 and an
 * optional issue of the official SDK's list; anything else is an `InvalidArgumentError`.
 */
import { InvalidArgumentError } from '../errors/errors';

/** Feedback scores. */
export const FeedbackScore = { One: 1, Two: 2, Three: 3, Four: 4, Five: 5 } as const;
export type FeedbackScore = (typeof FeedbackScore)[keyof typeof FeedbackScore];

/** Feedback issues. */
export const FeedbackIssue = {
  AudioLatency: 'audio-latency',
  ChoppyAudio: 'choppy-audio',
  DroppedCall: 'dropped-call',
  Echo: 'echo',
  NoisyCall: 'noisy-call',
  OneWayAudio: 'one-way-audio',
} as const;
export type FeedbackIssue = (typeof FeedbackIssue)[keyof typeof FeedbackIssue];

/** What `postFeedback` publishes (no score: the user declined to give feedback). */
export interface CallFeedback {
  score: FeedbackScore | null;
  issue: FeedbackIssue | null;
}

/** Checks feedback; throws `InvalidArgumentError` with the accepted values. */
export function checkFeedback(score: unknown, issue: unknown): CallFeedback {
  if (score === undefined || score === null) return { score: null, issue: null };
  const scores: unknown[] = Object.values(FeedbackScore);
  const issues: unknown[] = Object.values(FeedbackIssue);
  if (!scores.includes(score)) {
    throw new InvalidArgumentError(`Feedback score must be one of: ${scores.join(', ')}`);
  }
  if (issue !== undefined && issue !== null && !issues.includes(issue)) {
    throw new InvalidArgumentError(`Feedback issue must be one of: ${issues.join(', ')}`);
  }
  return { score: score as FeedbackScore, issue: (issue ?? null) as FeedbackIssue | null };
}
