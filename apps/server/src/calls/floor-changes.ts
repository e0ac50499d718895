/**
 * Floor changes (issue 39): the flows say when a call moves on the account's floor, so that the
 * supervisors' consoles read `GET /api/v1/floor` again at once rather than at their next poll.
 * A call is queued (or put back), a user is rung for it (it leaves the queue), a ring ends
 * unanswered, a user takes it, it ends (`FloorChangeReason`). Agents' own status changes are
 * `agent.status` events already (`users/agent-presence.ts`).
 *
 * Each change is announced where the flows make it, once its write is stored (after the
 * transaction committed: a console that reads the floor on the event sees it), by the instance
 * whose flows made it; the state is in the database, so it does not matter which instance that
 * is. It is a hint, not the state: a missed one costs a console no more than its next read.
 */
import type { FloorChangeReason } from '@leadline/contracts';
import type { EventBus } from '../events/event-bus';
import type { CallRow } from './calls-repo';

/** Announces that `call` moved on its account's floor (call it after the write committed). */
export type FloorChanged = (
  call: Pick<CallRow, 'id' | 'accountId'>,
  reason: FloorChangeReason,
) => void;

/** Announces floor changes as `floor.changed` domain events on `events`, stamped by `clock`. */
export function floorChangesOn(events: EventBus, clock: { now(): Date }): FloorChanged {
  return (call, reason) =>
    events.publish({
      type: 'floor.changed',
      accountId: call.accountId,
      callId: call.id,
      reason,
      at: clock.now().toISOString(),
    });
}
