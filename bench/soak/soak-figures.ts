/** Arithmetic of the soak's report: trends over samples, and the lost-call check. */
import type { AgentCallReport } from './soak-agents';
import type { StoredCall } from './soak-host';

/**
 * The least-squares slope of `y` over `x` (units of y per unit of x); NaN with fewer than two
 * distinct x.
 */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  return variance === 0 ? Number.NaN : covariance / variance;
}

/** One lead the runner posted and what its POST answered. */
export interface PostedLead {
  phone: string;
  /** When the POST was sent (epoch ms, `performance.timeOrigin + performance.now()`). */
  sentAt: number;
  /** The HTTP status, and for a 201 the call's id and status (`ringing`, `queued`, …). */
  httpStatus: number;
  callId?: number;
  callStatus?: string;
}

/**
 * Why a posted lead counts as lost, or undefined when it ended properly: answered by an agent,
 * ended (`completed`), with a disposition and a note stored and the agent's wrap-up done.
 */
export function lostBecause(
  lead: PostedLead,
  stored: StoredCall | undefined,
  taken: AgentCallReport | undefined,
): string | undefined {
  if (lead.httpStatus !== 201 || lead.callId === undefined) return `POST ${lead.httpStatus}`;
  if (!stored) return 'no call row';
  if (!taken) return `never taken (call ${stored.status})`;
  if (taken.error) return `agent: ${taken.error}`;
  if (!stored.answered || stored.accepted === 0) return `not answered (${stored.status})`;
  if (stored.status !== 'completed' || !stored.ended) return `not ended (${stored.status})`;
  if (stored.disposition === null) return 'no disposition';
  if (stored.notes === 0) return 'no note';
  if (taken.writes.done === undefined) return 'wrap-up not done';
  return undefined;
}
