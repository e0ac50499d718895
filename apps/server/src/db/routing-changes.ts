/**
 * A count of the writes that can change whom routing may offer a call to: an agent's presence,
 * availability, wrap-up or idle time; a ring; a call starting or ending. The router's memory of
 * eligible agents (`calls/candidate-cache.ts`) holds only while the count stays the same. One
 * count for the process (a write to any database counts, which costs a re-read at most).
 *
 * Every such write of the product goes through `users-repo` or `calls-repo`, which count it;
 * code that writes those columns any other way (tests setting a state directly) calls
 * `routingChanged()` after it.
 */
let changes = 0;

/** Counts a write that may change whom routing can offer a call to. */
export function routingChanged(): void {
  changes++;
}

/** How many such writes there were so far. */
export function routingChanges(): number {
  return changes;
}
