/**
 * The router's memory of whom a new call can be offered to: per account and team, the eligible
 * agents longest idle first, and whether the team is staffed at all, read from the database in
 * one go and then used by one lead after another (each taking the first agent and removing
 * them) instead of asking the database per lead. It is read again as soon as anything that
 * could change the answer was written (`routingChanges`: presence, availability, wrap-up, a
 * ring, a call starting or ending), when a wrap-up it counted on runs out, and at the latest
 * after `maxAgeMs` (for writes no repository counted).
 *
 * Agents being rung for a new lead whose ring is not stored yet are passed as `pending`: they
 * are never handed out, and a list read meanwhile leaves them out for good (their ring is
 * about to be stored, which the list could not see).
 */
import type { Db } from '../db/database';
import { routingChanges } from '../db/routing-changes';
import { routingCandidates, type RoutableAgent } from './routing-repo';

/** Longest a remembered list is used, whatever was written. */
export const CANDIDATES_MAX_AGE_MS = 2_000;

interface Entry {
  /** `routingChanges()` when it was read. */
  changes: number;
  /** Read again from this time on (ms since the epoch). */
  validUntil: number;
  agents: RoutableAgent[];
  staffed: boolean;
}

/** What the memory answers for a new call. */
export interface Candidate {
  /** The longest idle eligible agent not pending, taken (no other call gets them); or null. */
  agent: RoutableAgent | null;
  /** Whether any agent of the team is online and available (busy or not). */
  staffed: boolean;
}

/** Eligible agents per account and team. */
export class CandidateCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = CANDIDATES_MAX_AGE_MS,
  ) {}

  /**
   * Takes the longest idle eligible agent of the team for a new call, leaving out `pending`.
   * Callers run it under the account's routing lock.
   */
  async take(
    accountId: number,
    teamId: number | null,
    now: Date,
    pending: ReadonlySet<number>,
  ): Promise<Candidate> {
    const key = `${accountId}:${teamId ?? ''}`;
    let entry = this.#entries.get(key);
    if (!entry || entry.changes !== routingChanges() || now.getTime() >= entry.validUntil) {
      // Counted before reading: a write during the read leaves the entry already stale.
      const changes = routingChanges();
      const read = await routingCandidates(this.db, accountId, teamId, now);
      const expires = now.getTime() + this.maxAgeMs;
      entry = {
        changes,
        validUntil: Math.min(expires, read.nextWrapUpEnd?.getTime() ?? expires),
        agents: read.agents.filter((agent) => !pending.has(agent.id)),
        staffed: read.staffed,
      };
      this.#entries.set(key, entry);
    }
    const index = entry.agents.findIndex((agent) => !pending.has(agent.id));
    if (index < 0) return { agent: null, staffed: entry.staffed };
    const agent = entry.agents[index]!;
    // Taken for every team of the account: the same agent may be in several lists.
    for (const [other, remembered] of this.#entries) {
      if (other.startsWith(`${accountId}:`)) {
        remembered.agents = remembered.agents.filter((candidate) => candidate.id !== agent.id);
      }
    }
    return { agent, staffed: entry.staffed };
  }

  /** Forgets everything (read again at the next call). */
  clear(): void {
    this.#entries.clear();
  }
}
