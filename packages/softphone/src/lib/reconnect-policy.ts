/**
 * How long to wait before the next attempt to restore a lost connection, or whether to stop:
 * an injected policy object, after livekit's `ReconnectPolicy`
 * (`src/room/ReconnectPolicy.ts` in livekit/client-sdk-js).
 */
import { backoffDelayMs, type BackoffOptions } from './backoff';

/** What a policy is told before each retry. */
export interface ReconnectContext {
  /** Retries scheduled so far in this outage (0 before the first). */
  readonly retryCount: number;
  /** How long ago the connection was lost (ms). */
  readonly elapsedMs: number;
}

/** Decides the delay before each retry. */
export interface ReconnectPolicy {
  /** The delay before the next retry (ms), or null to stop retrying (the outage is given up). */
  nextRetryDelayInMs(context: ReconnectContext): number | null;
}

/**
 * A policy that waits by an exponential back-off (`backoffDelayMs`, one draw of `random` per
 * retry) and never stops on its own: whoever uses it keeps its own deadline.
 */
export class BackoffReconnectPolicy implements ReconnectPolicy {
  constructor(
    private readonly options: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  nextRetryDelayInMs({ retryCount }: ReconnectContext): number {
    return backoffDelayMs(this.options, retryCount, this.random);
  }
}
