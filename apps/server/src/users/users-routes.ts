/**
 * The agent lists (transfer and conference panels), teams and caller numbers; the agent's own
 * status (Available / Away) and the end of their wrap-up (Done).
 */
import type { FastifyInstance } from 'fastify';
import {
  TimeQuery,
  UsersPaginatedQuery,
  UserStatusBody,
  type UserStatusResponse,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { CallFlows } from '../calls/call-flows';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { listTeams, pageAgents } from './agents-repo';
import { listCallerNumbers } from './caller-numbers-repo';
import type { Presence } from './users-repo';

const statusAnswer = (presence: Presence | null): UserStatusResponse => {
  if (!presence) throw new AppError('NOT_FOUND', 'User not found.');
  return {
    success: true,
    status: presence.status,
    is_available: presence.isAvailable,
    wrap_up_until: presence.wrapUpUntil?.toISOString() ?? null,
  };
};

/** Routes of users and teams. */
export function usersRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.put('/api/v1/user/status', async (request) => {
      const { user } = sessionOf(request);
      const body = parseWith(UserStatusBody, request.body);
      return statusAnswer(
        await deps.flows.presence.setAvailable(user.id, body.status === 'available'),
      );
    });

    app.post('/api/v1/user/wrap-up/done', async (request) => {
      const { user } = sessionOf(request);
      return statusAnswer(await deps.flows.presence.endWrapUp(user.id));
    });

    app.get('/api/v1/users/paginated', async (request) => {
      const { user } = sessionOf(request);
      const query = parseWith(UsersPaginatedQuery, request.query, 'query');
      return pageAgents(deps.db, {
        accountId: user.accountId,
        excludeUserId: user.id,
        status: query.status,
        search: query.search || undefined,
        teamId: query.team_id === '' ? undefined : query.team_id,
        page: query.page,
        now: deps.flows.now(),
      });
    });

    app.get('/api/v1/teams', async (request) => {
      const { user } = sessionOf(request);
      parseWith(TimeQuery, request.query, 'query');
      return { data: await listTeams(deps.db, user.accountId, deps.flows.now()) };
    });

    app.get('/api/v1/callerids', async (request) => {
      const { user } = sessionOf(request);
      parseWith(TimeQuery, request.query, 'query');
      return { data: await listCallerNumbers(deps.db, user.accountId) };
    });
  };
}
