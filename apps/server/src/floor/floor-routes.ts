/**
 * The floor (issue 39): `GET /api/v1/floor`, what a supervisor watches all day. A session of a
 * supervisor or an admin (agents get 403), scoped to their account; read from the database, so
 * every instance serves it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorResponseSchema, FloorSchema } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { Db } from '../db/database';
import type { RouteDocs } from '../http/api-docs';
import { AppError } from '../http/errors';
import { readFloor } from './floor-repo';

/** The roles that see the floor and the reports. */
const FLOOR_ROLES: ReadonlySet<string> = new Set(['supervisor', 'admin']);

/** The account of a supervisor's or an admin's session; 401 without one, 403 for agents. */
export function requireSupervisor(request: FastifyRequest): { userId: number; accountId: number } {
  const { user } = sessionOf(request);
  if (!FLOOR_ROLES.has(user.role)) throw new AppError('SUPERVISORS_ONLY');
  return { userId: user.id, accountId: user.accountId };
}

/** Registers the floor's route. `now` is the clock (tests inject theirs). */
export function floorRoutes(deps: { db: Db; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return async (app: FastifyInstance): Promise<void> => {
    const floor = {
      summary: 'The floor: queue, agents and today’s figures',
      description:
        "What a supervisor watches: `queue` (each lead waiting, longest first, with its profile and team and since when it waits), `agents` (every active user of the account by name: `status` available, away, ringing, on_call, wrap_up or offline, `since` when, and the call being rung or taken), `kpis` (today in the account's time zone: offered, answered, missed, abandoned, answer rate, average speed of answer, average handle time (talk plus wrap-up) and service level: the share answered within `service_level_seconds`) and `intervals` (today by 15 minutes: offered, answered, missed, abandoned, service level). Supervisors and admins only: an agent gets 403.",
      tags: ['Floor'],
      response: { 200: FloorSchema, 403: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/floor', { schema: floor }, async (request) => {
      const { accountId } = requireSupervisor(request);
      const found = await readFloor(deps.db, accountId, now());
      if (!found) throw new AppError('NOT_FOUND', 'Account not found.');
      return found;
    });
  };
}
