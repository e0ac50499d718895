/** The agent lists (transfer and conference panels), teams and caller numbers. */
import type { FastifyInstance } from 'fastify';
import { TimeQuery, UsersPaginatedQuery } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { Db } from '../db/database';
import { parseWith } from '../http/validate';
import { listTeams, pageAgents } from './agents-repo';
import { listCallerNumbers } from './caller-numbers-repo';

/** Routes of users and teams. */
export function usersRoutes(deps: { db: Db }) {
  return async (app: FastifyInstance): Promise<void> => {
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
      });
    });

    app.get('/api/v1/teams', async (request) => {
      const { user } = sessionOf(request);
      parseWith(TimeQuery, request.query, 'query');
      return { data: await listTeams(deps.db, user.accountId) };
    });

    app.get('/api/v1/callerids', async (request) => {
      const { user } = sessionOf(request);
      parseWith(TimeQuery, request.query, 'query');
      return { data: await listCallerNumbers(deps.db, user.accountId) };
    });
  };
}
