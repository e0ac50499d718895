/**
 * Where a relaying instance sends the call routes and the signalling: the media instance. A
 * static URL (`VOICE_MEDIA_URL`), or the current holder of the media lease as the
 * `media_leader` row names it (`cluster/leader-directory.ts`), which changes when a leader dies
 * and a follower takes over.
 */

/** The media instance a relay forwards to, as it knows it now. */
export interface MediaTarget {
  /**
   * True for a media instance that never moves (`VOICE_MEDIA_URL`): a refused request is
   * refused at once, there being no other instance to wait for.
   */
  readonly fixed?: boolean;
  /** The media instance's base URL; null while none is known (a failover under way). */
  current(): string | null;
  /** A request to `url` could not reach it: look again (the leader may have changed). */
  unreachable(url: string): void;
  /**
   * The epoch of the leader `current()` names (null: none known, or a media instance without a
   * lease); relayed requests are signed for it. Absent: null.
   */
  epoch?(): number | null;
  /** Reads who leads again now (the leader refused a request signed for another epoch). */
  refresh?(): Promise<void>;
  /**
   * Resolves with the media instance once one is known (at once if it is), null after
   * `timeoutMs`: a request that arrives during a failover waits for the new leader.
   */
  next(timeoutMs: number): Promise<string | null>;
}

/** A target that never moves (`VOICE_MEDIA_URL`). */
export function staticMediaTarget(url: string): MediaTarget {
  return { fixed: true, current: () => url, unreachable: () => undefined, next: async () => url };
}

/** `relayTo` as the app takes it: a URL or a target. */
export function mediaTargetOf(relayTo: string | MediaTarget): MediaTarget {
  return typeof relayTo === 'string' ? staticMediaTarget(relayTo) : relayTo;
}
